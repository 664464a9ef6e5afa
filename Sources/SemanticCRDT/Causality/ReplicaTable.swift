// Inlining: the code marked @inlinable is generic over the value kept per replica and runs per
// replica in merges, deltas and reads of contexts and versions. Inlined, it is specialized for
// the caller's value in the caller's module. @usableFromInline marks the stored state it reads;
// each stays internal or `package`, out of the public API.

/// A value per replica, in two arrays sorted by replica id, the replicas and their values: the
/// storage of ``CausalContext`` and ``VersionVector``.
///
/// A household's contexts and versions name a few hundred replicas (every incarnation of every
/// device that ever wrote), and a replica holds one of each per map, per kept version and per
/// peer's version. A dictionary of that size keeps less than half its buckets full (its
/// capacity is a power of two with a load of at most three quarters) and hashes an id at every
/// lookup; the sorted arrays are as large as their entries, find an id by comparing a few, and
/// join two tables in one pass over both. Equal tables hold equal arrays, so equality and
/// hashing follow the entries.
///
/// The replicas are an array of their own so that tables naming the same replicas share it: a
/// version read from a context (``CausalContext/versionVector``) keeps the context's replicas
/// and adds 8 bytes per replica for its counters, where a table of pairs repeated every 16-byte
/// id in every kept version (docs/decisions/0051). A change of values, or a join that brings no
/// new replica, keeps the array shared.
///
/// - Complexity: Reading a replica is O(log *r*) for *r* replicas; adding a new one O(*r*).
@usableFromInline
package struct ReplicaTable<Value> {
  /// The replicas, sorted by ``precedes(_:_:)``, no replica twice.
  @usableFromInline package private(set) var replicas: [ReplicaID]
  /// The value of each replica, at the replica's place in ``replicas``.
  @usableFromInline package private(set) var values: [Value]

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
    (replicas, values) = ([], [])
  }

  /// A table of `replicas`, already sorted and each once, with `values` place by place.
  @inlinable
  package init(sortedReplicas replicas: [ReplicaID], values: [Value]) {
    assert(replicas.count == values.count, "a table needs a value for each replica")
    (self.replicas, self.values) = (replicas, values)
  }

  /// A table of `pairs` in any order; of a replica given twice, the later value is kept.
  ///
  /// - Complexity: O(*r*) when the pairs come sorted (as every encoding writes them),
  ///   O(*r* log *r*) otherwise.
  @inlinable
  package init(_ pairs: [(ReplicaID, Value)]) {
    self.init()
    if zip(pairs, pairs.dropFirst()).allSatisfy({ Self.precedes($0.0, $1.0) }) {
      (replicas, values) = (pairs.map(\.0), pairs.map(\.1))
      return
    }
    // By replica, then by place, so that of a replica's values the last given ends its run.
    let order = pairs.indices.sorted {
      Self.precedes(pairs[$0].0, pairs[$1].0) || (pairs[$0].0 == pairs[$1].0 && $0 < $1)
    }
    reserveCapacity(pairs.count)
    for position in order {
      let (replica, value) = pairs[position]
      if let last = replicas.last, last == replica {
        values[values.count - 1] = value
      } else {
        append(replica, value)
      }
    }
  }

  @inlinable
  package var count: Int { replicas.count }

  @inlinable
  package var isEmpty: Bool { replicas.isEmpty }

  /// The place of `replica`, or where it would go, and whether it is there.
  ///
  /// - Complexity: O(log *r*).
  @inlinable
  package func position(of replica: ReplicaID) -> (position: Int, found: Bool) {
    let position = replicas.partitioningIndex { !Self.precedes($0, replica) }
    return (position, position < replicas.count && replicas[position] == replica)
  }

  /// The value of `replica`; setting `nil` removes it.
  ///
  /// - Complexity: O(log *r*) to read or change; O(*r*) to add or remove a replica.
  @inlinable
  package subscript(replica: ReplicaID) -> Value? {
    get {
      let (position, found) = position(of: replica)
      return found ? values[position] : nil
    }
    set {
      let (position, found) = position(of: replica)
      switch (found, newValue) {
      case (true, let value?): values[position] = value
      case (true, nil):
        replicas.remove(at: position)
        values.remove(at: position)
      case (false, let value?):
        replicas.insert(replica, at: position)
        values.insert(value, at: position)
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
    if !found {
      replicas.insert(replica, at: position)
      values.insert(defaultValue(), at: position)
    }
    return body(&values[position])
  }

  /// Changes the value at `position` (from ``position(of:)``) in place.
  @inlinable
  package mutating func updateValue(at position: Int, _ body: (inout Value) -> Void) {
    body(&values[position])
  }

  /// Each replica with `transform` of its value, in the same order: the same replicas, which
  /// the result shares.
  @inlinable
  package func mapValues<Other>(_ transform: (Value) -> Other) -> ReplicaTable<Other> {
    ReplicaTable<Other>(sortedReplicas: replicas, values: values.map(transform))
  }

  /// The replicas whose value satisfies `isIncluded`: this table itself, sharing its arrays,
  /// when every one does (a decoded context without an empty set, a version whose replicas all
  /// have a prefix), built anew only from the first replica dropped.
  @inlinable
  package func filter(_ isIncluded: (ReplicaID, Value) -> Bool) -> ReplicaTable {
    guard
      let dropped = replicas.indices.first(where: { !isIncluded(replicas[$0], values[$0]) })
    else { return self }
    var kept = ReplicaTable(
      sortedReplicas: Array(replicas[..<dropped]), values: Array(values[..<dropped]))
    for position in replicas.indices[(dropped + 1)...]
    where isIncluded(replicas[position], values[position]) {
      kept.append(replicas[position], values[position])
    }
    return kept
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
    let (left, right) = (replicas, other.replicas)
    while mine < left.count || theirs < right.count {
      if theirs == right.count
        || (mine < left.count && Self.precedes(left[mine], right[theirs]))
      {
        body(left[mine], values[mine], nil)
        mine += 1
      } else if mine == left.count || Self.precedes(right[theirs], left[mine]) {
        body(right[theirs], nil, other.values[theirs])
        theirs += 1
      } else {
        body(left[mine], values[mine], other.values[theirs])
        mine += 1
        theirs += 1
      }
    }
  }

  /// Joins `other` into this table: a replica of either keeps its value here joined by
  /// `combine` with its value there, or takes its value there. When `other` names no replica
  /// this table lacks, only the values change and the replicas stay shared.
  ///
  /// - Complexity: O(*r* + *s*) for tables of *r* and *s* replicas.
  @inlinable
  package mutating func formUnion(_ other: ReplicaTable, _ combine: (inout Value, Value) -> Void) {
    var (mine, theirs) = (0, 0)
    while theirs < other.count {
      while mine < count && Self.precedes(replicas[mine], other.replicas[theirs]) { mine += 1 }
      guard mine < count, replicas[mine] == other.replicas[theirs] else { break }
      mine += 1
      theirs += 1
    }
    if theirs == other.count {
      // Every replica of `other` is here: the values change in place.
      var position = 0
      for (replica, value) in other {
        while replicas[position] != replica { position += 1 }
        combine(&values[position], value)
      }
      return
    }
    var joined = ReplicaTable()
    joined.reserveCapacity(Swift.max(count, other.count))
    forEachReplica(with: other) { replica, mine, theirs in
      guard var value = mine else { return joined.append(replica, theirs!) }
      if let theirs { combine(&value, theirs) }
      joined.append(replica, value)
    }
    self = joined
  }

  /// Keeps room for `capacity` replicas.
  @inlinable
  package mutating func reserveCapacity(_ capacity: Int) {
    replicas.reserveCapacity(capacity)
    values.reserveCapacity(capacity)
  }

  /// Adds `value` for `replica`, which must come after every replica here: how a table is
  /// built in order.
  @inlinable
  package mutating func append(_ replica: ReplicaID, _ value: Value) {
    replicas.append(replica)
    values.append(value)
  }
}

extension ReplicaTable: Sequence {
  @inlinable
  package func makeIterator() -> some IteratorProtocol<(key: ReplicaID, value: Value)> {
    zip(replicas, values).lazy.map { (key: $0, value: $1) }.makeIterator()
  }

  @inlinable
  package var underestimatedCount: Int { replicas.count }
}

extension ReplicaTable: Equatable where Value: Equatable {}
extension ReplicaTable: Hashable where Value: Hashable {}
extension ReplicaTable: Sendable where Value: Sendable {}
