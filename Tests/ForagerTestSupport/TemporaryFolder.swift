import Foundation

/// A fresh folder under the system's temporary folder, removed when the value is released.
public final class TemporaryFolder: Sendable {
  public let url: URL

  public init(_ label: String = "forager") {
    url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "\(label)-\(UUID().uuidString)", isDirectory: true)
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

  deinit { try? FileManager.default.removeItem(at: url) }
}
