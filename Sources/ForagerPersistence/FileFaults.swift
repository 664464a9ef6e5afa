#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Failures a test makes a store's next file operations meet: the seam through which every
/// path above the file layer is tested against a disk that fills up or fails part-way.
///
/// Each fault waits for an operation of its kind, lets `passing` of them through, and is used
/// up by the next: a write that stops after some bytes (what a full disk, a file-size limit or
/// an I/O error leaves), a flush that fails, a rename that fails. A store holds its faults
/// beside its position, so a test plays them through ``ReplicaStore`` or a `HouseholdStore`
/// alike; production code never sets any, and with none pending each check is one test of an
/// empty array.
package struct FileFaults: Sendable, Equatable {
  /// One failure, and what the failing call reports.
  package enum Fault: Sendable, Equatable {
    /// A write puts the first `byteCount` bytes it was given on disk, then fails with `code`
    /// (`ENOSPC` by default). A write of no more bytes than that completes, and uses the fault
    /// up.
    case write(stoppingAfter: Int, code: Int32 = ENOSPC, passing: Int = 0)
    /// A flush of a file or folder (`fsync`) fails with `EIO`, after the data reached the page
    /// cache.
    case flush(passing: Int = 0)
    /// A rename fails with `EIO`: the new file stays temporary.
    case rename(passing: Int = 0)

    /// The operation this fault waits for.
    var kind: Kind {
      switch self {
      case .write: .write
      case .flush: .flush
      case .rename: .rename
      }
    }

    /// How many operations of its kind it lets through first.
    var passing: Int {
      switch self {
      case .write(_, _, let passing), .flush(let passing), .rename(let passing): passing
      }
    }

    /// The same fault, letting one operation fewer through.
    var passedOne: Self {
      switch self {
      case .write(let bytes, let code, let passing):
        .write(stoppingAfter: bytes, code: code, passing: passing - 1)
      case .flush(let passing): .flush(passing: passing - 1)
      case .rename(let passing): .rename(passing: passing - 1)
      }
    }
  }

  /// The file operations a fault can stop.
  enum Kind { case write, flush, rename }

  /// The faults still to play; each waits for operations of its kind.
  package var pending: [Fault]
  /// A deliberate bug, for the simulator to show that its cut-journal fault finds it: an
  /// append skips its check that the journal is as this store last wrote it, and writes after
  /// whatever is there, as appends did before the check. Never set outside the simulator.
  package var appendsBlindly = false
  /// When set, each flush notes here how far it asked to go, in order: for tests of which
  /// writes get which durability (ADR 0033).
  package var flushes: [FileIO.Durability]?

  package init(_ pending: [Fault] = []) { self.pending = pending }

  /// The fault that stops this operation of `kind`, used up; `nil` to let it run. Counts the
  /// operation against every pending fault of its kind that lets some through.
  mutating func take(_ kind: Kind) -> Fault? {
    guard !pending.isEmpty else { return nil }
    var stopping: Fault?
    var index = 0
    while index < pending.count {
      let fault = pending[index]
      guard fault.kind == kind else {
        index += 1
        continue
      }
      if fault.passing > 0 {
        pending[index] = fault.passedOne
        index += 1
      } else if stopping == nil {
        stopping = pending.remove(at: index)
      } else {
        index += 1
      }
    }
    return stopping
  }
}
