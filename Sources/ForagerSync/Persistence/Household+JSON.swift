import Foundation
import SemanticCRDT

// The fast codec's conformances for the household model. Each writes the bytes `JSONEncoder`
// with `.sortedKeys` writes from the synthesized `Codable` conformance (keys in ascending
// order), which `HouseholdCodecTests` checks on random households.

extension UUIDIdentifier {
  /// Writes the canonical upper-case text without building a `String`.
  public func write(to writer: inout JSONWriter) {
    withUnsafeBytes(of: uuid.uuid) { bytes in
      var text = [UInt8](repeating: UInt8(ascii: "-"), count: 36)
      let hex = Array("0123456789ABCDEF".utf8)
      var position = 0
      for (index, byte) in bytes.enumerated() {
        if index == 4 || index == 6 || index == 8 || index == 10 { position += 1 }
        text[position] = hex[Int(byte >> 4)]
        text[position + 1] = hex[Int(byte & 0xF)]
        position += 2
      }
      text.withUnsafeBufferPointer { writer.string(utf8: $0) }
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

extension UUID {
  static func parse(_ text: UnsafeBufferPointer<UInt8>) -> UUID? {
    guard text.count == 36 else { return nil }
    var bytes = [UInt8](repeating: 0, count: 16)
    var position = 0
    for index in 0..<16 {
      if index == 4 || index == 6 || index == 8 || index == 10 {
        guard text[position] == UInt8(ascii: "-") else { return nil }
        position += 1
      }
      guard let high = hexValue(text[position]), let low = hexValue(text[position + 1]) else {
        return nil
      }
      bytes[index] = high << 4 | low
      position += 2
    }
    return UUID(
      uuid: (
        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
        bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
      ))
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

/// Keys and enums stored as their raw text.
private protocol RawTextJSON: JSONCodable {
  var rawText: String { get }
  init?(rawText: String)
}

extension RawTextJSON {
  public func write(to writer: inout JSONWriter) { writer.string(rawText) }

  public init(from reader: inout JSONReader) throws(JSONError) {
    let start = reader.offset
    let text = try reader.readString()
    guard let value = Self(rawText: text) else {
      throw JSONError(.invalidValue("\"\(text)\" is not a valid \(Self.self)"), at: start)
    }
    self = value
  }
}

extension CategoryKey: RawTextJSON {
  var rawText: String { rawValue }
  init?(rawText: String) { self.init(rawValue: rawText) }
}

extension IngredientKey: RawTextJSON {
  var rawText: String { rawValue }
  init?(rawText: String) { self.init(rawValue: rawText) }
}

extension SlotKey: RawTextJSON {
  var rawText: String { rawValue }
  init?(rawText: String) { self.init(rawValue: rawText) }
}

extension SharingScope: RawTextJSON {
  var rawText: String { rawValue }
  init?(rawText: String) { self.init(rawValue: rawText) }
}

extension MemberRole: RawTextJSON {
  var rawText: String { rawValue }
  init?(rawText: String) { self.init(rawValue: rawText) }
}

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
