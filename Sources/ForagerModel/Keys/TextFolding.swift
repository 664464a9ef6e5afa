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
      _ = foldASCII(bytes, keeping: keep) { byte in
        output[count] = byte
        count += 1
        return true
      }
      return count
    }
  }
}

/// Whether `text` is pure ASCII and its folding (``foldedASCII(_:)``) has exactly the bytes of
/// `folded`, found without building the folding. `false` decides nothing more: text beyond
/// ASCII takes the full folding, and a string of other bytes may still be canonically
/// equivalent to the folding (the Greek question mark is a semicolon), so a caller that finds
/// `false` compares the folding as it would have.
///
/// The model checks ask it of every category's name: a name's folding is almost always its
/// key, and building it costs an allocation per record.
///
/// - Complexity: O(*n*) in the length of `text`, stopping at the first byte that differs.
func foldsASCII(_ text: String, to folded: String) -> Bool {
  var (text, folded) = (text, folded)
  return text.withUTF8 { bytes in
    guard !bytes.contains(where: { $0 >= 0x80 }) else { return false }
    return folded.withUTF8 { target in
      var count = 0
      let matchedAll = foldASCII(bytes, keeping: { _ in true }) { byte in
        guard count < target.count, target[count] == byte else { return false }
        count += 1
        return true
      }
      return matchedAll && count == target.count
    }
  }
}

/// The folding of ASCII `bytes`, one byte at a time: hands `emit` each byte of the folding in
/// order, and stops when it returns `false`. Returns whether every byte was handed on. The one
/// place the ASCII folding is written, for ``foldedASCII(_:keeping:)``, which keeps the bytes,
/// and ``foldsASCII(_:to:)``, which compares them.
///
/// - Precondition: every byte of `bytes` is ASCII.
@inline(__always)
private func foldASCII(
  _ bytes: UnsafeBufferPointer<UInt8>, keeping keep: (UInt8) -> Bool, into emit: (UInt8) -> Bool
) -> Bool {
  var emitted = false
  var pendingSpace = false
  for byte in bytes {
    if byte == 0x20 || (0x09...0x0D).contains(byte) {
      pendingSpace = emitted
      continue
    }
    guard keep(byte) else { continue }
    if pendingSpace {
      guard emit(0x20) else { return false }
      pendingSpace = false
    }
    guard emit((0x41...0x5A).contains(byte) ? byte + 0x20 : byte) else { return false }
    emitted = true
  }
  return true
}
