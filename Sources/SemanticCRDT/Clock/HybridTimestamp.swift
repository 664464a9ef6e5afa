// Inlining: `raise(to:)` runs once per record in every scan for a greatest timestamp, inside
// the maps' and registers' inlinable code; inlined there, it costs one comparison.

/// A hybrid logical clock reading: wall-clock milliseconds, a logical counter, and the replica
/// that issued it.
///
/// Timestamps order the writes of last-writer-wins types. They are totally ordered by wall time,
/// then logical counter, then ``ReplicaID``; the replica is the final tie-break, so two replicas
/// writing in the same millisecond with the same counter still produce ordered stamps, and the
/// outcome never depends on arrival order. A ``HybridClock`` never issues the same timestamp twice.
///
/// - SeeAlso: Kulkarni et al., *Logical Physical Clocks and Consistent Snapshots in Globally
///   Distributed Databases* (2014).
public struct HybridTimestamp: Hashable, Comparable, Sendable {
  /// Milliseconds since 1970-01-01 UTC, as seen (or carried forward) by the issuing replica.
  public let wallMilliseconds: UInt64
  /// Distinguishes events that share one wall millisecond; resets to 0 when wall time advances.
  public let logical: UInt32
  /// The replica that issued this timestamp.
  public let replica: ReplicaID

  /// The latest wall time a decoded timestamp may carry: the last millisecond of the year
  /// 9999. Anything later comes from a forged or damaged state, and would bring a clock that
  /// observes it near the end of its range.
  public static let maximumWallMilliseconds: UInt64 = 253_402_300_799_999

  /// Creates a timestamp from its parts.
  ///
  /// Writes should take their timestamps from ``HybridClock/tick()``; this initializer is for
  /// decoding, tests and simulations.
  public init(wallMilliseconds: UInt64, logical: UInt32 = 0, replica: ReplicaID) {
    self.wallMilliseconds = wallMilliseconds
    self.logical = logical
    self.replica = replica
  }

  /// Orders by wall time, then logical counter, then replica id.
  public static func < (lhs: HybridTimestamp, rhs: HybridTimestamp) -> Bool {
    if lhs.wallMilliseconds != rhs.wallMilliseconds {
      return lhs.wallMilliseconds < rhs.wallMilliseconds
    }
    if lhs.logical != rhs.logical { return lhs.logical < rhs.logical }
    // Equal stamps are common: a record merged with its own copy, every field nobody chose.
    // Equality answers them from the ids' bits (as `Dot`'s order does); the order would read
    // both texts.
    return lhs.replica != rhs.replica && lhs.replica < rhs.replica
  }
}

extension HybridTimestamp: CustomStringConvertible {
  /// `wall.logical@replica`, for example `1733788800000.2@phone`.
  public var description: String { "\(wallMilliseconds).\(logical)@\(replica)" }
}

extension HybridTimestamp: Codable {
  /// Decodes `[wallMilliseconds, logical, "replica"]`.
  public init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    let wall = try container.decode(UInt64.self)
    let logical = try container.decode(UInt32.self)
    let replica = try container.decode(ReplicaID.self)
    guard container.isAtEnd else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "A hybrid timestamp has exactly three elements")
    }
    guard wall <= Self.maximumWallMilliseconds else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "Wall time \(wall) ms is after the year 9999")
    }
    self.init(wallMilliseconds: wall, logical: logical, replica: replica)
  }

  /// Encodes `[wallMilliseconds, logical, "replica"]`.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    try container.encode(wallMilliseconds)
    try container.encode(logical)
    try container.encode(replica)
  }
}

extension Optional where Wrapped == HybridTimestamp {
  /// Makes this greatest-so-far `stamp` when nothing was seen yet or `stamp` is greater: the
  /// one step of every scan for a greatest timestamp.
  @inlinable
  package mutating func raise(to stamp: HybridTimestamp) {
    if map({ stamp > $0 }) ?? true { self = stamp }
  }
}
