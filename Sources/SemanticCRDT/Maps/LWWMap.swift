/// A map whose every key is its own last-writer-wins register; removal writes a timestamped
/// tombstone.
///
/// ```swift
/// var clock = HybridClock(replica: .random())
/// var stock = LWWMap<String, Int>()
/// stock.set("eggs", to: 12, at: clock.tick())
/// stock.remove("eggs", at: clock.tick())
/// stock.set("eggs", to: 6, at: clock.tick())   // a later set revives the key
/// ```
///
/// ## Conflict resolution
///
/// Per key, the write (set or remove) with the greatest ``HybridTimestamp`` wins; keys are
/// independent. A remove is a write like any other, so a set older than it stays removed and a
/// set newer than it revives the key, on every replica, in any delivery order.
///
/// ## Tombstones
///
/// A removed key keeps a tombstone (its timestamp) so that an older set arriving later cannot
/// revive it. ``compactTombstones(stableAt:)`` discards tombstones that every replica has seen;
/// the caller supplies that causally stable horizon, for example ``VersionVector/meet(_:)`` of
/// the versions of all replicas. Discarding a tombstone any sooner would let an old write come
/// back.
///
/// ## Deltas
///
/// Every write also takes the next ``Dot`` of its replica, so a peer's ``version`` tells which
/// writes it lacks; the map's causal context records the dots seen.
public struct LWWMap<Key: Hashable, Value> {
  /// The winning write of one key.
  struct Entry {
    /// The value, or `nil` for a tombstone.
    var value: Value?
    var timestamp: HybridTimestamp
    /// The dot counter of the write; its replica is the timestamp's.
    var counter: UInt64

    var dot: Dot { Dot(timestamp.replica, counter) }
  }

  private(set) var entries: [Key: Entry]
  private(set) var context: CausalContext

  /// Creates an empty map.
  public init() {
    entries = [:]
    context = CausalContext()
  }

  init(entries: [Key: Entry], context: CausalContext) {
    self.entries = entries
    self.context = context
  }

  /// The value of `key`, or `nil` when it is absent or removed.
  ///
  /// - Complexity: O(1).
  public subscript(key: Key) -> Value? {
    entries[key]?.value
  }

  /// The timestamp of the winning write of `key`, set or remove.
  public func timestamp(of key: Key) -> HybridTimestamp? {
    entries[key]?.timestamp
  }

  /// The keys that hold a value (not tombstones).
  ///
  /// - Complexity: O(*n*) including tombstones.
  public var keys: [Key] { entries.compactMap { $0.value.value == nil ? nil : $0.key } }

  /// The number of keys that hold a value.
  public var count: Int { entries.values.reduce(0) { $0 + ($1.value == nil ? 0 : 1) } }

  /// The number of tombstones held.
  public var tombstoneCount: Int { entries.count - count }

  /// Every write this map has seen, by dot.
  public var causalContext: CausalContext { context }

  /// Sets `key` to `value` at `timestamp`; has no visible effect if a later write of `key` is
  /// already known.
  ///
  /// - Returns: The delta of this write.
  /// - Complexity: O(1).
  @discardableResult
  public mutating func set(_ key: Key, to value: Value, at timestamp: HybridTimestamp) -> LWWMap {
    write(value, for: key, at: timestamp)
  }

  /// Removes `key` at `timestamp` by writing a tombstone.
  ///
  /// - Returns: The delta of this write.
  /// - Complexity: O(1).
  @discardableResult
  public mutating func remove(_ key: Key, at timestamp: HybridTimestamp) -> LWWMap {
    write(nil, for: key, at: timestamp)
  }

  private mutating func write(_ value: Value?, for key: Key, at timestamp: HybridTimestamp)
    -> LWWMap
  {
    let dot = context.nextDot(for: timestamp.replica)
    let entry = Entry(value: value, timestamp: timestamp, counter: dot.counter)
    if entries[key].map({ timestamp > $0.timestamp }) ?? true {
      entries[key] = entry
    }
    var deltaContext = CausalContext()
    deltaContext.insert(dot)
    return LWWMap(entries: [key: entry], context: deltaContext)
  }

  /// Discards tombstones whose write every replica has seen.
  ///
  /// - Parameter horizon: A version every replica's state dominates (a causally stable
  ///   horizon). Passing anything larger can let an older write revive a removed key.
  /// - Returns: The number of tombstones discarded.
  /// - Complexity: O(*n*).
  @discardableResult
  public mutating func compactTombstones(stableAt horizon: VersionVector) -> Int {
    let before = entries.count
    entries = entries.filter {
      $0.value.value != nil || $0.value.counter > horizon[$0.value.timestamp.replica]
    }
    return before - entries.count
  }
}

extension LWWMap.Entry: Equatable where Value: Equatable {}
extension LWWMap.Entry: Sendable where Value: Sendable {}
extension LWWMap: Equatable where Value: Equatable {}
extension LWWMap: Sendable where Key: Sendable, Value: Sendable {}

extension LWWMap: Mergeable {
  /// Keeps, per key, the write with the greater timestamp, and unites the contexts.
  ///
  /// - Complexity: O(*m*) hash lookups for *m* keys of `other`.
  public mutating func merge(_ other: LWWMap) {
    for (key, theirs) in other.entries {
      if let index = entries.index(forKey: key) {
        if theirs.timestamp > entries.values[index].timestamp { entries.values[index] = theirs }
      } else {
        entries[key] = theirs
      }
    }
    context.formUnion(other.context)
  }
}

extension LWWMap: DeltaMergeable {
  /// The writes seen without gaps, per replica.
  public var version: VersionVector { context.versionVector }

  /// The winning writes a peer that has seen `version` lacks, with the dots of the writes it
  /// has not seen; `nil` when there are none.
  ///
  /// - Complexity: O(*n*).
  public func delta(since version: VersionVector) -> LWWMap? {
    let fresh = entries.filter { $0.value.counter > version[$0.value.timestamp.replica] }
    let unseen = context.subtracting(version)
    if fresh.isEmpty && unseen.isEmpty { return nil }
    return LWWMap(entries: fresh, context: unseen)
  }
}

extension LWWMap: HybridTimestamped {
  /// The greatest timestamp of any write held, tombstones included.
  ///
  /// - Complexity: O(*n*).
  public var greatestTimestamp: HybridTimestamp? {
    entries.values.lazy.map(\.timestamp).max()
  }
}

extension LWWMap {
  /// The lattice order: `other` has seen every write of `self` and holds, per key, this write
  /// or a later one.
  package func isLessThanOrEqual(to other: LWWMap) -> Bool {
    guard context.isSubset(of: other.context) else { return false }
    return entries.allSatisfy { key, mine in
      guard let theirs = other.entries[key] else { return false }
      return mine.timestamp <= theirs.timestamp
    }
  }

  /// Descriptions of broken invariants; empty when the state is sound.
  package func invariantViolations() -> [String] {
    entries.compactMap { key, entry in
      context.contains(entry.dot) ? nil : "key \(key): write \(entry.dot) not in context"
    }
  }
}
