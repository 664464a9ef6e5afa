import Foundation
import SemanticCRDT

// The fast codec's conformances for the household model. Each writes the bytes `JSONEncoder`
// with `.sortedKeys` writes from the synthesized `Codable` conformance (keys in ascending
// order), which `HouseholdCodecTests` checks on random households.

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
  static func parse(_ text: UnsafeBufferPointer<UInt8>) -> UUID? {
    let dash = UInt8(ascii: "-")
    guard text.count == 36, text[8] == dash, text[13] == dash, text[18] == dash, text[23] == dash
    else { return nil }
    // The 32 digits as two 64-bit halves; any non-digit sets a bit above the low four of `seen`.
    var halves: (UInt64, UInt64) = (0, 0)
    var seen: UInt8 = 0
    var position = 0
    for digit in 0..<32 {
      if position == 8 || position == 13 || position == 18 || position == 23 { position += 1 }
      let value = hexValue(text[position])
      seen |= value
      if digit < 16 {
        halves.0 = halves.0 << 4 | UInt64(value)
      } else {
        halves.1 = halves.1 << 4 | UInt64(value)
      }
      position += 1
    }
    guard seen < 0x10 else { return nil }
    var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    withUnsafeMutableBytes(of: &uuid) { bytes in
      bytes.storeBytes(of: halves.0.bigEndian, as: UInt64.self)
      bytes.storeBytes(of: halves.1.bigEndian, toByteOffset: 8, as: UInt64.self)
    }
    return UUID(uuid: uuid)
  }

  /// The value of a hex digit of either case, or 0xFF. Without branches: digits and letters
  /// come in random order, so a branch on which one it is would be mispredicted half the time.
  @inline(__always)
  private static func hexValue(_ byte: UInt8) -> UInt8 {
    let isDigit = byte &- 0x30 < 10
    let isLetter = (byte | 0x20) &- 0x61 < 6
    // '0'…'9' are 0x30…0x39 and letters 0x41…0x46 or 0x61…0x66: the low four bits, plus
    // nine for a letter (bit 6 set).
    let value = (byte & 0x0F) &+ 9 &* (byte >> 6)
    return isDigit != isLetter ? value : 0xFF
  }
}

extension CategoryKey: JSONCodable {}
extension IngredientKey: JSONCodable {}
extension SlotKey: JSONCodable {}
extension SharingScope: JSONCodable {}
extension MemberRole: JSONCodable {}

extension NormalizerVersion: JSONCodable {
  public func write(to writer: inout JSONWriter) { rawValue.write(to: &writer) }

  public init(from reader: inout JSONReader) throws(JSONError) {
    self.init(rawValue: try Int(from: &reader))
  }
}

private let creationFields = JSONFields("member", "timestamp")

extension Creation: JSONCodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.field("member", member)
    writer.field("timestamp", timestamp)
    writer.endObject()
  }

  public init(from reader: inout JSONReader) throws(JSONError) {
    var member: MemberID?
    var timestamp: HybridTimestamp?
    try reader.readObject(creationFields) { reader, field throws(JSONError) in
      if field == 0 { member = try reader.read() } else { timestamp = try reader.read() }
    }
    self.init(timestamp: timestamp.take()!, member: member.take()!)
  }
}

private let recipeSourceFields = JSONFields("_0")

extension ItemSource: JSONCodable {
  /// The synthesized enum shape: `{"manual":{}}`, `{"staple":{}}`, `{"recipe":{"_0":id}}`.
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    switch self {
    case .manual:
      writer.key("manual")
      writer.beginObject()
      writer.endObject()
    case .staple:
      writer.key("staple")
      writer.beginObject()
      writer.endObject()
    case .recipe(let id):
      writer.key("recipe")
      writer.beginObject()
      writer.field("_0", id)
      writer.endObject()
    }
    writer.endObject()
  }

  public init(from reader: inout JSONReader) throws(JSONError) {
    let start = reader.offset
    var source: ItemSource?
    try reader.readDynamicObject { reader, name throws(JSONError) in
      guard source == nil else {
        throw reader.error(.invalidValue("an item source names one case"))
      }
      switch name {
      case "manual", "staple":
        try reader.readObject(JSONFields()) { _, _ throws(JSONError) in }
        source = name == "manual" ? .manual : .staple
      case "recipe":
        var id: RecipeID?
        try reader.readObject(recipeSourceFields) { reader, _ throws(JSONError) in
          id = try reader.read()
        }
        source = .recipe(id!)
      default:
        throw reader.error(.unknownKey(name))
      }
    }
    guard let source else { throw JSONError(.invalidValue("an item source is empty"), at: start) }
    self = source
  }
}
