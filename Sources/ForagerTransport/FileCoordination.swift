import Foundation

/// How the folder transport reads and writes files that a file-sync service may be changing at
/// the same moment.
///
/// On Apple platforms a folder in iCloud Drive must be read and written through
/// `NSFileCoordinator`: coordinated reading waits for a download in progress (and starts one
/// for a file not downloaded yet), coordinated writing keeps the service from uploading half a
/// file. ``FileCoordination/system`` does that where `NSFileCoordinator` exists and nothing
/// elsewhere; ``FileCoordination/none`` never coordinates (folders that no service touches
/// while the app runs, and tests). An app with its own file presenter passes its own.
public protocol FileCoordinating: Sendable {
  /// Runs `body` to read the file at `url` (or the URL coordination gives for it).
  func coordinateReading<Value>(_ url: URL, _ body: (URL) throws -> Value) throws -> Value
  /// Runs `body` to replace the file at `url` (or the URL coordination gives for it).
  func coordinateWriting<Value>(_ url: URL, _ body: (URL) throws -> Value) throws -> Value
}

/// The coordinations the library provides.
public enum FileCoordination {
  /// No coordination: `body` runs on the URL as given.
  public static let none: any FileCoordinating = Uncoordinated()

  /// `NSFileCoordinator` where Foundation has it (Apple platforms), else ``none``.
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
  /// `NSFileCoordinator` without a file presenter, one coordination per file.
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
#endif
