// Inlining: the code marked @inlinable is generic over the value kept per replica and runs per
// replica in merges, deltas and reads of contexts and versions. Inlined, it is specialized for
// the caller's value in the caller's module. @usableFromInline marks the stored state it reads;
// each stays internal or `package`, out of the public API.

/// A value per replica, in one array sorted by replica id: the storage of ``CausalContext`` and
/// ``VersionVector``.
///
/// A household's contexts and versions name a few hundred replicas (every incarnation of every
/// device that ever wrote), and a replica holds one of each per map, per kept version and per
/// peer's version. A dictionary of that size keeps less than half its buckets full (its
/// capacity is a power of two with a load of at most three quarters) and hashes an id at every
/// lookup; the sorted array is as large as its entries, finds an id by comparing a few, and
/// joins two tables in one pass over both. Equal tables hold equal arrays, so equality and
/// hashing follow the entries.
///
/// - Complexity: Reading a replica is O(log *r*) for *r* replicas; adding a new one O(*r*).
@usableFromInline
package struct ReplicaTable<Value> {
  /// One replica's value.
  @usableFromInline
  package struct Entry {
    @usableFromInline package let replica: ReplicaID
    @usableFromInline package var value: Value

    @inlinable
    package init(_ replica: ReplicaID, _ value: Value) {
      self.replica = replica
      self.value = value
    }
  }

  /// Sorted by replica (``precedes(_:_:)``), no replica twice.
  @usableFromInline package private(set) var entries: [Entry]

  /// The table's order: `String`'s order of the ids' texts, which compares two short ASCII ids
  /// (every id ``ReplicaID/random()`` makes) as two integers, a few instructions, where the
  /// order of ``ReplicaID`` itself (its Unicode scalars, the tie-break of timestamps) reads
  /// both texts' bytes, ten times as many. Both orders are the same for ASCII ids. `String`'s
  /// order agrees with `String`'s equality, and so with ``ReplicaID``'s, for any text; nothing
  /// outside this storage depends on it (an encoding writes the replicas in the table's order,
  /// and reads them in any).
  @inlinable
  package static func precedes(_ lhs: ReplicaID, _ rhs: ReplicaID) -> Bool {
    lhs.rawValue < rhs.rawValue
  }

  /// No replicas.
  @inlinable
  package init() {
    entries = []
  }

  /// A table of `entries` already sorted by replica, each once.
  @inlinable
  package init(sorted entries: [Entry]) {
    self.entries = entries
  }

  /// A table of `pairs` in any order; of a replica given twice, the later value is kept.
  ///
  /// - Complexity: O(*r*) when the pairs come sorted (as every encoding writes them),
  ///   O(*r* log *r*) otherwise.
  @inlinable
  package init(_ pairs: [(ReplicaID, Value)]) {
    if zip(pairs, pairs.dropFirst()).allSatisfy({ Self.precedes($0.0, $1.0) }) {
      entries = pairs.map { Entry($0.0, $0.1) }
      return
    }
    // By replica, then by place, so that of a replica's values the last given ends its run.
    let order = pairs.indices.sorted {
      Self.precedes(pairs[$0].0, pairs[$1].0) || (pairs[$0].0 == pairs[$1].0 && $0 < $1)
    }
    entries = []
    entries.reserveCapacity(pairs.count)
    for position in order {
      let (replica, value) = pairs[position]
      if let last = entries.last, last.replica == replica {
        entries[entries.count - 1].value = value
      } else {
        entries.append(Entry(replica, value))
      }
    }
  }

  @inlinable
  package var count: Int { entries.count }

  @inlinable
  package var isEmpty: Bool { entries.isEmpty }

  /// The replicas, in order.
  @inlinable
  package var replicas: some RandomAccessCollection<ReplicaID> { entries.lazy.map(\.replica) }

  /// The place of `replica`, or where it would go, and whether it is there.
  ///
  /// - Complexity: O(log *r*).
  @inlinable
  package func position(of replica: ReplicaID) -> (position: Int, found: Bool) {
    let position = entries.partitioningIndex { !Self.precedes($0.replica, replica) }
    return (position, position < entries.count && entries[position].replica == replica)
  }

  /// The value of `replica`; setting `nil` removes it.
  ///
  /// - Complexity: O(log *r*) to read or change; O(*r*) to add or remove a replica.
  @inlinable
  package subscript(replica: ReplicaID) -> Value? {
    get {
      let (position, found) = position(of: replica)
      return found ? entries[position].value : nil
    }
    set {
      let (position, found) = position(of: replica)
      switch (found, newValue) {
      case (true, let value?): entries[position].value = value
      case (true, nil): entries.remove(at: position)
      case (false, let value?): entries.insert(Entry(replica, value), at: position)
      case (false, nil): break
      }
    }
  }

  /// Changes the value of `replica` in place, starting from `defaultValue` when it has none.
  ///
  /// - Complexity: that of `body`, plus O(log *r*), plus O(*r*) to add the replica.
  @inlinable
  package mutating func update<Result>(
    _ replica: ReplicaID, default defaultValue: @autoclosure () -> Value,
    _ body: (inout Value) -> Result
  ) -> Result {
    let (position, found) = position(of: replica)
    if !found { entries.insert(Entry(replica, defaultValue()), at: position) }
    return body(&entries[position].value)
  }

  /// Changes the value at `position` (from ``position(of:)``) in place.
  @inlinable
  package mutating func updateValue(at position: Int, _ body: (inout Value) -> Void) {
    body(&entries[position].value)
  }

  /// Each replica with `transform` of its value, in the same order.
  @inlinable
  package func mapValues<Other>(_ transform: (Value) -> Other) -> ReplicaTable<Other> {
    ReplicaTable<Other>(sorted: entries.map { .init($0.replica, transform($0.value)) })
  }

  /// The replicas whose value satisfies `isIncluded`.
  @inlinable
  package func filter(_ isIncluded: (ReplicaID, Value) -> Bool) -> ReplicaTable {
    ReplicaTable(sorted: entries.filter { isIncluded($0.replica, $0.value) })
  }

  /// Calls `body` with each replica of either table, in order, and its value in each (`nil`
  /// where a table has none): the one pass that joins, compares or subtracts two tables.
  ///
  /// - Complexity: O(*r* + *s*) for tables of *r* and *s* replicas.
  @inlinable
  package func forEachReplica<Other>(
    with other: ReplicaTable<Other>, _ body: (ReplicaID, Value?, Other?) -> Void
  ) {
    var (mine, theirs) = (0, 0)
    let (left, right) = (entries, other.entries)
    while mine < left.count || theirs < right.count {
      if theirs == right.count
        || (mine < left.count && Self.precedes(left[mine].replica, right[theirs].replica))
      {
        body(left[mine].replica, left[mine].value, nil)
        mine += 1
      } else if mine == left.count || Self.precedes(right[theirs].replica, left[mine].replica) {
        body(right[theirs].replica, nil, right[theirs].value)
        theirs += 1
      } else {
        body(left[mine].replica, left[mine].value, right[theirs].value)
        mine += 1
        theirs += 1
      }
    }
  }

  /// Keeps room for `capacity` replicas.
  @inlinable
  package mutating func reserveCapacity(_ capacity: Int) {
    entries.reserveCapacity(capacity)
  }

  /// Adds `value` for `replica`, which must come after every replica here: how a table is
  /// built in order.
  @inlinable
  package mutating func append(_ replica: ReplicaID, _ value: Value) {
    entries.append(Entry(replica, value))
  }
}

extension ReplicaTable: Sequence {
  @inlinable
  package func makeIterator() -> some IteratorProtocol<(key: ReplicaID, value: Value)> {
    entries.lazy.map { (key: $0.replica, value: $0.value) }.makeIterator()
  }

  @inlinable
  package var underestimatedCount: Int { entries.count }
}

extension ReplicaTable.Entry: Equatable where Value: Equatable {}
extension ReplicaTable.Entry: Hashable where Value: Hashable {}
extension ReplicaTable.Entry: Sendable where Value: Sendable {}
extension ReplicaTable: Equatable where Value: Equatable {}
extension ReplicaTable: Hashable where Value: Hashable {}
extension ReplicaTable: Sendable where Value: Sendable {}
