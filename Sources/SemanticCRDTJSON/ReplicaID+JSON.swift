import SemanticCRDT

extension ReplicaID: JSONCodable {
  @inlinable
  public func write(to writer: inout JSONWriter) { writer.string(rawValue) }

  public init(from reader: inout JSONReader) throws(JSONError) {
    let text = try reader.readString()
    guard !text.isEmpty else { throw reader.error(.invalidValue("a replica id is empty")) }
    self.init(text)
  }
}
