import Foundation
import SemanticCRDT

/// The simulation's clock: time moves only when the simulator advances it, so a run takes no
/// real time and replays exactly.
///
/// Unchecked sendability: every access to `elapsed` holds `lock`. `Mutex`, which the compiler
/// would check, needs iOS 18 and macOS 15; the simulator is a library product for the same
/// platforms as the rest.
final class SimulatedTime: @unchecked Sendable {
  /// Monday 2026-01-05 00:00 UTC, in milliseconds: the simulated epoch.
  static let start: UInt64 = 1_767_571_200_000
  private let lock = NSLock()
  private var elapsed: UInt64 = 0

  /// Milliseconds since ``start``.
  var milliseconds: UInt64 {
    lock.lock()
    defer { lock.unlock() }
    return elapsed
  }

  func advance(by milliseconds: UInt64) {
    lock.lock()
    elapsed += milliseconds
    lock.unlock()
  }

  /// A device's wall clock: simulated time, off by `offset` milliseconds and running fast or
  /// slow by `drift` parts per million.
  func wallClock(offset: Int64, drift: Int64) -> WallClock {
    WallClock { [self] in
      let elapsed = Int64(self.milliseconds)
      let reading = Int64(Self.start) + elapsed + offset + elapsed * drift / 1_000_000
      return UInt64(max(0, reading))
    }
  }
}
