import Dispatch
import ForagerSync
import Foundation
import SemanticCRDTJSON

/// The check of a device's whole state after each merge (``Simulation/checkSoundness(of:after:)``):
/// on the run's thread, or, given `Cores.two`, on a second core while the run goes on.
///
/// A check reads a copy of the state. The copy shares the state's storage, so it costs nothing
/// to take; when the device next writes a map, that map is copied, as the device's saved
/// replica already makes it be (``Device/disk`` holds the same storage after the save that
/// follows every merge). At most ``statesInFlight`` states wait for their check, so a check
/// that falls behind holds little memory and slows the run rather than growing.
///
/// What the checks find is kept by the order they were asked in, so the report is the same,
/// byte for byte, on one core or two.
///
/// Unchecked sendability: `found` is read and written only under `lock`; `asked` only by the
/// run's thread, the one thread that calls ``check(_:device:what:)`` and ``violations()``.
/// `Mutex`, which the compiler would check, needs iOS 18 and macOS 15.
final class SoundnessChecks: @unchecked Sendable {
  /// The most states whose check has not finished.
  static let statesInFlight = 2

  private let cores: Cores
  private let queue = DispatchQueue(label: "ForagerSimulation.SoundnessChecks")
  private let slots = DispatchSemaphore(value: statesInFlight)
  private let lock = NSLock()
  /// The violations found, by the order of the check that found them.
  private var found: [Int: [Violation]] = [:]
  private var asked = 0

  init(cores: Cores) {
    self.cores = cores
  }

  /// Checks `state`, device `device`'s after `what` (a text that starts with the step and
  /// names the device): one violation for each broken invariant.
  func check(_ state: HouseholdState, device: Int, what: String) {
    asked += 1
    let order = asked
    guard cores == .two else {
      keep(Self.violations(of: state, device: device, what: what), order: order)
      return
    }
    slots.wait()
    queue.async { [self] in
      keep(Self.violations(of: state, device: device, what: what), order: order)
      slots.signal()
    }
  }

  /// Every violation found, in the order the checks were asked in, once the checks in flight
  /// are done.
  func violations() -> [Violation] {
    queue.sync {}
    lock.lock()
    defer { lock.unlock() }
    return found.keys.sorted().flatMap { found[$0]! }
  }

  private static func violations(of state: HouseholdState, device: Int, what: String)
    -> [Violation]
  {
    state.invariantViolations().map {
      Violation(text: "\(what): \($0)", devices: [device])
    }
  }

  private func keep(_ violations: [Violation], order: Int) {
    guard !violations.isEmpty else { return }
    lock.lock()
    found[order] = violations
    lock.unlock()
  }
}
