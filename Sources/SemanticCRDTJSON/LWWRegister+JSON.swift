import SemanticCRDT

@usableFromInline let registerFields = JSONFields("timestamp", "value")

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
    try reader.readObject(registerFields) { reader, field throws(JSONError) in
      if field == 0 {
        timestamp = try HybridTimestamp(from: &reader)
      } else {
        value = try Value(from: &reader)
      }
    }
    self.init(value.take()!, at: timestamp.take()!)
  }
}
