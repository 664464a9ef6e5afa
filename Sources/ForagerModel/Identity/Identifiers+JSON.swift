import Foundation
import SemanticCRDTJSON

// The identifiers' text in the fast codec: written and parsed here, with the identifiers, so
// that nothing below persistence reaches up into it for a UUID.

extension UUIDIdentifier {
  /// Writes the canonical upper-case text without building a `String`.
  public func write(to writer: inout JSONWriter) {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { text in
      withUnsafeBytes(of: uuid.uuid) { bytes in
        var position = 0
        for (index, byte) in bytes.enumerated() {
          if index == 4 || index == 6 || index == 8 || index == 10 {
            text[position] = UInt8(ascii: "-")
            position += 1
          }
          text[position] = upperHexDigits[Int(byte >> 4)]
          text[position + 1] = upperHexDigits[Int(byte & 0xF)]
          position += 2
        }
      }
      writer.string(utf8: UnsafeBufferPointer(text))
    }
  }

  /// Reads canonical UUID text (8-4-4-4-12 hex digits) in either case. Stricter than
  /// `UUID(uuidString:)` on Linux, which also takes some malformed text (a space in a group).
  public init(from reader: inout JSONReader) throws(JSONError) {
    let start = reader.offset
    let parsed = try reader.readString { (text: UnsafeBufferPointer<UInt8>) throws(JSONError) in
      UUID.parse(text)
    }
    guard let parsed else { throw JSONError(.invalidValue("not a UUID"), at: start) }
    self.init(uuid: parsed)
  }
}

/// Upper-case hex digits, as `UUID.uuidString` writes them.
private let upperHexDigits = Array("0123456789ABCDEF".utf8)

extension UUID {
  /// Parses `XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX` in hex digits of either case.
  ///
  /// Eight digits at a time: every household record holds a member's UUID, so this runs once
  /// per record on load, and a digit-by-digit loop cost 5% of a load.
  static func parse(_ text: UnsafeBufferPointer<UInt8>) -> UUID? {
    let dash = UInt8(ascii: "-")
    guard text.count == 36, text[8] == dash, text[13] == dash, text[18] == dash, text[23] == dash
    else { return nil }
    let raw = UnsafeRawBufferPointer(text)
    func eight(_ offset: Int) -> UInt64 {
      UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
    func four(_ offset: Int) -> UInt64 {
      UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    }
    // The 32 digits, eight to a word, in text order (first digit in the lowest byte).
    let groups = (eight(0), four(9) | four(14) << 32, four(19) | four(24) << 32, eight(28))
    guard
      areHexDigits(groups.0), areHexDigits(groups.1), areHexDigits(groups.2),
      areHexDigits(groups.3)
    else { return nil }
    var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    withUnsafeMutableBytes(of: &uuid) { bytes in
      bytes.storeBytes(of: hexValue(of: groups.0).littleEndian, as: UInt32.self)
      bytes.storeBytes(of: hexValue(of: groups.1).littleEndian, toByteOffset: 4, as: UInt32.self)
      bytes.storeBytes(of: hexValue(of: groups.2).littleEndian, toByteOffset: 8, as: UInt32.self)
      bytes.storeBytes(of: hexValue(of: groups.3).littleEndian, toByteOffset: 12, as: UInt32.self)
    }
    return UUID(uuid: uuid)
  }

  /// Whether all eight bytes are `0`…`9`, `A`…`F` or `a`…`f`.
  private static func areHexDigits(_ word: UInt64) -> Bool {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs = ones &* 0x80
    // For bytes below 0x80, adding 0x7F - m sets a byte's high bit exactly when it is above
    // m, and adding 0x80 - n exactly when it is at least n; no byte carries into the next.
    func above(_ word: UInt64, _ m: UInt64) -> UInt64 { (word &+ ones &* (0x7F - m)) & highs }
    func below(_ word: UInt64, _ n: UInt64) -> UInt64 { ~(word &+ ones &* (0x80 - n)) & highs }
    let lower = word | ones &* 0x20
    let digits = above(word, 0x2F) & below(word, 0x3A)
    let letters = above(lower, 0x60) & below(lower, 0x67)
    return word & highs == 0 && digits | letters == highs
  }

  /// The four bytes that eight hex digits (checked) stand for, the first digit highest, as a
  /// little-endian word: the bytes in text order.
  private static func hexValue(of word: UInt64) -> UInt32 {
    // Each digit's value: its low four bits, plus nine for a letter (bit 6 set).
    let values = (word & 0x0F0F_0F0F_0F0F_0F0F) &+ ((word >> 6) & 0x0101_0101_0101_0101) &* 9
    // Pairs of digits into bytes, then the bytes side by side.
    let pairs = ((values & 0x000F_000F_000F_000F) << 4) | ((values >> 8) & 0x000F_000F_000F_000F)
    let halves = (pairs | pairs >> 8) & 0x0000_FFFF_0000_FFFF
    return UInt32(truncatingIfNeeded: halves | halves >> 16)
  }
}
