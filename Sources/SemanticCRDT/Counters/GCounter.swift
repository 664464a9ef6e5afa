/// A grow-only counter: one count per replica, summed.
///
/// ```swift
/// var phone = GCounter()
/// var tablet = GCounter()
/// phone.increment(by: 1, replica: phoneID)    // each device's own ReplicaID.random()
/// tablet.increment(by: 1, replica: tabletID)
/// phone.merge(tablet)
/// phone.value   // 2 — increments on two devices are never lost
/// ```
///
/// ## Merge semantics
///
/// Each replica only ever raises its own entry, so any two copies of one entry are ordered and
/// the merge keeps the larger. The value is the sum of all entries. Concurrent increments on
/// different replicas land in different entries and all count.
///
/// - SeeAlso: Shapiro et al., *A comprehensive study of Convergent and Commutative Replicated
///   Data Types* (2011), §3.1.
public struct GCounter: Hashable, Sendable {
  /// The count contributed by each replica; entries of 0 are not stored.
  public private(set) var contributions: [ReplicaID: UInt64]

  /// Creates a counter at 0.
  public init() {
    contributions = [:]
  }

  package init(contributions: [ReplicaID: UInt64]) {
    self.contributions = contributions.filter { $0.value > 0 }
  }

  /// The total of all contributions.
  ///
  /// Saturates at `UInt64.max` rather than trapping: decoding bounds each contribution and
  /// their number, so only an impossible count of local increments could reach it.
  ///
  /// - Complexity: O(*r*) for *r* replicas.
  public var value: UInt64 {
    contributions.values.reduce(0) { sum, contribution in
      let (total, overflow) = sum.addingReportingOverflow(contribution)
      return overflow ? .max : total
    }
  }

  /// Adds `amount` to the contribution of `replica`.
  ///
  /// - Returns: The delta: a counter holding the replica's new contribution.
  /// - Complexity: O(1).
  @discardableResult
  public mutating func increment(by amount: UInt64 = 1, replica: ReplicaID) -> GCounter {
    let total = (contributions[replica] ?? 0) + amount
    if total > 0 { contributions[replica] = total }
    return GCounter(contributions: [replica: total])
  }
}

extension GCounter: Mergeable {
  /// Keeps the larger contribution of each replica.
  ///
  /// - Complexity: O(*r*) for *r* replicas of `other`.
  public mutating func merge(_ other: GCounter) {
    for (replica, count) in other.contributions where count > contributions[replica] ?? 0 {
      contributions[replica] = count
    }
  }
}

extension GCounter: DeltaMergeable {
  /// Each replica's contribution: a peer whose contributions are at least these lacks nothing.
  public var version: VersionVector { VersionVector(contributions) }

  /// The contributions greater than those in `version`, or `nil` when there are none.
  public func delta(since version: VersionVector) -> GCounter? {
    let newer = contributions.filter { $0.value > version[$0.key] }
    return newer.isEmpty ? nil : GCounter(contributions: newer)
  }
}

extension GCounter {
  /// The lattice order: every contribution of `self` is at most that of `other`.
  package func isLessThanOrEqual(to other: GCounter) -> Bool {
    contributions.allSatisfy { $0.value <= other.contributions[$0.key] ?? 0 }
  }
}

extension GCounter: Codable {
  /// Decodes `{"replica": count, …}`.
  public init(from decoder: any Decoder) throws {
    self.init(contributions: try VersionVector(from: decoder).counters)
  }

  /// Encodes `{"replica": count, …}`.
  public func encode(to encoder: any Encoder) throws {
    try VersionVector(contributions).encode(to: encoder)
  }
}
