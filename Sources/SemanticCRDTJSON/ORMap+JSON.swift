import SemanticCRDT

// Inlining: these conformances are generic (or called per element); @inlinable lets the module
// that encodes concrete maps and records specialize them, as the CRDTs' own code is (see
// ORMap.swift). @usableFromInline marks the field tables inlined code reads.

extension ORMap: JSONWritable where Key: JSONWritable & Comparable, Value: JSONWritable {
  @inlinable
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.field("context", kernel.context)
    writer.key("entries")
    kernel.writeEntries(to: &writer)
    kernel.writeRetiredKeys(to: &writer)
    writer.endObject()
  }
}

extension ORMap: JSONReadable where Key: JSONReadable, Value: JSONReadable {
  @inlinable
  public init(from reader: inout JSONReader) throws(JSONError) {
    self.init(
      kernel: try reader.readCausalCollection { reader throws(JSONError) in
        try reader.readSiblings { reader throws(JSONError) in Boxed(try Value(from: &reader)) }
      })
  }
}
