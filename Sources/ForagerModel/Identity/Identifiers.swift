import Foundation
import SemanticCRDT
import SemanticCRDTJSON

/// A UUID-based identifier with a type of its own, so a list id is never passed where a recipe
/// id belongs. Ordered by the UUID's text; encoded as that text.
public protocol UUIDIdentifier: Hashable, Comparable, Codable, JSONCodable, Sendable,
  CustomStringConvertible
{
  /// The UUID.
  var uuid: UUID { get }
  /// Wraps a UUID.
  init(uuid: UUID)
}

extension UUIDIdentifier {
  /// A new random identifier.
  public init() { self.init(uuid: UUID()) }

  /// Orders by the UUID's canonical text. Upper-case hex at fixed positions sorts as the bytes
  /// do, so this compares the 16 bytes and never builds the text.
  public static func < (lhs: Self, rhs: Self) -> Bool {
    let left = lhs.uuid.orderingHalves
    let right = rhs.uuid.orderingHalves
    return left.high != right.high ? left.high < right.high : left.low < right.low
  }

  public var description: String { uuid.uuidString }

  /// Decodes canonical UUID text (8-4-4-4-12 hex digits, either case), the rule the fast codec
  /// reads by. Foundation's own UUID decoding on Linux also takes some malformed text, so the
  /// two codecs would disagree on a damaged file.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    var text = try container.decode(String.self)
    guard let uuid = text.withUTF8({ UUID.parse($0) }) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "Not a UUID: \(text.debugDescription)")
    }
    self.init(uuid: uuid)
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

extension UUID {
  /// The 16 bytes as two big-endian integers: comparing them compares the canonical text.
  var orderingHalves: (high: UInt64, low: UInt64) {
    withUnsafeBytes(of: uuid) { bytes in
      (
        bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) },
        bytes.suffix(8).reduce(0) { $0 << 8 | UInt64($1) }
      )
    }
  }
}
