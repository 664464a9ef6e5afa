import Foundation

/// A UUID-based identifier with a type of its own, so a list id is never passed where a recipe
/// id belongs. Ordered by the UUID's text; encoded as that text.
public protocol UUIDIdentifier: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
  /// The UUID.
  var uuid: UUID { get }
  /// Wraps a UUID.
  init(uuid: UUID)
}

extension UUIDIdentifier {
  /// A new random identifier.
  public init() { self.init(uuid: UUID()) }

  /// Orders by the UUID's canonical text.
  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.uuid.uuidString < rhs.uuid.uuidString }

  public var description: String { uuid.uuidString }

  public init(from decoder: any Decoder) throws {
    self.init(uuid: try decoder.singleValueContainer().decode(UUID.self))
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(uuid)
  }
}

/// Identifies a household: every state carries it, and states of different households never
/// merge.
public struct HouseholdID: UUIDIdentifier {
  public let uuid: UUID
  public init(uuid: UUID) { self.uuid = uuid }
}

/// Identifies a person in a household (across their devices).
public struct MemberID: UUIDIdentifier {
  public let uuid: UUID
  public init(uuid: UUID) { self.uuid = uuid }
}

/// Identifies a recipe. Recipes keep UUID identity: two recipes may share a title.
public struct RecipeID: UUIDIdentifier {
  public let uuid: UUID
  public init(uuid: UUID) { self.uuid = uuid }
}

/// Identifies a weekly grocery list.
public struct WeeklyListID: UUIDIdentifier {
  public let uuid: UUID
  public init(uuid: UUID) { self.uuid = uuid }
}

/// Identifies a grocery list item.
public struct GroceryItemID: UUIDIdentifier {
  public let uuid: UUID
  public init(uuid: UUID) { self.uuid = uuid }
}

/// Identifies a meal plan.
public struct MealPlanID: UUIDIdentifier {
  public let uuid: UUID
  public init(uuid: UUID) { self.uuid = uuid }
}
