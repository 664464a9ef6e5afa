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
  @usableFromInline package private(set) var replicas: [ReplicaID: CounterSet]

  /// The empty context: nothing seen.
  public init() {
    replicas = [:]
  }

  @usableFromInline
  package init(replicas: [ReplicaID: CounterSet]) {
    self.replicas = replicas.filter { !$0.value.isEmpty }
  }

  /// Whether nothing has been seen.
  public var isEmpty: Bool { replicas.isEmpty }

  /// Whether `dot` has been seen.
  ///
  /// - Complexity: O(1) for dots in a replica's contiguous prefix.
  public func contains(_ dot: Dot) -> Bool {
    replicas[dot.replica]?.contains(dot.counter) ?? false
  }

  /// The contiguous prefix per replica: the events seen without gaps.
  ///
  /// - Complexity: O(*r*) for *r* replicas.
  public var versionVector: VersionVector {
    VersionVector(replicas.mapValues(\.prefix))
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
  @usableFromInline package var replicaIDs: some Collection<ReplicaID> { replicas.keys }

  /// The greatest counter seen from `replica`, or 0.
  public func maximum(of replica: ReplicaID) -> UInt64 {
    replicas[replica]?.maximum ?? 0
  }

  /// The number of dots seen.
  public var count: UInt64 {
    replicas.values.reduce(0) { $0 + $1.count }
  }

  /// The number of runs of counters the context names, over all its replicas: what a peer
  /// reads and joins with it. A delta since a version names one for each run of dots dead
  /// within the version (`delta(since:liveRanges:)`), so in a household whose writes are
  /// overwritten and removed, the runs grow with its history while the live dots do not.
  ///
  /// - Complexity: O(*r*) for *r* replicas.
  package var rangeCount: Int {
    replicas.values.reduce(0) { $0 + $1.rangeCount }
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
    replicas[dot.replica, default: CounterSet()].insert(dot.counter)
  }

  /// - Complexity: O(*r*) when both contexts are plain prefixes.
  @usableFromInline
  package mutating func formUnion(_ other: CausalContext) {
    for (replica, counters) in other.replicas {
      replicas[replica, default: CounterSet()].formUnion(counters)
    }
  }

  /// The dots seen here that `version` does not cover.
  func subtracting(_ version: VersionVector) -> CausalContext {
    var result = CausalContext()
    for (replica, counters) in replicas {
      let remaining = counters.above(version[replica])
      if !remaining.isEmpty { result.replicas[replica] = remaining }
    }
    return result
  }

  /// The dots seen here that `other` has not seen.
  ///
  /// - Complexity: O(*r*) for *r* replicas here, plus the intervals involved.
  @usableFromInline
  package func subtracting(_ other: CausalContext) -> CausalContext {
    var result = CausalContext()
    for (replica, counters) in replicas {
      let remaining = other.replicas[replica].map { counters.subtracting($0) } ?? counters
      if !remaining.isEmpty { result.replicas[replica] = remaining }
    }
    return result
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
    var result = CausalContext()
    // Nearly every replica keeps a part (its dead dots, or dots the peer has not seen): a
    // table sized at once is not rehashed as it grows.
    result.replicas.reserveCapacity(replicas.count)
    for (replica, counters) in replicas {
      let bound = version[replica]
      // The live counters are all within `bound`: taking them out of the whole set, in one
      // pass, leaves the dead ones within it and every one above it.
      let part =
        bound > 0 ? counters.upTo(.max, excluding: liveRanges(replica, bound)) : counters
      if !part.isEmpty { result.replicas[replica] = part }
    }
    return result
  }

  /// The context of the dots `version` covers: per replica, every counter up to its entry.
  @usableFromInline
  package init(_ version: VersionVector) {
    // A version holds no zero entry, so no set is empty: the table is mapped in place, with no
    // filtering pass that would hash every replica id again.
    replicas = version.counters.mapValues { CounterSet(prefix: $0) }
  }

  /// Whether every dot of `self` is in `other`.
  public func isSubset(of other: CausalContext) -> Bool {
    replicas.allSatisfy { replica, counters in
      guard let theirs = other.replicas[replica] else { return false }
      return counters.isSubset(of: theirs)
    }
  }

  /// Every seen dot, in order; for tests and inspection of small contexts.
  public var dots: [Dot] {
    replicas.keys.sorted().flatMap { replica in
      replicas[replica]!.ranges.flatMap { range in range.map { Dot(replica, $0) } }
    }
  }
}

extension CausalContext: CustomStringConvertible {
  /// Replicas in order with their intervals, for example `{phone: 1…4, 7…7}`.
  public var description: String {
    let entries = replicas.keys.sorted().map { replica in
      "\(replica): "
        + replicas[replica]!.ranges.map { "\($0.lowerBound)…\($0.upperBound)" }
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
    for (replica, counters) in replicas {
      guard let theirs = other.replicas[replica] else { continue }
      if counters.intersects(theirs) { return false }
    }
    return true
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
