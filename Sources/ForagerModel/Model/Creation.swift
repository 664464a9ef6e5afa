import SemanticCRDT

/// Who created a record, where and when: the earliest creation wins a merge.
///
/// Two devices that create the same semantic key offline both record a creation; after the
/// merge the record shows the earlier one (by hybrid timestamp, so ties break by replica id),
/// the same on every device.
public struct Creation: Hashable, Codable, Sendable {
  /// When the record was created.
  public let timestamp: HybridTimestamp
  /// The member who created it; also the record's owner.
  public let member: MemberID

  /// The keys in both codecs, in the order they are written.
  enum CodingKeys: String, CodingKey, CaseIterable, Sendable {
    case member, timestamp
  }

  /// The replica (device) that created it.
  public var replica: ReplicaID { timestamp.replica }

  public init(timestamp: HybridTimestamp, member: MemberID) {
    self.timestamp = timestamp
    self.member = member
  }
}

extension Creation: Mergeable {
  /// Keeps the earlier creation.
  public mutating func merge(_ other: Creation) {
    if other.timestamp < timestamp { self = other }
  }
}

/// Who may see a record: the whole household, or only its owner.
public enum SharingScope: String, Codable, Sendable, CaseIterable {
  case household
  case ownerOnly
}

/// Where a grocery item came from.
public enum ItemSource: Hashable, Codable, Sendable {
  case recipe(RecipeID)
  case manual
  case staple
}

/// A member's role in a household.
public enum MemberRole: String, Codable, Sendable, Comparable {
  case owner
  case member

  public static func < (lhs: MemberRole, rhs: MemberRole) -> Bool {
    lhs == .owner && rhs == .member
  }
}
