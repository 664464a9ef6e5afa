/// The meal a planned meal is for; with the day it forms the meal's slot.
public enum MealType: String, CaseIterable, Hashable, Comparable, Codable, Sendable {
  case breakfast
  case lunch
  case dinner
  case snack

  /// Parses a meal type as people or old data write it: case and surrounding white space do
  /// not matter. Returns `nil` for anything else.
  public init?(parsing text: String) {
    self.init(rawValue: foldedText(text))
  }

  /// Breakfast, lunch, dinner, snack: the order of the day.
  public static func < (lhs: MealType, rhs: MealType) -> Bool {
    lhs.position < rhs.position
  }

  /// Hashes the meal's place in the day. Without this the hash of an enum with raw values is
  /// its raw text's, and every slot key's hash would hash a string.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(position)
  }

  /// The meal's place in the day, from 0 (breakfast) to 3 (snack).
  var position: UInt8 {
    switch self {
    case .breakfast: 0
    case .lunch: 1
    case .dinner: 2
    case .snack: 3
    }
  }
}
