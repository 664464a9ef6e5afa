import Foundation

/// Where `swift build` put the package's executables, for tests that run them as a person
/// would (a test target that depends on an executable target gets it built first).
public enum BuiltProducts {
  /// The build products folder.
  public static var directory: URL {
    #if os(macOS)
      for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
        return bundle.bundleURL.deletingLastPathComponent()
      }
    #endif
    return Bundle.main.bundleURL
  }

  /// The built executable `name`.
  public static func executable(_ name: String) -> URL {
    directory.appendingPathComponent(name)
  }
}
