import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The few POSIX calls a crash-safe save needs, with errors as text.
enum FileIO {
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
  static func writeAtomically(_ bytes: [UInt8], to path: String) throws(Failure) {
    let folder = (path as NSString).deletingLastPathComponent
    let name = (path as NSString).lastPathComponent
    let temporary =
      (folder.isEmpty ? "" : folder + "/") + temporaryPrefix(for: name)
      + String(UInt64.random(in: 0...UInt64.max), radix: 36) + ".tmp"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw Failure("cannot create", temporary) }
    var renamed = false
    defer { if !renamed { unlink(temporary) } }
    do {
      defer { close(descriptor) }
      guard fchmod(descriptor, 0o600) == 0 else { throw Failure("cannot restrict", temporary) }
      try writeAll(bytes, to: descriptor, path: temporary)
      guard flush(descriptor) == 0 else { throw Failure("cannot flush", temporary) }
    }
    guard rename(temporary, path) == 0 else { throw Failure("cannot rename over", path) }
    renamed = true
    try flushFolder(of: path)
  }

  /// Appends `bytes` to the file at `path` with one write, and flushes it to disk before
  /// returning, so that what returned is durable and a crash tears at most these bytes. The
  /// file is created (owner read/write only) when absent, and its folder flushed then. When
  /// `length` is given, the file is first cut to that length: a torn tail goes before the
  /// next line.
  static func append(_ bytes: [UInt8], to path: String, cuttingTo length: Int? = nil)
    throws(Failure)
  {
    var existed = stat()
    let created = lstat(path, &existed) != 0
    // Non-blocking, as for reading: a FIFO in the journal's place fails here, not hangs.
    let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0o600)
    guard descriptor >= 0 else { throw Failure("cannot open", path) }
    defer { close(descriptor) }
    try requireRegularFile(descriptor, path)
    if let length, ftruncate(descriptor, off_t(length)) != 0 {
      throw Failure("cannot cut", path)
    }
    try writeAll(bytes, to: descriptor, path: path)
    guard flush(descriptor) == 0 else { throw Failure("cannot flush", path) }
    if created { try flushFolder(of: path) }
  }

  /// Cuts the file at `path` to nothing and flushes it to disk; does nothing when it is absent.
  static func empty(_ path: String) throws(Failure) {
    let descriptor = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK)
    if descriptor < 0 {
      if errno == ENOENT { return }
      throw Failure("cannot open", path)
    }
    defer { close(descriptor) }
    try requireRegularFile(descriptor, path)
    guard ftruncate(descriptor, 0) == 0 else { throw Failure("cannot cut", path) }
    guard flush(descriptor) == 0 else { throw Failure("cannot flush", path) }
  }

  /// Flushes the folder holding `path`, so that a name just created or renamed in it is
  /// durable.
  private static func flushFolder(of path: String) throws(Failure) {
    let folder = (path as NSString).deletingLastPathComponent
    let folderDescriptor = open(folder.isEmpty ? "." : folder, O_RDONLY | O_CLOEXEC)
    guard folderDescriptor >= 0 else { throw Failure("cannot open folder", folder) }
    defer { close(folderDescriptor) }
    guard fsync(folderDescriptor) == 0 else { throw Failure("cannot flush folder", folder) }
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

  private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(Failure)
  {
    var written = 0
    while written < bytes.count {
      let count = bytes.withUnsafeBytes {
        write(descriptor, $0.baseAddress! + written, $0.count - written)
      }
      if count < 0 {
        if errno == EINTR { continue }
        throw Failure("cannot write", path)
      }
      written += count
    }
  }

  /// Flushes a file's data to the device. On Apple platforms `fsync` only reaches the drive's
  /// cache; `F_FULLFSYNC` reaches the medium.
  private static func flush(_ descriptor: Int32) -> Int32 {
    #if canImport(Darwin)
      if fcntl(descriptor, F_FULLFSYNC) == 0 { return 0 }
    #endif
    return fsync(descriptor)
  }
}
