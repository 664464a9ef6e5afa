import SemanticCRDT

// Inlining: these conformances are generic (or called per element); @inlinable lets the module
// that encodes concrete maps and records specialize them, as the CRDTs' own code is (see
// ORMap.swift). @usableFromInline marks the field tables inlined code reads.

extension ReplicaID: JSONCodable {
  @inlinable
  public func write(to writer: inout JSONWriter) { writer.string(rawValue) }

  public init(from reader: inout JSONReader) throws(JSONError) {
    let text = try reader.readString()
    guard !text.isEmpty else { throw reader.error(.invalidValue("a replica id is empty")) }
    self.init(text)
  }
}
