import ForagerSync
import Foundation

/// A stand-in for iCloud Drive on a machine without it: a ``FileCoordinating`` that plays the
/// service's documented behaviours on a plain folder, for tests of the folder transport.
///
/// - **Not downloaded yet**: ``evict(_:in:)`` replaces a file with its placeholder
///   `.<name>.icloud`; ``requestDownload(of:)`` notes the request, and the download completes
///   when the test calls ``completeDownloads()``, as iCloud's does some time later.
/// - **A coordinator that blocks**: while ``blocksReads`` is set, a coordinated read waits (as
///   one waits for a download) until ``unblock()``.
/// - **Conflict versions**: ``addConflictVersion(of:contents:)`` keeps other contents of a file
///   as an unresolved version, as iCloud keeps the loser of two devices' writes.
/// - It logs every coordinated access, so a test can check that each file the transport
///   changed in the folder was changed inside a coordination of writing it.
public final class SimulatedICloud: FileCoordinating, @unchecked Sendable {
  private let lock = NSLock()
  private let stash: URL
  private var evicted: [URL: URL] = [:]
  private var requested: Set<URL> = []
  private var versions: [URL: [(url: URL, resolved: Bool)]] = [:]
  private var reads: [String] = []
  private var writes: [String] = []
  private var blocking = false
  private var waitingReads = 0
  private let release = DispatchSemaphore(value: 0)

  /// - Parameter stash: Where evicted files and conflict versions are kept, outside the folder.
  public init(stash: URL) {
    self.stash = stash
    try? FileManager.default.createDirectory(at: stash, withIntermediateDirectories: true)
  }

  private func locked<Value>(_ body: () throws -> Value) rethrows -> Value {
    lock.lock()
    defer { lock.unlock() }
    return try body()
  }

  // MARK: Coordination

  public func coordinateReading<Value>(_ url: URL, _ body: (URL) throws -> Value) throws -> Value {
    let waits = locked {
      reads.append(url.lastPathComponent)
      if blocking { waitingReads += 1 }
      return blocking
    }
    if waits {
      release.wait()
      locked { waitingReads -= 1 }
    }
    return try body(url)
  }

  public func coordinateWriting<Value>(_ url: URL, _ body: (URL) throws -> Value) throws -> Value {
    locked { writes.append(url.lastPathComponent) }
    return try body(url)
  }

  public func coordinateWriting<Value>(
    _ first: URL, _ second: URL, deleting: Bool, _ body: (URL, URL) throws -> Value
  ) throws -> Value {
    locked { writes += [first.lastPathComponent, second.lastPathComponent] }
    return try body(first, second)
  }

  public func requestDownload(of url: URL) throws {
    locked { _ = requested.insert(url.standardizedFileURL) }
  }

  public func unresolvedConflictVersions(of url: URL) throws -> [FileConflictVersion] {
    let key = url.standardizedFileURL
    return locked { versions[key] ?? [] }.enumerated().compactMap { index, version in
      version.resolved
        ? nil
        : FileConflictVersion(url: version.url) { [self] in
          locked { versions[key]?[index].resolved = true }
          try FileManager.default.removeItem(at: version.url)
        }
    }
  }

  // MARK: What the service does

  /// Replaces the file `name` in `folder` with its placeholder, as iCloud does with a file
  /// it has not downloaded to this device.
  public func evict(_ name: String, in folder: URL) throws {
    let file = folder.appendingPathComponent(name).standardizedFileURL
    let kept = stash.appendingPathComponent(UUID().uuidString)
    try FileManager.default.moveItem(at: file, to: kept)
    try Data().write(to: folder.appendingPathComponent(".\(name).icloud"))
    locked { evicted[file] = kept }
  }

  /// The files whose download was requested, by name.
  public var downloadsRequested: Set<String> {
    locked { Set(requested.map(\.lastPathComponent)) }
  }

  /// Completes every requested download: the file replaces its placeholder.
  public func completeDownloads() throws {
    let due = locked {
      let due = evicted.filter { requested.contains($0.key) }
      for file in due.keys { evicted[file] = nil }
      requested = []
      return due
    }
    for (file, kept) in due {
      try FileManager.default.moveItem(at: kept, to: file)
      try FileManager.default.removeItem(
        at: file.deletingLastPathComponent().appendingPathComponent(
          ".\(file.lastPathComponent).icloud"))
    }
  }

  /// Keeps `contents` as an unresolved conflict version of the file at `url`.
  public func addConflictVersion(of url: URL, contents: Data) throws {
    let kept = stash.appendingPathComponent(UUID().uuidString)
    try contents.write(to: kept)
    locked { versions[url.standardizedFileURL, default: []].append((kept, false)) }
  }

  /// How many conflict versions of the file at `url` are unresolved.
  public func unresolvedCount(of url: URL) -> Int {
    locked { (versions[url.standardizedFileURL] ?? []).filter { !$0.resolved }.count }
  }

  // MARK: Blocking

  /// Whether coordinated reads wait until ``unblock()``.
  public var blocksReads: Bool {
    get { locked { blocking } }
    set { locked { blocking = newValue } }
  }

  /// How many coordinated reads are waiting now.
  public var readsWaiting: Int { locked { waitingReads } }

  /// Lets every waiting read go on, and later ones run at once.
  public func unblock() {
    let count = locked {
      blocking = false
      return waitingReads
    }
    for _ in 0..<count { release.signal() }
  }

  // MARK: The log

  /// The names coordinated for writing, in order.
  public var writesCoordinated: [String] { locked { writes } }
  /// The names coordinated for reading, in order.
  public var readsCoordinated: [String] { locked { reads } }
}
