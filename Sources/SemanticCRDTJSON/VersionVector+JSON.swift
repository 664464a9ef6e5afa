import SemanticCRDT

extension VersionVector: JSONCodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    for (replica, counter) in table {
      writer.key(replica)
      writer.unsigned(counter)
    }
    writer.endObject()
  }

  public init(from reader: inout JSONReader) throws(JSONError) {
    var counters: [(ReplicaID, UInt64)] = []
    try reader.readDynamicObject { reader, key throws(JSONError) in
      let replica = try reader.replica(key: key)
      let counter = try UInt64(from: &reader)
      guard counter > 0, counter <= Dot.maximumCounter else {
        throw reader.error(
          .invalidValue(
            "Version vector entries need a non-empty replica and a counter in 1…\(Dot.maximumCounter)"
          ))
      }
      guard counters.count < CausalContext.maximumReplicas else {
        throw reader.error(
          .invalidValue(
            "a version vector names more than \(CausalContext.maximumReplicas) replicas"))
      }
      counters.append((replica, counter))
    }
    // A key given twice is refused by the reader; the table puts the replicas in its order.
    self.init(table: ReplicaTable(counters))
  }
}
