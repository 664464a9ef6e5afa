import Foundation

/// Where `swift build` put the package's executables, for tests that run them as a person
/// would (a test target that depends on an executable target gets it built first).
public enum BuiltProducts {
  /// The build products folder: `FORAGER_BUILT_PRODUCTS` when set (a host this does not
  /// know); on macOS the folder of the `.xctest` bundle holding this code, which the test host
  /// loaded; elsewhere the folder of the test executable.
  public static var directory: URL {
    if let given = ProcessInfo.processInfo.environment["FORAGER_BUILT_PRODUCTS"] {
      return URL(fileURLWithPath: given, isDirectory: true)
    }
    #if os(macOS)
      // XCTest's host and swift-testing's (`swiftpm-testing-helper`) both load the bundle, but
      // only the first registers it among `Bundle.allBundles`; the bundle that holds a class
      // of this module is found under either.
      let bundle = Bundle(for: Marker.self)
      if bundle.bundlePath.hasSuffix(".xctest") {
        return bundle.bundleURL.deletingLastPathComponent()
      }
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

  /// A class of this module, for finding the bundle it was loaded from.
  private final class Marker {}
}
