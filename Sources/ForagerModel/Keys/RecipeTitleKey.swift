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
  /// - Complexity: O(*n*) in the length of the title.
  public init(normalizing title: String, version: NormalizerVersion = .current) {
    let unaccented = foldedText(title).folding(options: [.diacriticInsensitive], locale: nil)
    let kept = unaccented.unicodeScalars.filter {
      $0.properties.isAlphabetic || $0.properties.numericType != nil || $0.properties.isWhitespace
    }
    rawValue = foldedText(String(String.UnicodeScalarView(kept)))
  }

  /// Orders keys by their text (Unicode scalar order).
  public static func < (lhs: RecipeTitleKey, rhs: RecipeTitleKey) -> Bool {
    lhs.rawValue.precedesByScalars(rhs.rawValue)
  }
}
