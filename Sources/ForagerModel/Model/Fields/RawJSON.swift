import SemanticCRDT
import SemanticCRDTJSON

/// One JSON value this build carries without understanding it: the value of a field a newer
/// build declared, held as the bytes that build wrote, and written back as they are.
///
/// Every CRDT kind is generic over its value, so a field this build does not know is a
/// ``FieldKind``'s CRDT of `RawJSON` and merges exactly as the declaring build's does: by
/// timestamps and dots, never by looking inside a value (ADR 0036). Two exceptions look at
/// values, and `RawJSON` orders them as a declaring build's types do:
///
/// - a max register's values are integers or booleans on the wire (``MaxRegisterValue``);
///   integers compare as numbers, `false` before `true`;
/// - anything else compares by its bytes, which only a state no build wrote can need.
///
/// A value never holds a replica id: sync messages number the replica ids of a CRDT's own
/// structure (its stamps and dots), which a build can find without knowing the value.
package struct RawJSON: Hashable, Sendable {
  /// The value's bytes: one whole JSON value, checked as it was read.
  package let bytes: [UInt8]

  /// A value of `bytes`, which must be one valid JSON value (only tests make one this way;
  /// reading checks).
  package init(validated bytes: [UInt8]) {
    self.bytes = bytes
  }
}

extension RawJSON: JSONCodable {
  /// Writes the bytes as they were read.
  package func write(to writer: inout JSONWriter) { writer.raw(bytes) }

  /// Reads any one JSON value, validated in full (grammar, UTF-8, duplicate keys, depth).
  package init(from reader: inout JSONReader) throws(JSONError) {
    bytes = try reader.readRawValue()
  }
}

extension RawJSON: Comparable {
  /// Integers by value, then `false` before `true`, then anything else by its bytes: the order
  /// of ``MaxRegisterValue``s on the wire, whatever their type.
  package static func < (lhs: RawJSON, rhs: RawJSON) -> Bool {
    switch (lhs.scalar, rhs.scalar) {
    case (.integer(let left)?, .integer(let right)?): left < right
    case (.boolean(let left)?, .boolean(let right)?): !left && right
    default: lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
  }

  private enum Scalar {
    case integer(Int64)
    case boolean(Bool)
  }

  /// The value as an integer or boolean, when it is one.
  private var scalar: Scalar? {
    switch bytes {
    case Array("true".utf8): return .boolean(true)
    case Array("false".utf8): return .boolean(false)
    default:
      guard let text = String(validating: bytes, as: UTF8.self), let value = Int64(text) else {
        return nil
      }
      return .integer(value)
    }
  }
}

extension RawJSON: Codable {
  /// Decodes any JSON value Foundation's decoder can give (null, booleans, integers, strings,
  /// arrays, objects) and keeps it as this codec writes it.
  package init(from decoder: any Decoder) throws {
    let tree = try JSONTree(from: decoder)
    var writer = JSONWriter(capacity: 64)
    tree.write(to: &writer)
    bytes = writer.bytes
  }

  /// Encodes the value through Foundation's encoder.
  package func encode(to encoder: any Encoder) throws {
    let tree = try JSONReader.decode(JSONTree.self, from: bytes)
    try tree.encode(to: encoder)
  }
}

/// A JSON value as a tree: how a ``RawJSON`` passes through Foundation's codable coders, which
/// cannot hand over bytes.
private indirect enum JSONTree: Codable, JSONCodable {
  case null
  case boolean(Bool)
  case integer(Int64)
  case string(String)
  case array([JSONTree])
  case object([(String, JSONTree)])

  private struct Key: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  init(from decoder: any Decoder) throws {
    if let container = try? decoder.container(keyedBy: Key.self) {
      self = .object(
        try container.allKeys.map {
          ($0.stringValue, try container.decode(JSONTree.self, forKey: $0))
        }
        .sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) })
    } else if var container = try? decoder.unkeyedContainer() {
      var elements: [JSONTree] = []
      while !container.isAtEnd { elements.append(try container.decode(JSONTree.self)) }
      self = .array(elements)
    } else {
      let container = try decoder.singleValueContainer()
      if container.decodeNil() {
        self = .null
      } else if let value = try? container.decode(Bool.self) {
        self = .boolean(value)
      } else if let value = try? container.decode(Int64.self) {
        self = .integer(value)
      } else {
        self = .string(try container.decode(String.self))
      }
    }
  }

  func encode(to encoder: any Encoder) throws {
    switch self {
    case .null:
      var container = encoder.singleValueContainer()
      try container.encodeNil()
    case .boolean(let value):
      var container = encoder.singleValueContainer()
      try container.encode(value)
    case .integer(let value):
      var container = encoder.singleValueContainer()
      try container.encode(value)
    case .string(let value):
      var container = encoder.singleValueContainer()
      try container.encode(value)
    case .array(let elements):
      var container = encoder.unkeyedContainer()
      for element in elements { try container.encode(element) }
    case .object(let members):
      var container = encoder.container(keyedBy: Key.self)
      for (name, value) in members { try container.encode(value, forKey: Key(stringValue: name)) }
    }
  }

  func write(to writer: inout JSONWriter) {
    switch self {
    case .null: writer.null()
    case .boolean(let value): writer.bool(value)
    case .integer(let value): writer.signed(value)
    case .string(let value): writer.string(value)
    case .array(let elements):
      writer.beginArray()
      for element in elements { element.write(to: &writer) }
      writer.endArray()
    case .object(let members):
      writer.beginObject()
      for (name, value) in members {
        writer.key(name)
        value.write(to: &writer)
      }
      writer.endObject()
    }
  }

  init(from reader: inout JSONReader) throws(JSONError) {
    switch try reader.peekByte() {
    case UInt8(ascii: "{"):
      var members: [(String, JSONTree)] = []
      try reader.readDynamicObject { reader, name throws(JSONError) in
        members.append((name, try JSONTree(from: &reader)))
      }
      self = .object(members)
    case UInt8(ascii: "["):
      self = .array(try reader.readArray(of: JSONTree.self))
    case UInt8(ascii: "\""):
      self = .string(try String(from: &reader))
    case UInt8(ascii: "t"), UInt8(ascii: "f"):
      self = .boolean(try Bool(from: &reader))
    case UInt8(ascii: "n"):
      _ = try reader.readNull()
      self = .null
    default:
      self = .integer(try Int64(from: &reader))
    }
  }
}
