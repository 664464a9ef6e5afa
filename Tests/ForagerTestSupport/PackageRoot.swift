import Foundation

/// The folder that holds Package.swift, found from this file's own path upward: for tests that
/// read the package's sources, wherever in the test folders they sit.
package let packageRoot: URL = {
  var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path)
  {
    let parent = folder.deletingLastPathComponent()
    precondition(parent.path != folder.path, "no Package.swift above \(#filePath)")
    folder = parent
  }
  return folder
}()
