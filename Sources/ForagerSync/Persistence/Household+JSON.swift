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

  /// Reads canonical UUID text in either case, as `UUID(uuidString:)` accepts it.
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
  static func parse(_ text: UnsafeBufferPointer<UInt8>) -> UUID? {
    guard text.count == 36 else { return nil }
    var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    let parsed = withUnsafeMutableBytes(of: &uuid) { bytes in
      var position = 0
      for index in 0..<16 {
        if index == 4 || index == 6 || index == 8 || index == 10 {
          guard text[position] == UInt8(ascii: "-") else { return false }
          position += 1
        }
        guard let high = hexValue(text[position]), let low = hexValue(text[position + 1]) else {
          return false
        }
        bytes[index] = high << 4 | low
        position += 2
      }
      return true
    }
    return parsed ? UUID(uuid: uuid) : nil
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: byte - 0x30
    case 0x41...0x46: byte - 0x41 + 10
    case 0x61...0x66: byte - 0x61 + 10
    default: nil
    }
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
    self.init(timestamp: timestamp!, member: member!)
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
