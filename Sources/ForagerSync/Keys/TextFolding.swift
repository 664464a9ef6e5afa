import Foundation

/// The first steps every normalizer shares: Unicode NFC, lowercase, any run of white space
/// (including non-breaking and ideographic spaces, tabs and newlines) to one ASCII space, and
/// no space at either end.
///
/// Lowercasing is Swift's locale-independent `lowercased()`, so a key never depends on the
/// device's language (no Turkish dotless-i surprises).
func foldedText(_ text: String) -> String {
  text.precomposedStringWithCanonicalMapping.lowercased()
    .split(whereSeparator: \.isWhitespace)
    .joined(separator: " ")
}
