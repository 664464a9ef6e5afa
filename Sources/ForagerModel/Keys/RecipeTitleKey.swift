import Foundation

/// The key recipes are compared by to find likely duplicates: the title without case,
/// accents, punctuation or extra white space.
///
/// Recipes are identified by UUID, and two recipes may share a title key; the key only finds
/// similar recipes so the app can ask before saving a second "Banana Bread".
///
/// ```swift
/// RecipeTitleKey(normalizing: "Grandma's Banana Bread").rawValue   // "grandmas banana bread"
/// RecipeTitleKey(normalizing: "Crème Brûlée!").rawValue            // "creme brulee"
/// ```
///
/// Rules (all versions): Unicode NFC, lowercase, accents folded away, every character that is
/// not a letter, digit or white space removed, then white space collapsed and trimmed. Unlike
/// the old app's regular expression (`[^a-z0-9\s]`), letters of every script are kept
/// ("Pâté" → "pate", "餃子" stays "餃子"), and white space is collapsed *after* punctuation is
/// removed, so "Mac & Cheese" is "mac cheese", not "mac  cheese".
public struct RecipeTitleKey: RawRepresentable, Hashable, Comparable, Codable, Sendable {
  /// The normalized title.
  public let rawValue: String

  /// Wraps an already normalized title.
  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  /// Computes the key of a recipe title.
  ///
  /// - Complexity: O(*n*) in the length of the title. A pure ASCII title, the common case,
  ///   takes a byte-level path that gives the same key without Foundation's folding (a
  ///   property test compares them); ``HouseholdReplica/findSimilarRecipes(title:)`` computes
  ///   one per recipe.
  public init(normalizing title: String, version: NormalizerVersion = .current) {
    rawValue = Self.keyOfASCII(title) ?? Self.keyOfUnicode(title)
  }

  /// The key of any title: folded, accents folded away, every character but letters, numbers
  /// and white space dropped, folded again.
  static func keyOfUnicode(_ title: String) -> String {
    let unaccented = foldedText(title).folding(options: [.diacriticInsensitive], locale: nil)
    let kept = unaccented.unicodeScalars.filter {
      $0.properties.isAlphabetic || $0.properties.numericType != nil || $0.properties.isWhitespace
    }
    return foldedText(String(String.UnicodeScalarView(kept)))
  }

  /// The key of a pure ASCII title, byte by byte, or `nil` when `title` is not pure ASCII. In
  /// ASCII no letter has an accent, and the letters and numbers are A–Z, a–z and 0–9: the
  /// folding keeps those and drops the rest.
  static func keyOfASCII(_ title: String) -> String? {
    foldedASCII(title) { byte in
      (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
  }

  /// Orders keys by their text (Unicode scalar order).
  public static func < (lhs: RecipeTitleKey, rhs: RecipeTitleKey) -> Bool {
    lhs.rawValue.precedesByScalars(rhs.rawValue)
  }
}
