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
  /// The non-zero entries.
  public private(set) var counters: [ReplicaID: UInt64]

  /// The empty vector: nothing seen.
  public init() {
    counters = [:]
  }

  /// Creates a vector from entries; zero entries are dropped.
  ///
  /// - Complexity: O(*r*) for *r* entries.
  public init(_ counters: [ReplicaID: UInt64]) {
    // Filtering builds a new table, hashing every id again: only when there is a zero to drop.
    self.counters = counters.values.contains(0) ? counters.filter { $0.value > 0 } : counters
  }

  /// The number of events of `replica` seen; 0 for a replica never seen. Setting 0 removes
  /// the entry.
  ///
  /// - Complexity: O(1).
  public subscript(replica: ReplicaID) -> UInt64 {
    get { counters[replica] ?? 0 }
    set { counters[replica] = newValue == 0 ? nil : newValue }
  }

  /// Whether this vector has seen every event `other` has seen.
  ///
  /// - Complexity: O(*r*) for *r* entries of `other`.
  public func dominates(_ other: VersionVector) -> Bool {
    other.counters.allSatisfy { self[$0.key] >= $0.value }
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
      for (replica, counter) in result.counters {
        result[replica] = min(counter, next[replica])
      }
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
  /// - Complexity: O(*r*) for *r* entries of `other`.
  public mutating func merge(_ other: VersionVector) {
    if counters.count <= other.counters.count, other.dominates(self) {
      self = other
      return
    }
    for (replica, counter) in other.counters where counter > self[replica] {
      counters[replica] = counter
    }
  }
}

extension VersionVector: DeltaMergeable {
  /// The vector itself.
  public var version: VersionVector { self }

  /// The entries greater than those of `version`, or `nil` when there are none.
  public func delta(since version: VersionVector) -> VersionVector? {
    let newer = VersionVector(counters.filter { $0.value > version[$0.key] })
    return newer.counters.isEmpty ? nil : newer
  }
}

extension VersionVector: CustomStringConvertible {
  /// Entries sorted by replica, for example `[phone: 3, tablet: 7]`.
  public var description: String {
    let entries = counters.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
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
    counters = Dictionary(uniqueKeysWithValues: raw.map { (ReplicaID($0.key), $0.value) })
  }

  /// Encodes `{"replica": counter, …}`.
  public func encode(to encoder: any Encoder) throws {
    try Dictionary(uniqueKeysWithValues: counters.map { ($0.key.rawValue, $0.value) })
      .encode(to: encoder)
  }
}
