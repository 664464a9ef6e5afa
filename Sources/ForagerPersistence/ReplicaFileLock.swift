import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Exclusive use of one replica file by one process, for as long as this value lives.
///
/// Two processes that each read a replica, merge or edit, and save it would each overwrite
/// the other's acknowledged changes. Every process that writes a replica file takes its lock
/// first (``ReplicaStore/lock()``); a second one gets ``StoreError/Problem/locked`` at once and
/// has changed nothing.
///
/// The lock is advisory (`flock`) on a file beside the replica, `.<name>.lock`: the replica
/// file itself is replaced on every save, so a lock on it would lock a file that no longer has
/// the name. The operating system releases it when the process exits, a crash included, so a
/// stale lock never blocks a restart. It does not hold across machines sharing a network
/// folder; two devices never share a replica file (each has its own).
///
/// Some network and FUSE volumes do not support `flock` (`ENOTSUP`, `ENOLCK`): there the lock
/// is taken without enforcement (``guarantee`` says so) rather than refusing the file, and
/// one process at a time is then the app's to keep (ADR 0034).
public final class ReplicaFileLock: Sendable {
  /// What holding the lock guarantees.
  public enum Guarantee: Equatable, Sendable {
    /// No other process holds the replica file's lock while this one does.
    case exclusive
    /// The volume does not support locks (`reason` says how it refused): nothing stops a
    /// second process from writing the file, and two that do may overwrite each other's
    /// saves.
    case unenforced(reason: String)
  }

  private let descriptor: Int32
  /// What this lock guarantees.
  public let guarantee: Guarantee

  /// The lock file of the replica file at `path`.
  static func lockPath(of path: String) -> String {
    let folder = (path as NSString).deletingLastPathComponent
    let name = (path as NSString).lastPathComponent
    return (folder.isEmpty ? "" : folder + "/") + ".\(name).lock"
  }

  /// Takes the lock of the replica file at `url`; `locking` is the call that locks a
  /// descriptor, giving 0 or an `errno` (a test passes a volume's refusal).
  init(replicaFile url: URL, locking: (Int32) -> Int32 = ReplicaFileLock.lockOnThisVolume)
    throws(StoreError)
  {
    // Beside the file a symlink names: a process that opens the link and one that opens the
    // file share one lock.
    let path = Self.lockPath(of: url.resolvingSymlinksInPath().path)
    let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0o600)
    guard descriptor >= 0 else {
      let reason = String(cString: strerror(errno))
      throw StoreError(file: url, problem: .unreadable("cannot open its lock \(path): \(reason)"))
    }
    let code = locking(descriptor)
    if code == 0 {
      guarantee = .exclusive
    } else if Self.isUnsupported(code) {
      guarantee = .unenforced(reason: String(cString: strerror(code)))
    } else {
      close(descriptor)
      if code == EWOULDBLOCK { throw StoreError(file: url, problem: .locked) }
      throw StoreError(
        file: url, problem: .unreadable("cannot lock \(path): \(String(cString: strerror(code)))"))
    }
    self.descriptor = descriptor
  }

  deinit { close(descriptor) }

  /// Whether `code` is a volume's way of saying it has no locks.
  static func isUnsupported(_ code: Int32) -> Bool {
    code == ENOTSUP || code == EOPNOTSUPP || code == ENOLCK || code == EINVAL
  }

  /// `flock`s `descriptor`, trying again for up to ``transientHolding`` while another holds
  /// it: a process this one is starting holds a copy of every descriptor between its fork and
  /// its exec, which closes them (`O_CLOEXEC`), so a lock released just now may still be held
  /// for that moment. A lock another store holds is held far longer, and is refused.
  ///
  /// - Returns: 0, or the `errno` of the last try.
  static func lock(_ descriptor: Int32) -> Int32 {
    let deadline = ContinuousClock.now + transientHolding
    while true {
      if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return 0 }
      let code = errno
      guard code == EWOULDBLOCK, ContinuousClock.now < deadline else { return code }
      usleep(2_000)
    }
  }

  /// ``lock(_:)``, or the refusal a test plays for a volume without locks
  /// (``volumeRefusal``).
  static func lockOnThisVolume(_ descriptor: Int32) -> Int32 {
    volumeRefusal ?? lock(descriptor)
  }

  /// An `errno` that every lock taken in this task gets instead of locking: a test's volume
  /// without locks (`ENOTSUP`). `nil`, the default, locks.
  @TaskLocal package static var volumeRefusal: Int32?

  /// How long a lock is waited for before it is taken to be another store's: 200 ms.
  static let transientHolding = Duration.milliseconds(200)
}

extension ReplicaStore {
  /// Takes this replica file's lock: hold the returned value for as long as this process reads
  /// and writes the file.
  ///
  /// - Throws: ``StoreError/Problem/locked`` when another process holds it.
  public func lock() throws(StoreError) -> ReplicaFileLock {
    try ReplicaFileLock(replicaFile: fileURL)
  }
}
