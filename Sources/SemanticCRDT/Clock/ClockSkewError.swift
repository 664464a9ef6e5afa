/// A remote timestamp lies further in the future than the local clock accepts.
///
/// A timestamp from a device whose clock is set days ahead would win every last-writer-wins
/// conflict until real time catches up, and would drag every hybrid clock it touches forward. It
/// is refused as bad input: the merge that carries it applies nothing.
public struct ClockSkewError: Error, Hashable, Sendable {
  /// The replica whose timestamp was refused.
  public let replica: ReplicaID
  /// The refused timestamp.
  public let timestamp: HybridTimestamp
  /// How far the timestamp is ahead of local wall time, in milliseconds.
  public let skewMilliseconds: UInt64
  /// The largest skew the local clock accepts, in milliseconds.
  public let maximumSkewMilliseconds: UInt64
}

extension ClockSkewError: CustomStringConvertible {
  /// Names the replica, the skew and the bound.
  public var description: String {
    "Timestamp \(timestamp) from replica \(replica) is \(skewMilliseconds) ms ahead of the local "
      + "clock; at most \(maximumSkewMilliseconds) ms is accepted"
  }
}
