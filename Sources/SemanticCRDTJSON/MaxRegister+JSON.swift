import SemanticCRDT

// Inlining: generic over the value, as the other registers' conformances are (see
// LWWRegister+JSON.swift): the module that encodes a record specializes them.

extension MaxRegister: JSONWritable where Value: JSONWritable {
  /// The value itself.
  @inlinable
  public func write(to writer: inout JSONWriter) { value.write(to: &writer) }
}

extension MaxRegister: JSONReadable where Value: JSONReadable {
  /// The value itself.
  @inlinable
  public init(from reader: inout JSONReader) throws(JSONError) {
    self.init(try Value(from: &reader))
  }
}
