import SemanticCRDT

extension CausalContext: JSONCodable {
  /// Writes `{replica: [[first, last], …], …}`, replicas in id order; while the writer numbers
  /// replicas, each key is the replica's number.
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    for replica in replicas.keys.sorted() {
      writer.key(replica)
      writer.beginArray()
      for range in replicas[replica]!.ranges {
        writer.beginArray()
        writer.unsigned(range.lowerBound)
        writer.unsigned(range.upperBound)
        writer.endArray()
      }
      writer.endArray()
    }
    writer.endObject()
  }

  public init(from reader: inout JSONReader) throws(JSONError) {
    var replicas: [ReplicaID: CounterSet] = [:]
    try reader.readDynamicObject { reader, key throws(JSONError) in
      let replica = try reader.replica(key: key)
      var ranges: [ClosedRange<UInt64>] = []
      try reader.readArray { reader throws(JSONError) in
        let start = reader.offset
        let (first, last) = try reader.readTuple { reader throws(JSONError) in
          let first = try UInt64(from: &reader)
          try reader.nextElement()
          return (first, try UInt64(from: &reader))
        }
        guard first >= 1, first <= last, last <= Dot.maximumCounter else {
          throw JSONError(
            .invalidValue(
              "Interval [\(first), \(last)] of replica \(replica) is not [first, last] with "
                + "1 ≤ first ≤ last ≤ \(Dot.maximumCounter)"), at: start)
        }
        // The first range may be the prefix.
        guard ranges.count <= CausalContext.maximumIntervalsPerReplica else {
          throw JSONError(
            .invalidValue(
              "replica \(replica) has more than \(CausalContext.maximumIntervalsPerReplica) intervals"
            ), at: start)
        }
        ranges.append(first...last)
      }
      guard !ranges.isEmpty else {
        throw reader.error(.invalidValue("replica \(replica) has no intervals"))
      }
      replicas[replica] = CounterSet(ranges)
      guard replicas.count <= CausalContext.maximumReplicas else {
        throw reader.error(
          .invalidValue(
            "a causal context names more than \(CausalContext.maximumReplicas) replicas"))
      }
    }
    self.init(replicas: replicas)
  }
}
