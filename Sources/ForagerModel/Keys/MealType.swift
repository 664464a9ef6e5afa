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
    allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
  }
}
