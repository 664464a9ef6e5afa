import SemanticCRDT

// Inlining: these conformances are generic (or called per element); @inlinable lets the module
// that encodes concrete maps and records specialize them, as the CRDTs' own code is (see
// ORMap.swift). @usableFromInline marks the field tables inlined code reads.

extension HybridTimestamp: JSONCodable {
  @inlinable
  public func write(to writer: inout JSONWriter) {
    writer.beginArray()
    writer.unsigned(wallMilliseconds)
    writer.unsigned(UInt64(logical))
    replica.write(to: &writer)
    writer.endArray()
  }

  public init(from reader: inout JSONReader) throws(JSONError) {
    self = try reader.readTuple { reader throws(JSONError) in
      let wall = try UInt64(from: &reader)
      guard wall <= HybridTimestamp.maximumWallMilliseconds else {
        throw reader.error(.numberOutOfRange("wall time \(wall) ms is after the year 9999"))
      }
      try reader.nextElement()
      let logical = try UInt32(from: &reader)
      try reader.nextElement()
      return HybridTimestamp(
        wallMilliseconds: wall, logical: logical, replica: try ReplicaID(from: &reader))
    }
  }
}
