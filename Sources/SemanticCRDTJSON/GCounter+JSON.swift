import SemanticCRDT

extension GCounter: JSONCodable {
  public func write(to writer: inout JSONWriter) { VersionVector(contributions).write(to: &writer) }

  public init(from reader: inout JSONReader) throws(JSONError) {
    self.init(contributions: try VersionVector(from: &reader).counters)
  }
}
