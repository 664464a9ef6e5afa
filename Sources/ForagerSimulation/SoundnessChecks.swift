import Dispatch
import ForagerSync
import Foundation
import SemanticCRDTJSON

/// The check of a device's whole state after each merge (``Simulation/checkSoundness(of:after:)``),
/// and of each file a restart opens reading back as it was saved (``readBack(_:file:fault:device:what:)``):
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
/// run's thread, the one thread that calls ``check(_:device:what:)``,
/// ``readBack(_:file:fault:device:what:)`` and ``violations(_:)``.
/// `Mutex`, which the compiler would check, needs iOS 18 and macOS 15.
final class SoundnessChecks: @unchecked Sendable {
  /// The most states (or saved replicas) whose check has not finished. A restart's check of
  /// its file takes as long as dozens of merges' checks; with two slots the run's thread
  /// waited behind it (`forager-sim --devices 50 --steps 100000`: 91.6 s with 2, 84–86 s with
  /// 8, docs/benchmarks.md).
  static let statesInFlight = 8

  private let cores: Cores
  private let queue = DispatchQueue(label: "ForagerSimulation.SoundnessChecks")
  private let slots = DispatchSemaphore(value: statesInFlight)
  private let lock = NSLock()
  /// The violations found, by the order of the check that found them.
  private var found: [Int: (kind: Kind, violations: [Violation])] = [:]
  private var asked = 0

  /// What a check is about, and so which invariant its violations break.
  enum Kind {
    /// A state after a merge: one record per semantic key, no reference to nothing.
    case state
    /// A file a restart opened: it reads back as it was saved.
    case file
  }

  init(cores: Cores) {
    self.cores = cores
  }

  /// Checks `state`, device `device`'s after `what` (a text that starts with the step and
  /// names the device): one violation for each broken invariant.
  func check(_ state: HouseholdState, device: Int, what: String) {
    run(.state, device: device, what: what) { state.invariantViolations() }
  }

  /// Checks that `written`, what device `device`'s file holds as its last save left it, reads
  /// back from the bytes of that file as it was saved, as `restart` (a text that starts with
  /// the step and names the device) opened it: the device runs on the saved values, and the
  /// file's bytes, read as a store reads them, must hold the same. `fault` plays
  /// ``SimulationFault/fileReadsBackWithoutRemovals``.
  func readBack(
    _ written: ReplicaFileContents, file: URL, fault: SimulationFault?, device: Int, what: String
  ) {
    run(.file, device: device, what: what) {
      let bytes = ReplicaFileFormat.encode(written)
      do {
        var read = try ReplicaFileFormat.decode(bytes, file: file)
        if fault == .fileReadsBackWithoutRemovals { read.removals = [] }
        return Self.readsBack(read, as: written)
          ? [] : ["its file read back other than it was saved"]
      } catch {
        return ["its file does not read back: \(error)"]
      }
    }
  }

  /// Whether contents read from a file hold what was `written` to it: the state, removals,
  /// member, incarnation and earlier incarnations.
  static func readsBack(_ read: ReplicaFileContents, as written: ReplicaFileContents) -> Bool {
    read.state == written.state && read.removals == written.removals
      && read.member == written.member && read.replica == written.replica
      && read.incarnations == written.incarnations
  }

  /// Runs `check` (the problems it finds) now or on the second core, keeping what it finds by
  /// the order it was asked in.
  private func run(
    _ kind: Kind, device: Int, what: String, _ check: @escaping @Sendable () -> [String]
  ) {
    asked += 1
    let order = asked
    let found: @Sendable () -> [Violation] = {
      check().map { Violation(text: "\(what): \($0)", devices: [device]) }
    }
    guard cores == .two else {
      keep(found(), kind, order: order)
      return
    }
    slots.wait()
    queue.async { [self] in
      keep(found(), kind, order: order)
      slots.signal()
    }
  }

  /// Every violation of `kind` found, in the order the checks were asked in, once the checks
  /// in flight are done.
  func violations(_ kind: Kind = .state) -> [Violation] {
    queue.sync {}
    lock.lock()
    defer { lock.unlock() }
    return found.sorted { $0.key < $1.key }.flatMap {
      $0.value.kind == kind ? $0.value.violations : []
    }
  }

  private func keep(_ violations: [Violation], _ kind: Kind, order: Int) {
    guard !violations.isEmpty else { return }
    lock.lock()
    found[order] = (kind, violations)
    lock.unlock()
  }
}
