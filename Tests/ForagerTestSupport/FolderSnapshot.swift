import Foundation

/// Every file of a folder and its bytes: to show a command changed nothing.
public func snapshot(of folder: URL) -> [String: Data] {
  var files: [String: Data] = [:]
  for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
    files[name] = try? Data(contentsOf: folder.appendingPathComponent(name))
  }
  return files
}
