/// The version of the normalization rules a semantic key was computed with.
///
/// Keys are only comparable when computed by the same rules. A store records the version it was
/// keyed with; opening or merging state keyed by an older version re-keys it with the current
/// rules, and records whose keys then collide merge (see docs/keys.md).
///
/// | version | change |
/// | --- | --- |
/// | 1 | the first rules |
/// | 2 | ingredient units gain `pinch`, `dash`, `sprig`, `handful` and `knob`, so "a pinch of salt" is "salt" |
public struct NormalizerVersion: RawRepresentable, Hashable, Comparable, Codable, Sendable {
  /// The version number.
  public let rawValue: Int64

  /// Creates a version from its number.
  public init(rawValue: Int64) {
    self.rawValue = rawValue
  }

  /// The first rules.
  public static let v1 = NormalizerVersion(rawValue: 1)
  /// Adds the small-measure units to the ingredient pipeline.
  public static let v2 = NormalizerVersion(rawValue: 2)
  /// The rules this build computes keys with.
  public static let current = v2
  /// Every version this build knows, oldest first.
  public static let known: [NormalizerVersion] = [.v1, .v2]

  /// Orders by number.
  public static func < (lhs: NormalizerVersion, rhs: NormalizerVersion) -> Bool {
    lhs.rawValue < rhs.rawValue
  }
}
