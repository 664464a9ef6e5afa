import SemanticCRDT

// Inlining: these conformances are generic (or called per element); @inlinable lets the module
// that encodes concrete maps and records specialize them, as the CRDTs' own code is (see
// ORMap.swift). @usableFromInline marks the field tables inlined code reads.

/// The keys of a register's object.
@usableFromInline enum RegisterField: String, CaseIterable, Sendable {
  case timestamp, value

  @usableFromInline static let fields = JSONFields<Self>()
}

extension LWWRegister: JSONWritable where Value: JSONWritable {
  @inlinable
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.field("timestamp", timestamp)
    writer.field("value", value)
    writer.endObject()
  }
}

extension LWWRegister: JSONReadable where Value: JSONReadable {
  @inlinable
  public init(from reader: inout JSONReader) throws(JSONError) {
    var timestamp: HybridTimestamp?
    var value: Value?
    try reader.readObject(RegisterField.fields) { reader, field throws(JSONError) in
      switch field {
      case .timestamp: timestamp = try HybridTimestamp(from: &reader)
      case .value: value = try Value(from: &reader)
      }
    }
    self.init(value.take()!, at: timestamp.take()!)
  }
}
