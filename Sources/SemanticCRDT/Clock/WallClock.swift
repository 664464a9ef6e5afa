import Foundation

/// The source of wall-clock time that a ``HybridClock`` reads: milliseconds since 1970 UTC.
///
/// Inject a deterministic source in tests and simulations; use ``system`` in apps.
///
/// ```swift
/// let frozen = WallClock { 1_733_788_800_000 }
/// var clock = HybridClock(replica: .random(), wallClock: frozen)
/// ```
public struct WallClock: Sendable {
  /// Reads the current time in milliseconds since 1970-01-01 UTC.
  public let now: @Sendable () -> UInt64

  /// Creates a wall clock from a reading function.
  public init(_ now: @escaping @Sendable () -> UInt64) {
    self.now = now
  }

  /// The device's clock, through Foundation's `Date`.
  public static let system = WallClock {
    let milliseconds = Date().timeIntervalSince1970 * 1000
    return milliseconds > 0 ? UInt64(milliseconds) : 0
  }

  /// A clock that always reads `milliseconds`.
  public static func fixed(_ milliseconds: UInt64) -> WallClock {
    WallClock { milliseconds }
  }
}
