import Foundation

/// The first steps every normalizer shares: Unicode NFC, lowercase, any run of white space
/// (including non-breaking and ideographic spaces, tabs and newlines) to one ASCII space, and
/// no space at either end.
///
/// Lowercasing is Swift's locale-independent `lowercased()`, so a key never depends on the
/// device's language (no Turkish dotless-i surprises).
///
/// - Complexity: O(*n*). Pure ASCII text, the common case, takes a byte-level path that gives
///   the same result without Foundation's normalization (a property test compares them).
func foldedText(_ text: String) -> String {
  foldedASCII(text) ?? foldedUnicode(text)
}

/// The full folding, for any text.
func foldedUnicode(_ text: String) -> String {
  text.precomposedStringWithCanonicalMapping.lowercased()
    .split(whereSeparator: \.isWhitespace)
    .joined(separator: " ")
}

/// The folding of pure ASCII text, byte by byte, or `nil` when `text` is not pure ASCII. For
/// ASCII, NFC changes nothing, lowercasing maps A–Z, and the white space is U+0009–U+000D and
/// U+0020.
func foldedASCII(_ text: String) -> String? {
  foldedASCII(text, keeping: { _ in true })
}

/// ``foldedASCII(_:)`` keeping, of the bytes that are not white space, only those `keep`
/// accepts: the white space around a dropped byte collapses as if it were not there.
@inline(__always)
func foldedASCII(_ text: String, keeping keep: (UInt8) -> Bool) -> String? {
  var text = text
  return text.withUTF8 { bytes -> String? in
    guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
    return String(unsafeUninitializedCapacity: bytes.count) { output in
      var count = 0
      var pendingSpace = false
      for byte in bytes {
        if byte == 0x20 || (0x09...0x0D).contains(byte) {
          pendingSpace = count > 0
          continue
        }
        guard keep(byte) else { continue }
        if pendingSpace {
          output[count] = 0x20
          count += 1
          pendingSpace = false
        }
        output[count] = (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
        count += 1
      }
      return count
    }
  }
}
