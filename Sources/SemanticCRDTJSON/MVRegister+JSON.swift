import SemanticCRDT

// Inlining: these conformances are generic (or called per element); @inlinable lets the module
// that encodes concrete maps and records specialize them, as the CRDTs' own code is (see
// ORMap.swift). @usableFromInline marks the field tables inlined code reads.

/// The keys of a multi-value register's object.
@usableFromInline enum MultiValueField: String, CaseIterable, Sendable {
  case context, writes

  @usableFromInline static let fields = JSONFields<Self>()
}

extension MVRegister: JSONWritable where Value: JSONWritable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.field("context", kernel.context)
    writer.key("writes")
    writer.beginArray()
    for element in kernel.entries[SingleKey()]?.elements ?? [] {
      writer.beginArray()
      element.dot.write(to: &writer)
      writer.beginArray()
      element.value.timestamp.write(to: &writer)
      element.value.value.write(to: &writer)
      writer.endArray()
      writer.endArray()
    }
    writer.endArray()
    writer.endObject()
  }
}

extension MVRegister: JSONReadable where Value: JSONReadable {
  @inlinable
  public init(from reader: inout JSONReader) throws(JSONError) {
    let start = reader.offset
    var context = CausalContext()
    var writes: DotSiblings<Write>?
    try reader.readObject(MultiValueField.fields) { reader, field throws(JSONError) in
      switch field {
      case .context: context = try CausalContext(from: &reader)
      case .writes:
        writes = try reader.readSiblings { reader throws(JSONError) in
          try reader.readTuple { reader throws(JSONError) in
            let timestamp = try HybridTimestamp(from: &reader)
            try reader.nextElement()
            return Write(value: try Value(from: &reader), timestamp: timestamp)
          }
        }
      }
    }
    if let mismatch = writes?.elements.first(where: { $0.dot.replica != $0.value.timestamp.replica }
    ) {
      throw JSONError(
        .invalidValue("Write \(mismatch.dot) carries a timestamp of another replica"), at: start)
    }
    self.init(
      kernel: try reader.kernel(
        [writes == nil ? [] : [(SingleKey(), writes)]], context: context, startingAt: start))
  }
}
