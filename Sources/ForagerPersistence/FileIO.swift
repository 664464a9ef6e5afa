import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The few POSIX calls a crash-safe save needs, with errors as text.
package enum FileIO {
  struct Failure: Error {
    let reason: String
    /// Set when the file is over the size limit: its size (as far as read) and the limit.
    var tooLarge: (size: Int, limit: Int)?

    init(_ action: String, _ path: String, errno code: Int32 = errno) {
      reason = "\(action) \(path): \(String(cString: strerror(code)))"
    }

    init(reason: String) { self.reason = reason }
  }

  /// A file over the size limit: reading it would take memory no household needs.
  static func tooLarge(_ path: String, size: Int, limit: Int) -> Failure {
    var failure = Failure(reason: "\(path) holds \(size) bytes, over the limit of \(limit)")
    failure.tooLarge = (size, limit)
    return failure
  }

  /// The whole file, or `nil` when there is no file at `path`.
  ///
  /// Opening never blocks: a FIFO (or a symlink to one) would block an ordinary open until a
  /// writer came, so the file is opened non-blocking and refused unless it is a regular file.
  /// A file larger than `limit` bytes is refused before it is read, and reading stops if it
  /// grows past `limit` meanwhile.
  static func readFile(_ path: String, limit: Int) throws(Failure) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    if descriptor < 0 {
      if errno == ENOENT { return nil }
      throw Failure("cannot open", path)
    }
    defer { close(descriptor) }
    let size = try requireRegularFile(descriptor, path)
    guard size <= limit else { throw tooLarge(path, size: size, limit: limit) }
    // Read straight into a buffer of the file's size and one byte more, so that reaching the
    // end needs no room of its own: growing a full buffer to look for the end would double it
    // (and copy the file) on every read. It grows only if the file grows meanwhile. The first
    // buffer is not zeroed first: the reads fill what is kept.
    var filled = 0
    var failed = false
    var bytes = [UInt8](unsafeUninitializedCapacity: size + 1) { buffer, initialized in
      while filled < buffer.count {
        let count = readRetrying(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
        if count <= 0 {
          failed = count < 0
          break
        }
        filled += count
      }
      initialized = filled
    }
    if failed { throw Failure("cannot read", path) }
    if filled <= size { return bytes }
    while true {
      if filled == bytes.count {
        bytes.append(contentsOf: repeatElement(0, count: max(1 << 16, bytes.count / 4)))
      }
      let count = bytes.withUnsafeMutableBytes {
        readRetrying(descriptor, $0.baseAddress! + filled, $0.count - filled)
      }
      if count < 0 { throw Failure("cannot read", path) }
      if count == 0 {
        bytes.removeSubrange(filled...)
        return bytes
      }
      filled += count
      if filled > limit { throw tooLarge(path, size: filled, limit: limit) }
    }
  }

  /// One `read(2)` of up to `count` bytes into `buffer`, again when a signal interrupted it:
  /// the bytes read, 0 at the end of the file, −1 on an error (`errno` says which).
  private static func readRetrying(
    _ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int
  )
    -> Int
  {
    while true {
      let read = read(descriptor, buffer, count)
      if read >= 0 || errno != EINTR { return read }
    }
  }

  /// Replaces the file at `path` with `bytes` so that a crash at any moment leaves either the
  /// old file or the new one: write a temporary file in the same folder (owner read/write
  /// only), flush it to disk, rename it over `path`, flush the folder.
  ///
  /// No link is followed: the temporary file is created new (`O_EXCL`, `O_NOFOLLOW`), and the
  /// rename replaces whatever entry `path` is (a link, a FIFO) with the file, never what a
  /// link names. A folder at `path` is refused with a reason that says to remove it. A caller
  /// that means to write through a link resolves `path` first.
  ///
  /// - Returns: The file's identity once in place, or `nil` when another writer replaced it
  ///   already.
  @discardableResult
  static func writeAtomically(_ bytes: [UInt8], to path: String, faults: inout FileFaults)
    throws(Failure) -> Identity?
  {
    let folder = (path as NSString).deletingLastPathComponent
    let name = (path as NSString).lastPathComponent
    let temporary =
      (folder.isEmpty ? "" : folder + "/") + temporaryPrefix(for: name)
      + String(UInt64.random(in: 0...UInt64.max), radix: 36) + ".tmp"
    let descriptor = open(
      temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw Failure("cannot create", temporary) }
    var renamed = false
    defer { if !renamed { unlink(temporary) } }
    var written = stat()
    do {
      defer { close(descriptor) }
      guard fchmod(descriptor, 0o600) == 0 else { throw Failure("cannot restrict", temporary) }
      try writeAll(bytes, to: descriptor, path: temporary, faults: &faults)
      try flush(descriptor, temporary, .full, faults: &faults)
      guard fstat(descriptor, &written) == 0 else { throw Failure("cannot stat", temporary) }
    }
    if faults.take(.rename) != nil { throw Failure("cannot rename over", path, errno: EIO) }
    guard rename(temporary, path) == 0 else {
      if errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST {
        throw Failure(reason: "\(path) is a folder, where this file belongs: remove it")
      }
      throw Failure("cannot rename over", path)
    }
    renamed = true
    try flushFolder(of: path, .full, faults: &faults)
    // A rename may change the file's change time: its identity is taken at its name, and is
    // its own only while the inode is the one written.
    guard let placed = identity(of: path), placed.device == UInt64(written.st_dev),
      placed.inode == UInt64(written.st_ino)
    else { return nil }
    return placed
  }

  /// The identity of the regular file at `path`, not following a link; `nil` when there is
  /// none, or something else stands there.
  static func identity(of path: String) -> Identity? {
    var info = stat()
    guard lstat(path, &info) == 0, isLoneRegularFile(info) else { return nil }
    return Identity(info)
  }

  /// Whether `info` is of a regular file with one name: no link, FIFO, folder, or hard link to
  /// a file elsewhere.
  private static func isLoneRegularFile(_ info: stat) -> Bool {
    info.st_mode & S_IFMT == S_IFREG && info.st_nlink == 1
  }

  /// What a file was when this process last wrote it. Another writer changes its inode (a
  /// replacement), its size or its change time (an in-place write), which no process can set
  /// back.
  struct Identity: Sendable, Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int
    var changed: timespec

    init(_ info: stat) {
      device = UInt64(info.st_dev)
      inode = UInt64(info.st_ino)
      size = Int(info.st_size)
      #if canImport(Darwin)
        changed = info.st_ctimespec
      #else
        changed = info.st_ctim
      #endif
    }

    static func == (a: Self, b: Self) -> Bool {
      a.device == b.device && a.inode == b.inode && a.size == b.size
        && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
    }
  }

  /// What an append expects to find: the file as this process left it.
  struct Expectation: Sendable {
    /// The file's length in bytes (0 for a file that is absent).
    var size: Int
    /// Its identity after this process last wrote it, or `nil` when it only read it.
    var identity: Identity?
    /// The length to cut it to first: where a torn last line starts.
    var cutTo: Int?
  }

  /// Appends `bytes` to the file at `path` with one write, and flushes it to disk before
  /// returning, so that what returned is durable and a crash tears at most these bytes. The
  /// file is created (owner read/write only) when absent, and its folder flushed then.
  ///
  /// It appends only to the file it expects: a regular file, never through a link, of the
  /// length and identity `expected` gives (first cut to `expected.cutTo`). Anything else (a
  /// link, a FIFO, a folder, a file another writer changed, the fragment a failed append
  /// left) is not written and gives `nil`: the caller starts the file anew.
  ///
  /// - Returns: The file's identity after the append, or `nil` when it was not as expected.
  static func append(
    _ bytes: [UInt8], to path: String, expecting expected: Expectation,
    faults: inout FileFaults
  ) throws(Failure) -> Identity? {
    var existed = stat()
    let created = lstat(path, &existed) != 0
    // Non-blocking, as for reading: a FIFO in the journal's place fails here, not hangs.
    let descriptor = open(
      path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW, 0o600)
    guard descriptor >= 0 else {
      // A link (ELOOP), a FIFO without a reader (ENXIO), a folder (EISDIR).
      if [ELOOP, ENXIO, EISDIR, EMLINK].contains(errno) { return nil }
      throw Failure("cannot open", path)
    }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { throw Failure("cannot stat", path) }
    let found = Identity(info)
    guard isLoneRegularFile(info),
      faults.appendsBlindly
        || (found.size == expected.size
          && (expected.identity == nil || expected.identity == found))
    else { return nil }
    if let length = expected.cutTo, ftruncate(descriptor, off_t(length)) != 0 {
      throw Failure("cannot cut", path)
    }
    try writeAll(bytes, to: descriptor, path: path, faults: &faults)
    try flush(descriptor, path, .ordered, faults: &faults)
    if created { try flushFolder(of: path, .ordered, faults: &faults) }
    guard fstat(descriptor, &info) == 0 else { throw Failure("cannot stat", path) }
    return Identity(info)
  }

  /// Cuts the file at `path` to nothing and flushes it to disk; does nothing when it is
  /// absent. An entry that is not a regular file of one name (a link, a FIFO, a socket, a hard
  /// link to a file elsewhere) is removed instead, never what it names; so is any entry when
  /// `removing` is set. A folder is refused with a reason that says to remove it.
  ///
  /// - Returns: The empty file's identity, or `nil` when there is no file now.
  @discardableResult
  static func empty(_ path: String, removing: Bool = false, faults: inout FileFaults)
    throws(Failure) -> Identity?
  {
    var info = stat()
    if lstat(path, &info) != 0 {
      if errno == ENOENT { return nil }
      throw Failure("cannot stat", path)
    }
    if info.st_mode & S_IFMT == S_IFDIR {
      throw Failure(reason: "\(path) is a folder, where this device's journal belongs: remove it")
    }
    if removing || !isLoneRegularFile(info) {
      guard unlink(path) == 0 else { throw Failure("cannot remove", path) }
      try flushFolder(of: path, .ordered, faults: &faults)
      return nil
    }
    let descriptor = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
    guard descriptor >= 0 else { throw Failure("cannot open", path) }
    defer { close(descriptor) }
    try requireRegularFile(descriptor, path)
    guard ftruncate(descriptor, 0) == 0 else { throw Failure("cannot cut", path) }
    try flush(descriptor, path, .ordered, faults: &faults)
    guard fstat(descriptor, &info) == 0 else { throw Failure("cannot stat", path) }
    return Identity(info)
  }

  /// Flushes the folder holding `path`, so that a name just created or renamed in it is
  /// durable (`durability` as for a file).
  private static func flushFolder(
    of path: String, _ durability: Durability, faults: inout FileFaults
  ) throws(Failure) {
    let folder = (path as NSString).deletingLastPathComponent
    let folderDescriptor = open(folder.isEmpty ? "." : folder, O_RDONLY | O_CLOEXEC)
    guard folderDescriptor >= 0 else { throw Failure("cannot open folder", folder) }
    defer { close(folderDescriptor) }
    faults.flushes?.append(durability)
    if faults.take(.flush) != nil { throw Failure("cannot flush folder", folder, errno: EIO) }
    guard flushed(folderDescriptor, durability) else {
      throw Failure("cannot flush folder", folder)
    }
  }

  /// The size of the open file `descriptor`, refusing anything but a regular file.
  @discardableResult
  private static func requireRegularFile(_ descriptor: Int32, _ path: String) throws(Failure)
    -> Int
  {
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { throw Failure("cannot stat", path) }
    guard (info.st_mode & S_IFMT) == S_IFREG else {
      throw Failure(reason: "\(path) is not a regular file (a folder, FIFO, socket or device)")
    }
    return Int(info.st_size)
  }

  /// Temporary files of `name` start with this; what a crash left behind can be found by it.
  static func temporaryPrefix(for name: String) -> String { ".\(name)." }

  /// Removes temporary files a crashed save of `path` left in its folder: all of them, or
  /// only those last modified at least `minimumAge` seconds ago.
  static func removeLeftovers(of path: String, minimumAge: Int? = nil) {
    let folder = (path as NSString).deletingLastPathComponent
    let prefix = temporaryPrefix(for: (path as NSString).lastPathComponent)
    let entries =
      (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
    let now = time(nil)
    for entry in entries where entry.hasPrefix(prefix) && entry.hasSuffix(".tmp") {
      let entryPath = (folder.isEmpty ? "" : folder + "/") + entry
      if let minimumAge {
        var info = stat()
        guard lstat(entryPath, &info) == 0 else { continue }
        #if canImport(Darwin)
          let modified = info.st_mtimespec.tv_sec
        #else
          let modified = info.st_mtim.tv_sec
        #endif
        guard now - modified >= minimumAge else { continue }
      }
      unlink(entryPath)
    }
  }

  /// Writes all of `bytes`, or as many as a pending write fault lets through before it fails.
  private static func writeAll(
    _ bytes: [UInt8], to descriptor: Int32, path: String, faults: inout FileFaults
  ) throws(Failure) {
    var end = bytes.count
    var failure: Int32?
    if case .write(let stoppingAfter, let code, _) = faults.take(.write),
      stoppingAfter < bytes.count
    {
      end = max(stoppingAfter, 0)
      failure = code
    }
    var written = 0
    while written < end {
      let count = bytes.withUnsafeBytes {
        write(descriptor, $0.baseAddress! + written, end - written)
      }
      if count < 0 {
        if errno == EINTR { continue }
        throw Failure("cannot write", path)
      }
      written += count
    }
    if let failure { throw Failure("cannot write", path, errno: failure) }
  }

  /// Flushes a file's data to the device, as far as `durability` asks.
  private static func flush(
    _ descriptor: Int32, _ path: String, _ durability: Durability, faults: inout FileFaults
  ) throws(Failure) {
    faults.flushes?.append(durability)
    if faults.take(.flush) != nil { throw Failure("cannot flush", path, errno: EIO) }
    guard flushed(descriptor, durability) else { throw Failure("cannot flush", path) }
  }

  /// How far a flush takes what was written before it (ADR 0033).
  package enum Durability: Sendable, Equatable {
    /// Ordered: it reaches the medium after everything flushed before it and before anything
    /// written after it, though a power loss may still lose it. For a journal's appends: a
    /// loss costs the last lines, never one line without those before it.
    case ordered
    /// On the medium when the call returns: for a snapshot that replaces what it compacts,
    /// and for the folder entry that names it.
    case full
  }

  /// The call a flush of `durability` makes on this platform.
  package enum FlushCall: Sendable, Equatable {
    /// `fcntl(F_FULLFSYNC)`: the drive writes its cache to the medium (Apple platforms).
    case fullSync
    /// `fcntl(F_BARRIERFSYNC)`: an I/O barrier, the drive keeps the order (Apple platforms).
    case barrierSync
    /// `fsync`: on Linux it reaches the medium; on Apple platforms only the drive's cache, so
    /// there it is only the fallback where neither `fcntl` is supported.
    case fsync
  }

  /// What a flush of `durability` calls first where `isApple` says; ``FlushCall/fsync`` is the
  /// fallback everywhere.
  package static func flushCall(for durability: Durability, isApple: Bool) -> FlushCall {
    guard isApple else { return .fsync }
    return durability == .full ? .fullSync : .barrierSync
  }

  /// Whether this platform runs on Apple's kernel.
  static var isApple: Bool {
    #if canImport(Darwin)
      true
    #else
      false
    #endif
  }

  /// Flushes `descriptor` as ``flushCall(for:isApple:)`` says, falling back to `fsync` where
  /// the file system does not support the `fcntl` (some network and FUSE volumes).
  private static func flushed(_ descriptor: Int32, _ durability: Durability) -> Bool {
    #if canImport(Darwin)
      switch flushCall(for: durability, isApple: isApple) {
      case .fullSync: if fcntl(descriptor, F_FULLFSYNC) == 0 { return true }
      case .barrierSync: if fcntl(descriptor, barrierFullSync) == 0 { return true }
      case .fsync: break
      }
    #endif
    return fsync(descriptor) == 0
  }

  /// `F_BARRIERFSYNC` of `<sys/fcntl.h>` (macOS 10.15, iOS 13 and later), spelled out so that
  /// the build does not depend on the SDK's headers importing it.
  static let barrierFullSync: Int32 = 85
}
