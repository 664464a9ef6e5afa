// Inlining: the code marked @inlinable is generic over keys and values and runs per key or
// per dot in merges, deltas and reads. Inlined, it is specialized for the caller's types in
// the caller's module; not inlined, every comparison, hash and copy of a key or value goes
// through witness tables. @usableFromInline marks the stored state and helpers that inlined
// code reads; each stays `package` or internal, out of the public API.

/// One event of one replica: the replica's id and the event's sequence number.
///
/// The causal types (``ORSet``, ``ORMap``, ``MVRegister``, ``LWWMap``) name each write by a dot.
/// A replica numbers its dots 1, 2, 3, … without gaps, so the dots a state has seen compress
/// into a ``VersionVector`` plus a few intervals (``CausalContext``). A dot is never reused: a
/// replica that might have forgotten dots it issued must take a new ``ReplicaID``.
///
/// Dots are ordered by replica, then by counter.
public struct Dot: Hashable, Comparable, Sendable {
  /// The replica that made the event.
  public let replica: ReplicaID
  /// The event's sequence number at that replica, starting at 1.
  public let counter: UInt64

  /// Creates a dot.
  ///
  /// - Parameters:
  ///   - replica: The replica that made the event.
  ///   - counter: Its sequence number, at least 1.
  /// The greatest counter a decoded dot, context or counter may hold: 2⁴⁰, a trillion writes
  /// by one replica. Anything above comes from a forged or damaged state; refusing it at
  /// decode keeps every later sum and successor of counters (over at most
  /// ``CausalContext/maximumReplicas`` replicas) far from overflow.
  public static let maximumCounter: UInt64 = 1 << 40

  public init(_ replica: ReplicaID, _ counter: UInt64) {
    precondition(counter > 0, "Dot counters start at 1")
    self.replica = replica
    self.counter = counter
  }

  /// Equal when replica and counter are. Counters first: two different dots usually differ
  /// there, and two integers compare faster than two strings.
  @inlinable
  public static func == (lhs: Dot, rhs: Dot) -> Bool {
    lhs.counter == rhs.counter && lhs.replica == rhs.replica
  }

  /// Orders dots by replica id, then counter.
  public static func < (lhs: Dot, rhs: Dot) -> Bool {
    if lhs.replica != rhs.replica { return lhs.replica < rhs.replica }
    return lhs.counter < rhs.counter
  }
}

extension Dot: CustomStringConvertible {
  /// `replica:counter`, for example `phone:12`.
  public var description: String { "\(replica):\(counter)" }
}

extension Dot: Codable {
  /// Decodes a dot from its JSON form `["replica", counter]`.
  public init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    let replica = try container.decode(ReplicaID.self)
    let counter = try container.decode(UInt64.self)
    guard counter > 0, counter <= Dot.maximumCounter else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "A dot counter must be in 1…\(Dot.maximumCounter)")
    }
    guard container.isAtEnd else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "A dot has exactly two elements")
    }
    self.init(replica, counter)
  }

  /// Encodes the dot as `["replica", counter]`.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    try container.encode(replica)
    try container.encode(counter)
  }
}
