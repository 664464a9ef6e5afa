import Foundation

/// The semantic key of a category: its normalized name.
///
/// Two categories whose names differ only in case, surrounding or repeated white space, or in
/// composed versus decomposed accents have the same key, and so are one category on every
/// device. Accents themselves matter: "Café" and "Cafe" are two categories.
///
/// ```swift
/// CategoryKey(normalizing: "  test   CATEGORY ") == CategoryKey(normalizing: "Test Category")
/// CategoryKey(normalizing: "Produce").rawValue   // "produce"
/// ```
///
/// Rules (all versions): Unicode NFC, lowercase, every run of white space to one space, trimmed.
public struct CategoryKey: RawRepresentable, Hashable, Comparable, Codable, Sendable {
  /// The normalized name.
  public let rawValue: String

  /// Wraps an already normalized name (as stored); use ``init(normalizing:version:)`` for
  /// names people typed.
  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  /// Computes the key of a display name.
  ///
  /// - Complexity: O(*n*) in the length of the name.
  public init(normalizing displayName: String, version: NormalizerVersion = .current) {
    rawValue = foldedText(displayName)
  }

  /// Whether `displayName` is pure ASCII and ``init(normalizing:version:)`` gives exactly this
  /// key's bytes, found without building the key (``foldsASCII(_:to:)``). `false` decides
  /// nothing more: a caller compares the normalized key as it would have. A category's rules
  /// are the same in every version, so `version` changes nothing, as in
  /// ``init(normalizing:version:)``; a version with other rules changes both.
  ///
  /// - Complexity: O(*n*) in the length of the name.
  func isExactNormalization(ofASCII displayName: String, version: NormalizerVersion) -> Bool {
    foldsASCII(displayName, to: rawValue)
  }

  /// Orders keys by their text (Unicode scalar order).
  public static func < (lhs: CategoryKey, rhs: CategoryKey) -> Bool {
    lhs.rawValue.precedesByScalars(rhs.rawValue)
  }
}

extension CategoryKey: CustomStringConvertible {
  public var description: String { rawValue }
}
