// Inlining: the kernels' inlined deltas walk a version's table beside a context's, so the table
// and the initializer from one are @usableFromInline; each stays `package`, out of the public
// API.

/// For each replica, how many of its events have been seen: a summary of a causal past.
///
/// Entry `r ↦ n` means "every event 1…n of replica `r`". Replicas absent from the vector count
/// as 0; entries of 0 are never stored, so equal pasts give equal vectors.
///
/// ## Merge semantics
///
/// The join is the pointwise maximum, so version vectors are themselves a ``Mergeable`` type.
/// Vectors are partially ordered: `a.dominates(b)` when every entry of `a` is at least the entry
/// of `b`; two vectors neither of which dominates the other are concurrent.
///
/// - SeeAlso: Parker et al., *Detection of Mutual Inconsistency in Distributed Systems* (1983).
public struct VersionVector: Hashable, Sendable {
  /// The non-zero entries, sorted by replica: a table as large as its entries, which a
  /// household holds per map for every version it keeps and every peer's it knows.
  @usableFromInline package private(set) var table: ReplicaTable<UInt64>

  /// The non-zero entries.
  ///
  /// - Complexity: O(*r*) for *r* entries: the dictionary is built on each call.
  public var counters: [ReplicaID: UInt64] {
    Dictionary(uniqueKeysWithValues: table.lazy.map { ($0.key, $0.value) })
  }

  /// The empty vector: nothing seen.
  public init() {
    table = ReplicaTable()
  }

  /// Creates a vector from entries; zero entries are dropped.
  ///
  /// - Complexity: O(*r* log *r*) for *r* entries.
  public init(_ counters: [ReplicaID: UInt64]) {
    table = ReplicaTable(counters.filter { $0.value > 0 }.map { ($0.key, $0.value) })
  }

  /// A vector of `table`, which holds no zero.
  @usableFromInline
  package init(table: ReplicaTable<UInt64>) {
    self.table = table
  }

  /// The number of entries: the replicas with an event seen.
  public var count: Int { table.count }

  /// The number of events of `replica` seen; 0 for a replica never seen. Setting 0 removes
  /// the entry.
  ///
  /// - Complexity: O(log *r*) for *r* entries; O(*r*) to add or remove an entry.
  public subscript(replica: ReplicaID) -> UInt64 {
    get { table[replica] ?? 0 }
    set { table[replica] = newValue == 0 ? nil : newValue }
  }

  /// Whether this vector has seen every event `other` has seen.
  ///
  /// - Complexity: O(*r* + *s*) for vectors of *r* and *s* entries.
  public func dominates(_ other: VersionVector) -> Bool {
    guard table.count >= other.table.count else {
      // More replicas there than here: one of them is not seen here.
      return false
    }
    var dominates = true
    table.forEachReplica(with: other.table) { _, mine, theirs in
      if dominates, let theirs, theirs > mine ?? 0 { dominates = false }
    }
    return dominates
  }

  /// Whether neither vector dominates the other.
  public func isConcurrent(with other: VersionVector) -> Bool {
    !dominates(other) && !other.dominates(self)
  }

  /// The pointwise minimum of several vectors: the events all of them have seen.
  ///
  /// Given the versions of every replica of an object, this is the *causally stable* horizon
  /// below which ``LWWMap/compactTombstones(stableAt:)`` may discard tombstones.
  ///
  /// - Complexity: O(*v* × *r*) for *v* vectors of *r* entries.
  public static func meet<Vectors: Sequence<VersionVector>>(_ vectors: Vectors) -> VersionVector {
    var iterator = vectors.makeIterator()
    guard var result = iterator.next() else { return VersionVector() }
    while let next = iterator.next() {
      var met = ReplicaTable<UInt64>()
      result.table.forEachReplica(with: next.table) { replica, mine, theirs in
        if let mine, let theirs { met.append(replica, min(mine, theirs)) }
      }
      result = VersionVector(table: met)
    }
    return result
  }
}

extension VersionVector: Mergeable {
  /// Sets every entry to the maximum of both vectors.
  ///
  /// When `other` has seen every event this vector has, the result is `other` itself and
  /// shares its storage: a peer's newer version joined with what was known of it (the common
  /// case) keeps no copy of its own.
  ///
  /// - Complexity: O(*r* + *s*) for vectors of *r* and *s* entries.
  public mutating func merge(_ other: VersionVector) {
    // Which side has seen all the other has, both found in one pass over the two tables.
    var (mineCovers, theirsCover) = (true, true)
    table.forEachReplica(with: other.table) { _, mine, theirs in
      let (mine, theirs) = (mine ?? 0, theirs ?? 0)
      if theirs > mine { mineCovers = false } else if mine > theirs { theirsCover = false }
    }
    if theirsCover {
      self = other
      return
    }
    if mineCovers { return }
    table.formUnion(other.table) { $0 = max($0, $1) }
  }
}

extension VersionVector: DeltaMergeable {
  /// The vector itself.
  public var version: VersionVector { self }

  /// The entries greater than those of `version`, or `nil` when there are none.
  public func delta(since version: VersionVector) -> VersionVector? {
    var newer = ReplicaTable<UInt64>()
    table.forEachReplica(with: version.table) { replica, mine, theirs in
      if let mine, mine > theirs ?? 0 { newer.append(replica, mine) }
    }
    return newer.isEmpty ? nil : VersionVector(table: newer)
  }
}

extension VersionVector: CustomStringConvertible {
  /// Entries sorted by replica, for example `[phone: 3, tablet: 7]`.
  public var description: String {
    let entries = table.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
    return "[" + entries.joined(separator: ", ") + "]"
  }
}

extension VersionVector: Codable {
  /// Decodes `{"replica": counter, …}`; a zero counter is a data-corruption error.
  public init(from decoder: any Decoder) throws {
    let raw = try [String: UInt64](from: decoder)
    guard raw.values.allSatisfy({ $0 > 0 && $0 <= Dot.maximumCounter }), !raw.keys.contains(""),
      raw.count <= CausalContext.maximumReplicas
    else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: decoder.codingPath,
          debugDescription: "Version vector entries need a non-empty replica and a counter > 0"))
    }
    // The keys are `String`s, equal as replica ids are: no replica comes twice.
    table = ReplicaTable(raw.map { (ReplicaID($0.key), $0.value) })
  }

  /// Encodes `{"replica": counter, …}`.
  public func encode(to encoder: any Encoder) throws {
    try Dictionary(uniqueKeysWithValues: table.map { ($0.key.rawValue, $0.value) })
      .encode(to: encoder)
  }
}
