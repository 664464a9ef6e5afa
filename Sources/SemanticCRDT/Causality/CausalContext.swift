// Inlining: the code marked @inlinable is generic over keys and values and runs per key or
// per dot in merges, deltas and reads. Inlined, it is specialized for the caller's types in
// the caller's module; not inlined, every comparison, hash and copy of a key or value goes
// through witness tables. @usableFromInline marks the stored state and helpers that inlined
// code reads; each stays `package` or internal, out of the public API.

/// The set of dots a state has seen, live or not: its causal past.
///
/// The causal types keep, beside their live dots, a causal context. A dot in the context but no
/// longer live was removed (or overwritten) by an event this state has seen, which is how the
/// optimized observed-remove types remove without a tombstone per element. The context is stored
/// per replica as a ``VersionVector``-like prefix plus a few intervals, so it stays small however
/// many events it summarizes.
///
/// - SeeAlso: Almeida, Shoker, Baquero, *Delta State Replicated Data Types* (2018), §6.
public struct CausalContext: Hashable, Sendable {
  /// Per replica, the counters seen; never holds an empty set.
  @usableFromInline package private(set) var replicas: ReplicaTable<CounterSet>

  /// The empty context: nothing seen.
  public init() {
    replicas = ReplicaTable()
  }

  @usableFromInline
  package init(replicas: [ReplicaID: CounterSet]) {
    self.init(
      replicas: ReplicaTable(replicas.filter { !$0.value.isEmpty }.map { ($0.key, $0.value) }))
  }

  @usableFromInline
  package init(replicas: ReplicaTable<CounterSet>) {
    self.replicas = replicas.filter { !$1.isEmpty }
  }

  /// Whether nothing has been seen.
  public var isEmpty: Bool { replicas.isEmpty }

  /// Whether `dot` has been seen.
  ///
  /// - Complexity: O(log *r*) for *r* replicas, for dots in a replica's contiguous prefix.
  public func contains(_ dot: Dot) -> Bool {
    replicas[dot.replica]?.contains(dot.counter) ?? false
  }

  /// The contiguous prefix per replica: the events seen without gaps.
  ///
  /// When every replica seen has a prefix (a replica's own writes start at 1, and a state
  /// mostly holds them from there), the version shares this context's array of replicas: the
  /// versions a replica keeps of its maps cost 8 bytes per replica each (ADR 0051).
  ///
  /// - Complexity: O(*r*) for *r* replicas.
  public var versionVector: VersionVector {
    // `filter` keeps this table itself when every replica has a prefix; `mapValues` shares its
    // replicas.
    VersionVector(table: replicas.filter { $1.prefix > 0 }.mapValues(\.prefix))
  }

  /// The most replicas a decoded context, version vector or counter may name: 100,000, about
  /// seven years of four devices opening their replica ten times a day (each open is a new
  /// incarnation). More comes from a forged or damaged state.
  public static let maximumReplicas = 100_000

  /// The most intervals a decoded context may hold for one replica beyond its contiguous
  /// prefix: 65,536. Intervals are runs of a replica's dots a state has not seen (deliveries out
  /// of order, which later ones fill) or, in a delta since a version, runs of dots dead within
  /// it (ADR 0002), at most one per two dots. 65,536 is a replica whose 131,072 writes were
  /// removed in alternation, more than a household's records; more comes from a forged state,
  /// whose intervals every replica that merged it would keep for good. A merge that would leave
  /// a household past it is refused too, so that no saved file exceeds what is read back.
  public static let maximumIntervalsPerReplica = 1 << 16

  /// The most intervals this context holds for any one replica beyond its prefix.
  ///
  /// - Complexity: O(*r*) for *r* replicas.
  package var mostIntervalsOfOneReplica: (replica: ReplicaID, count: Int)? {
    replicas.max { $0.value.intervals.count < $1.value.intervals.count }.map {
      ($0.key, $0.value.intervals.count)
    }
  }

  /// The replicas this context has seen a dot of.
  @usableFromInline package var replicaIDs: some Collection<ReplicaID> { replicas.replicas }

  /// The greatest counter seen from `replica`, or 0.
  public func maximum(of replica: ReplicaID) -> UInt64 {
    replicas[replica]?.maximum ?? 0
  }

  /// The number of dots seen.
  public var count: UInt64 {
    replicas.reduce(0) { $0 + $1.value.count }
  }

  /// The number of runs of counters the context names, over all its replicas: what a peer
  /// reads and joins with it. A delta since a version names one for each run of dots dead
  /// within the version (`delta(since:liveRanges:)`), so in a household whose writes are
  /// overwritten and removed, the runs grow with its history while the live dots do not.
  ///
  /// - Complexity: O(*r*) for *r* replicas.
  package var rangeCount: Int {
    replicas.reduce(0) { $0 + $1.value.rangeCount }
  }

  /// Issues the next dot of `replica`: one above every counter of it seen so far, and records it.
  ///
  /// - Complexity: O(1) for a replica whose seen dots are contiguous.
  @usableFromInline mutating func nextDot(for replica: ReplicaID) -> Dot {
    let dot = Dot(replica, maximum(of: replica) + 1)
    insert(dot)
    return dot
  }

  @usableFromInline mutating func insert(_ dot: Dot) {
    replicas.update(dot.replica, default: CounterSet()) { $0.insert(dot.counter) }
  }

  /// - Complexity: O(*s* log *r*) for *s* replicas of `other` and *r* here when both are
  ///   plain prefixes and `other` names only replicas seen here (a delta's context, mostly),
  ///   O(*r* + *s*) otherwise.
  @usableFromInline
  package mutating func formUnion(_ other: CausalContext) {
    if other.replicas.count * 8 < replicas.count {
      var missing = false
      for (replica, theirs) in other.replicas {
        let (position, found) = replicas.position(of: replica)
        if found {
          replicas.updateValue(at: position) { $0.formUnion(theirs) }
        } else {
          missing = true
        }
      }
      guard missing else { return }
    }
    // One pass over both: a replica seen on both sides and joined above is joined again,
    // which changes nothing. Without a replica new here, the replicas stay shared with the
    // versions read of this context.
    replicas.formUnion(other.replicas) { $0.formUnion($1) }
  }

  /// The dots seen here that `version` does not cover.
  func subtracting(_ version: VersionVector) -> CausalContext {
    var result = ReplicaTable<CounterSet>()
    replicas.forEachReplica(with: version.table) { replica, counters, bound in
      guard let counters else { return }
      let remaining = counters.above(bound ?? 0)
      if !remaining.isEmpty { result.append(replica, remaining) }
    }
    return CausalContext(sortedReplicas: result)
  }

  /// The dots seen here that `other` has not seen.
  ///
  /// - Complexity: O(*r* + *s*) for *r* and *s* replicas, plus the intervals involved.
  @usableFromInline
  package func subtracting(_ other: CausalContext) -> CausalContext {
    var result = ReplicaTable<CounterSet>()
    replicas.forEachReplica(with: other.replicas) { replica, counters, theirs in
      guard let counters else { return }
      let remaining = theirs.map { counters.subtracting($0) } ?? counters
      if !remaining.isEmpty { result.append(replica, remaining) }
    }
    return CausalContext(sortedReplicas: result)
  }

  /// A context of `replicas`, which hold no empty set.
  @usableFromInline
  init(sortedReplicas replicas: ReplicaTable<CounterSet>) {
    self.replicas = replicas
  }

  /// The context of a delta for a peer that has seen `version`: the dots seen here that
  /// `version` does not cover, and the dots within `version` that are not live here (removed
  /// or overwritten here, and the peer must learn so). `liveRanges` gives, for a replica and a
  /// bound, the counters of that replica's live dots up to the bound (none above it), as
  /// sorted, disjoint ranges; it is asked once per replica with a bound above 0.
  ///
  /// - Complexity: O(*r*) for *r* replicas, plus `liveRanges`, plus the intervals involved.
  @usableFromInline
  package func delta(
    since version: VersionVector,
    liveRanges: (ReplicaID, _ upTo: UInt64) -> [ClosedRange<UInt64>]
  ) -> CausalContext {
    var result = ReplicaTable<CounterSet>()
    // Nearly every replica keeps a part (its dead dots, or dots the peer has not seen).
    result.reserveCapacity(replicas.count)
    replicas.forEachReplica(with: version.table) { replica, counters, bound in
      guard let counters else { return }
      let bound = bound ?? 0
      // The live counters are all within `bound`: taking them out of the whole set, in one
      // pass, leaves the dead ones within it and every one above it.
      let part =
        bound > 0 ? counters.upTo(.max, excluding: liveRanges(replica, bound)) : counters
      if !part.isEmpty { result.append(replica, part) }
    }
    return CausalContext(sortedReplicas: result)
  }

  /// The context of the dots `version` covers: per replica, every counter up to its entry.
  @usableFromInline
  package init(_ version: VersionVector) {
    // A version holds no zero entry, so no set is empty.
    replicas = version.table.mapValues { CounterSet(prefix: $0) }
  }

  /// Whether every dot of `self` is in `other`.
  public func isSubset(of other: CausalContext) -> Bool {
    var isSubset = true
    replicas.forEachReplica(with: other.replicas) { _, counters, theirs in
      guard isSubset, let counters else { return }
      isSubset = theirs.map { counters.isSubset(of: $0) } ?? false
    }
    return isSubset
  }

  /// Every seen dot, in order; for tests and inspection of small contexts.
  public var dots: [Dot] {
    replicas.sorted { $0.key < $1.key }.flatMap { replica, counters in
      counters.ranges.flatMap { range in range.map { Dot(replica, $0) } }
    }
  }
}

extension CausalContext: CustomStringConvertible {
  /// Replicas in order with their intervals, for example `{phone: 1…4, 7…7}`.
  public var description: String {
    let entries = replicas.sorted { $0.key < $1.key }.map { replica, counters in
      "\(replica): "
        + counters.ranges.map { "\($0.lowerBound)…\($0.upperBound)" }
        .joined(separator: ", ")
    }
    return "{" + entries.joined(separator: "; ") + "}"
  }
}

extension CausalContext: Codable {
  /// Decodes `{"replica": [[first, last], …], …}`; empty, inverted or zero-based intervals are
  /// data-corruption errors. Overlapping intervals are accepted and normalized.
  public init(from decoder: any Decoder) throws {
    let raw = try [String: [[UInt64]]](from: decoder)
    guard raw.count <= Self.maximumReplicas else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: decoder.codingPath,
          debugDescription: "A causal context names more than \(Self.maximumReplicas) replicas"))
    }
    var replicas: [ReplicaID: CounterSet] = [:]
    for (replica, pairs) in raw {
      // The first range may be the prefix.
      guard pairs.count <= Self.maximumIntervalsPerReplica + 1 else {
        throw DecodingError.dataCorrupted(
          .init(
            codingPath: decoder.codingPath,
            debugDescription:
              "Replica \(replica) has more than \(Self.maximumIntervalsPerReplica) intervals"))
      }
      guard !replica.isEmpty, !pairs.isEmpty else {
        throw DecodingError.dataCorrupted(
          .init(
            codingPath: decoder.codingPath,
            debugDescription: "Causal context entry needs a replica and at least one interval"))
      }
      var ranges: [ClosedRange<UInt64>] = []
      for pair in pairs {
        guard pair.count == 2, pair[0] >= 1, pair[0] <= pair[1], pair[1] <= Dot.maximumCounter
        else {
          throw DecodingError.dataCorrupted(
            .init(
              codingPath: decoder.codingPath,
              debugDescription:
                "Interval \(pair) of replica \(replica) is not [first, last] with 1 ≤ first ≤ last ≤ \(Dot.maximumCounter)"
            )
          )
        }
        ranges.append(pair[0]...pair[1])
      }
      replicas[ReplicaID(replica)] = CounterSet(ranges)
    }
    self.init(replicas: replicas)
  }

  /// Encodes `{"replica": [[first, last], …], …}` with intervals ascending.
  public func encode(to encoder: any Encoder) throws {
    let raw = Dictionary(
      uniqueKeysWithValues: replicas.map {
        ($0.key.rawValue, $0.value.ranges.map { [$0.lowerBound, $0.upperBound] })
      })
    try raw.encode(to: encoder)
  }
}

extension CausalContext {
  /// Whether no dot is in both contexts.
  ///
  /// - Complexity: O(*r* × *k*) for *r* shared replicas of *k* intervals.
  @usableFromInline
  package func isDisjoint(with other: CausalContext) -> Bool {
    var disjoint = true
    replicas.forEachReplica(with: other.replicas) { _, counters, theirs in
      guard disjoint, let counters, let theirs else { return }
      disjoint = !counters.intersects(theirs)
    }
    return disjoint
  }
}

/// Answers "has the context seen this dot?" for many dots in a row, looking a replica up once
/// while consecutive dots come from it (they mostly do): one hash of a replica id per run of
/// dots instead of one per dot.
@usableFromInline
package struct ContextMembership {
  @usableFromInline package let context: CausalContext
  @usableFromInline package var replica: ReplicaID?
  @usableFromInline package var counters: CounterSet?

  @inlinable
  init(_ context: CausalContext) {
    self.context = context
  }

  @inlinable
  mutating func contains(_ dot: Dot) -> Bool {
    if dot.replica != replica {
      replica = dot.replica
      counters = context.replicas[dot.replica]
    }
    return counters?.contains(dot.counter) ?? false
  }
}
