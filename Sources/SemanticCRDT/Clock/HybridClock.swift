/// A hybrid logical clock: issues timestamps that follow wall time where it can and causality
/// where wall time disagrees.
///
/// ## Guarantees
///
/// - ``tick()`` returns a timestamp strictly greater than every timestamp this clock has issued
///   or observed, also when called twice within one millisecond or when wall time goes backwards.
/// - ``observe(_:)`` refuses, with a ``ClockSkewError``, a timestamp whose wall time is more
///   than ``maximumSkewMilliseconds`` ahead of the local wall clock, and then changes nothing.
///
/// The wall clock is injected, so tests and simulations are deterministic. The clock's only
/// state is ``latest``; persist it with the replica and pass it back on restart.
///
/// ```swift
/// var clock = HybridClock(replica: .random())
/// let first = clock.tick()
/// let second = clock.tick()   // second > first, even within the same millisecond
/// ```
public struct HybridClock: Sendable {
  /// The replica whose timestamps this clock issues.
  public let replica: ReplicaID
  /// Where wall time is read from.
  public let wallClock: WallClock
  /// The largest distance, in milliseconds, that an observed timestamp may be ahead of local
  /// wall time. The default is 24 hours.
  public let maximumSkewMilliseconds: UInt64
  /// The greatest wall time and logical counter this clock has issued or observed, or `nil` for
  /// a fresh clock.
  public private(set) var latest: (wallMilliseconds: UInt64, logical: UInt32)?

  /// The default bound on accepted skew: 24 hours.
  public static let defaultMaximumSkewMilliseconds: UInt64 = 24 * 60 * 60 * 1000

  /// Creates a clock.
  ///
  /// - Parameters:
  ///   - replica: The replica that owns the clock.
  ///   - wallClock: The source of wall time. Defaults to the system clock.
  ///   - maximumSkewMilliseconds: The skew bound for ``observe(_:)``.
  ///   - latest: The persisted ``latest`` reading of a previous run, if any.
  public init(
    replica: ReplicaID,
    wallClock: WallClock = .system,
    maximumSkewMilliseconds: UInt64 = HybridClock.defaultMaximumSkewMilliseconds,
    latest: (wallMilliseconds: UInt64, logical: UInt32)? = nil
  ) {
    self.replica = replica
    self.wallClock = wallClock
    self.maximumSkewMilliseconds = maximumSkewMilliseconds
    self.latest = latest
  }

  /// Issues a timestamp for a local write.
  ///
  /// - Returns: A timestamp of this replica, strictly greater than every timestamp issued or
  ///   observed by this clock.
  /// - Complexity: O(1).
  public mutating func tick() -> HybridTimestamp {
    tick(wallMilliseconds: wallClock.now())
  }

  /// Issues a timestamp as ``tick()`` does, with wall time given instead of read.
  ///
  /// - Parameter now: The current wall time in milliseconds.
  /// - Complexity: O(1).
  public mutating func tick(wallMilliseconds now: UInt64) -> HybridTimestamp {
    let next: (wallMilliseconds: UInt64, logical: UInt32)
    if let latest, latest.wallMilliseconds >= now {
      next =
        latest.logical == .max
        ? (latest.wallMilliseconds + 1, 0)
        : (latest.wallMilliseconds, latest.logical + 1)
    } else {
      next = (now, 0)
    }
    latest = next
    return HybridTimestamp(
      wallMilliseconds: next.wallMilliseconds, logical: next.logical, replica: replica)
  }

  /// Checks that a remote timestamp is within the skew bound, without changing the clock.
  ///
  /// - Parameter timestamp: A timestamp received from another replica.
  /// - Throws: ``ClockSkewError`` when the timestamp is too far ahead of local wall time.
  /// - Complexity: O(1).
  public func validate(_ timestamp: HybridTimestamp) throws(ClockSkewError) {
    try validate(timestamp, wallMilliseconds: wallClock.now())
  }

  /// Records a remote timestamp so that later ticks exceed it.
  ///
  /// - Parameter timestamp: A timestamp received from another replica.
  /// - Throws: ``ClockSkewError`` when the timestamp is too far ahead of local wall time; the
  ///   clock is then unchanged.
  /// - Complexity: O(1).
  public mutating func observe(_ timestamp: HybridTimestamp) throws(ClockSkewError) {
    try validate(timestamp)
    advance(past: timestamp)
  }

  /// Merges a remote state into a local one after checking every timestamp it carries.
  ///
  /// This is the throwing entry point in front of the total ``Mergeable/merge(_:)``: it refuses
  /// a state whose greatest timestamp is too far ahead, applying nothing, and otherwise merges
  /// and advances the clock past the remote timestamps.
  ///
  /// - Parameters:
  ///   - remote: The state received from another replica.
  ///   - local: The local state; unchanged if the call throws.
  /// - Throws: ``ClockSkewError`` naming the replica and the skew.
  /// - Complexity: that of ``HybridTimestamped/greatestTimestamp`` plus that of the merge.
  public mutating func receive<State: Mergeable & HybridTimestamped>(
    _ remote: State, into local: inout State
  ) throws(ClockSkewError) {
    if let greatest = remote.greatestTimestamp {
      try validate(greatest)
      advance(past: greatest)
    }
    local.merge(remote)
  }

  func validate(_ timestamp: HybridTimestamp, wallMilliseconds now: UInt64) throws(ClockSkewError) {
    guard timestamp.wallMilliseconds > now else { return }
    let skew = timestamp.wallMilliseconds - now
    guard skew <= maximumSkewMilliseconds else {
      throw ClockSkewError(
        replica: timestamp.replica, timestamp: timestamp, skewMilliseconds: skew,
        maximumSkewMilliseconds: maximumSkewMilliseconds)
    }
  }

  mutating func advance(past timestamp: HybridTimestamp) {
    let remote = (timestamp.wallMilliseconds, timestamp.logical)
    if let latest, latest >= remote { return }
    latest = remote
  }
}
