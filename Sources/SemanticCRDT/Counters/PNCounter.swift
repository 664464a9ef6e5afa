/// A counter that goes up and down: two grow-only counters, one of increments and one of
/// decrements.
///
/// ## Merge semantics
///
/// As ``GCounter``, for each half. The value is increments minus decrements; concurrent changes
/// on different replicas all count.
public struct PNCounter: Hashable, Sendable {
  /// The increments of each replica.
  public private(set) var increments: GCounter
  /// The decrements of each replica.
  public private(set) var decrements: GCounter

  /// Creates a counter at 0.
  public init() {
    increments = GCounter()
    decrements = GCounter()
  }

  init(increments: GCounter, decrements: GCounter) {
    self.increments = increments
    self.decrements = decrements
  }

  /// Increments minus decrements.
  ///
  /// - Complexity: O(*r*) for *r* replicas.
  public var value: Int64 { Int64(increments.value) - Int64(decrements.value) }

  /// Adds `amount` for `replica`.
  ///
  /// - Returns: The delta of this change.
  @discardableResult
  public mutating func increment(by amount: UInt64 = 1, replica: ReplicaID) -> PNCounter {
    PNCounter(
      increments: increments.increment(by: amount, replica: replica), decrements: GCounter())
  }

  /// Subtracts `amount` for `replica`.
  ///
  /// - Returns: The delta of this change.
  @discardableResult
  public mutating func decrement(by amount: UInt64 = 1, replica: ReplicaID) -> PNCounter {
    PNCounter(
      increments: GCounter(), decrements: decrements.increment(by: amount, replica: replica))
  }
}

extension PNCounter: Mergeable {
  /// Merges each half as a ``GCounter``.
  public mutating func merge(_ other: PNCounter) {
    increments.merge(other.increments)
    decrements.merge(other.decrements)
  }
}

extension PNCounter: DeltaMergeable {
  /// Per replica, its increments plus its decrements. Both only grow, and only that replica
  /// changes them, so a larger sum means a later state of that replica's entry.
  public var version: VersionVector {
    var version = increments.version
    for (replica, count) in decrements.contributions { version[replica] += count }
    return version
  }

  /// The entries of replicas whose state is later than `version` says, or `nil`.
  public func delta(since version: VersionVector) -> PNCounter? {
    let mine = self.version
    let changed = Set(mine.counters.keys.filter { mine[$0] > version[$0] })
    if changed.isEmpty { return nil }
    return PNCounter(
      increments: GCounter(
        contributions: increments.contributions.filter { changed.contains($0.key) }),
      decrements: GCounter(
        contributions: decrements.contributions.filter { changed.contains($0.key) }))
  }
}

extension PNCounter {
  /// The lattice order: both halves are ordered.
  package func isLessThanOrEqual(to other: PNCounter) -> Bool {
    increments.isLessThanOrEqual(to: other.increments)
      && decrements.isLessThanOrEqual(to: other.decrements)
  }
}

extension PNCounter: Codable {
  private enum CodingKeys: String, CodingKey {
    case decrements
    case increments
  }
}
