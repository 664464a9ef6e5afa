import Foundation

/// How the folder transport reads and writes files that a file-sync service may be changing at
/// the same moment, and what it asks of the service.
///
/// On Apple platforms a folder in iCloud Drive must be read and written through
/// `NSFileCoordinator`: coordinated reading waits for a download in progress, coordinated
/// writing keeps the service from uploading half a file. Files iCloud has not downloaded are
/// `.<name>.icloud` placeholders until someone asks for them (``requestDownload(of:)``), and a
/// file two devices changed at once keeps the other changes as conflict versions
/// (``unresolvedConflictVersions(of:)``) rather than as a second file.
/// ``FileCoordination/system`` does all of this where Foundation has it and nothing
/// elsewhere; ``FileCoordination/none`` never coordinates (folders no service touches while the
/// app runs, and tests). An app with its own file presenter passes its own; tests pass doubles
/// that play iCloud's behaviours.
public protocol FileCoordinating: Sendable {
  /// Runs `body` to read the file at `url` (or the URL coordination gives for it).
  func coordinateReading<Value>(_ url: URL, _ body: (URL) throws -> Value) throws -> Value
  /// Runs `body` to replace the file at `url` (or the URL coordination gives for it).
  func coordinateWriting<Value>(_ url: URL, _ body: (URL) throws -> Value) throws -> Value
  /// Runs `body` to write two files in one coordination: a snapshot (replaced) and its journal
  /// (appended to, emptied or removed), or, when `deleting`, to remove both.
  func coordinateWriting<Value>(
    _ first: URL, _ second: URL, deleting: Bool, _ body: (URL, URL) throws -> Value
  ) throws -> Value
  /// Asks the service to download the file at `url`, which is a placeholder now. Returns at
  /// once; a later sync reads the file once it is there.
  func requestDownload(of url: URL) throws
  /// The versions of the file at `url` that the service kept because two devices wrote it at
  /// once, not yet resolved.
  func unresolvedConflictVersions(of url: URL) throws -> [FileConflictVersion]
}

extension FileCoordinating {
  /// The two files coordinated one inside the other.
  public func coordinateWriting<Value>(
    _ first: URL, _ second: URL, deleting: Bool, _ body: (URL, URL) throws -> Value
  ) throws -> Value {
    try coordinateWriting(first) { one in
      try coordinateWriting(second) { two in try body(one, two) }
    }
  }

  /// Nothing to ask: no service downloads on demand.
  public func requestDownload(of url: URL) throws {}

  /// None: no service keeps conflict versions.
  public func unresolvedConflictVersions(of url: URL) throws -> [FileConflictVersion] { [] }
}

/// A version of a file that a sync service kept when two devices wrote it at once: its
/// contents at ``url``, and what marks it resolved.
public struct FileConflictVersion: Sendable {
  /// Where the version's contents can be read.
  public let url: URL
  private let markResolved: @Sendable () throws -> Void

  /// - Parameters:
  ///   - url: Where the version's contents can be read.
  ///   - resolve: Marks the version resolved and removes it, so that the service stops
  ///     keeping (and syncing) it.
  public init(url: URL, resolve: @escaping @Sendable () throws -> Void) {
    self.url = url
    markResolved = resolve
  }

  /// Marks the version resolved: its changes are merged.
  public func resolve() throws { try markResolved() }
}

/// The coordinations the library provides.
public enum FileCoordination {
  /// No coordination: `body` runs on the URL as given.
  public static let none: any FileCoordinating = Uncoordinated()

  /// `NSFileCoordinator`, `startDownloadingUbiquitousItem(at:)` and `NSFileVersion` where
  /// Foundation has them (Apple platforms), else ``none``.
  public static var system: any FileCoordinating {
    #if canImport(Darwin)
      SystemFileCoordinator()
    #else
      none
    #endif
  }
}

struct Uncoordinated: FileCoordinating {
  func coordinateReading<Value>(_ url: URL, _ body: (URL) throws -> Value) throws -> Value {
    try body(url)
  }

  func coordinateWriting<Value>(_ url: URL, _ body: (URL) throws -> Value) throws -> Value {
    try body(url)
  }
}

#if canImport(Darwin)
  /// `NSFileCoordinator` without a file presenter, one coordination per access.
  struct SystemFileCoordinator: FileCoordinating {
    func coordinateReading<Value>(_ url: URL, _ body: (URL) throws -> Value) throws -> Value {
      var coordinationError: NSError?
      var result: Result<Value, any Error>?
      NSFileCoordinator(filePresenter: nil).coordinate(
        readingItemAt: url, options: [], error: &coordinationError
      ) { coordinated in
        result = Result { try body(coordinated) }
      }
      return try Self.outcome(result, coordinationError)
    }

    func coordinateWriting<Value>(_ url: URL, _ body: (URL) throws -> Value) throws -> Value {
      var coordinationError: NSError?
      var result: Result<Value, any Error>?
      NSFileCoordinator(filePresenter: nil).coordinate(
        writingItemAt: url, options: .forReplacing, error: &coordinationError
      ) { coordinated in
        result = Result { try body(coordinated) }
      }
      return try Self.outcome(result, coordinationError)
    }

    func coordinateWriting<Value>(
      _ first: URL, _ second: URL, deleting: Bool, _ body: (URL, URL) throws -> Value
    ) throws -> Value {
      var coordinationError: NSError?
      var result: Result<Value, any Error>?
      NSFileCoordinator(filePresenter: nil).coordinate(
        writingItemAt: first, options: deleting ? .forDeleting : .forReplacing,
        writingItemAt: second, options: deleting ? .forDeleting : [],
        error: &coordinationError
      ) { one, two in
        result = Result { try body(one, two) }
      }
      return try Self.outcome(result, coordinationError)
    }

    func requestDownload(of url: URL) throws {
      try FileManager.default.startDownloadingUbiquitousItem(at: url)
    }

    func unresolvedConflictVersions(of url: URL) throws -> [FileConflictVersion] {
      (NSFileVersion.unresolvedConflictVersionsOfItem(at: url) ?? []).map { version in
        let held = HeldVersion(version)
        return FileConflictVersion(url: version.url) {
          held.version.isResolved = true
          try held.version.remove()
        }
      }
    }

    /// What a coordination gave: the coordinator's error (then the body did not run), or the
    /// body's result.
    private static func outcome<Value>(_ result: Result<Value, any Error>?, _ error: NSError?)
      throws -> Value
    {
      if let error { throw error }
      guard let result else { throw CocoaError(.fileReadUnknown) }
      return try result.get()
    }
  }

  /// A conflict version, held by the closure that resolves it: `NSFileVersion` is not
  /// `Sendable`, and the version is only touched by that one call.
  private final class HeldVersion: @unchecked Sendable {
    let version: NSFileVersion
    init(_ version: NSFileVersion) { self.version = version }
  }
#endif
