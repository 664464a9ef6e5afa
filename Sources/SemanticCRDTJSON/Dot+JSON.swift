import SemanticCRDT

// Inlining: these conformances are generic (or called per element); @inlinable lets the module
// that encodes concrete maps and records specialize them, as the CRDTs' own code is (see
// ORMap.swift). @usableFromInline marks the field tables inlined code reads.

extension Dot: JSONCodable {
  @inlinable
  public func write(to writer: inout JSONWriter) {
    writer.beginArray()
    replica.write(to: &writer)
    writer.unsigned(counter)
    writer.endArray()
  }

  public init(from reader: inout JSONReader) throws(JSONError) {
    self = try reader.readTuple { reader throws(JSONError) in
      let replica = try ReplicaID(from: &reader)
      try reader.nextElement()
      let counter = try UInt64(from: &reader)
      guard counter > 0 else { throw reader.error(.invalidValue("a dot counter is 0")) }
      guard counter <= Dot.maximumCounter else {
        throw reader.error(.numberOutOfRange("dot counter \(counter) > \(Dot.maximumCounter)"))
      }
      return Dot(replica, counter)
    }
  }
}
