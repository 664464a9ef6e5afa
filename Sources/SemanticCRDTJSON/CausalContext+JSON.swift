import SemanticCRDT

extension CausalContext: JSONCodable {
  /// Writes `{replica: [[first, last], …], …}`, replicas in id order; while the writer numbers
  /// replicas, each key is the replica's number.
  ///
  /// Compactly (``JSONWriter/writesCompactly``), each interval is written as its distance from
  /// the one before (from 0 for the first): `gap` for a single counter, `[gap, length - 1]`
  /// otherwise. A delta's context is mostly the single dots it removes, spread over the
  /// counters, which this writes as one small number each.
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    for (replica, counters) in replicas {
      writer.key(replica)
      writer.beginArray()
      var previous: UInt64 = 0
      for range in counters.ranges {
        if writer.writesCompactly {
          let gap = range.lowerBound - previous
          if range.count == 1 {
            writer.unsigned(gap)
          } else {
            writer.beginArray()
            writer.unsigned(gap)
            writer.unsigned(range.upperBound - range.lowerBound)
            writer.endArray()
          }
          previous = range.upperBound
        } else {
          writer.beginArray()
          writer.unsigned(range.lowerBound)
          writer.unsigned(range.upperBound)
          writer.endArray()
        }
      }
      writer.endArray()
    }
    writer.endObject()
  }

  /// Reads what ``write(to:)`` writes, compactly inside ``JSONReader/readingCompactly(_:)``,
  /// refusing an interval outside 1…``Dot/maximumCounter``, a first counter past its last, an
  /// interval that does not follow the one before (compactly: a gap of 0), a replica without
  /// intervals or with more than ``CausalContext/maximumIntervalsPerReplica``, and more than
  /// ``CausalContext/maximumReplicas`` replicas.
  public init(from reader: inout JSONReader) throws(JSONError) {
    var replicas: [(ReplicaID, CounterSet)] = []
    try reader.readDynamicObject { reader, key throws(JSONError) in
      let replica = try reader.replica(key: key)
      var ranges: [ClosedRange<UInt64>] = []
      var previous: UInt64 = 0
      try reader.readArray { reader throws(JSONError) in
        let start = reader.offset
        let (first, last) =
          reader.readsCompactly
          ? try Self.readGap(from: &reader, after: previous, of: replica)
          : try reader.readTuple { reader throws(JSONError) in
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
        previous = last
      }
      guard !ranges.isEmpty else {
        throw reader.error(.invalidValue("replica \(replica) has no intervals"))
      }
      guard replicas.count < CausalContext.maximumReplicas else {
        throw reader.error(
          .invalidValue(
            "a causal context names more than \(CausalContext.maximumReplicas) replicas"))
      }
      replicas.append((replica, CounterSet(ranges)))
    }
    // A key given twice is refused by the reader; the table puts the replicas in its order.
    self.init(replicas: ReplicaTable(replicas))
  }

  /// Reads one compact interval, `gap` or `[gap, length - 1]`, after the one that ended at
  /// `previous`: its first and last counters, unchecked but for the arithmetic (a sum past
  /// 2⁶⁴ is refused here, one past ``Dot/maximumCounter`` by the caller).
  private static func readGap(
    from reader: inout JSONReader, after previous: UInt64, of replica: ReplicaID
  ) throws(JSONError) -> (UInt64, UInt64) {
    let start = reader.offset
    let (gap, extent): (UInt64, UInt64) =
      try reader.peekAfterWhitespace() == UInt8(ascii: "[")
      ? try reader.readTuple { reader throws(JSONError) in
        let gap = try UInt64(from: &reader)
        try reader.nextElement()
        return (gap, try UInt64(from: &reader))
      } : (try UInt64(from: &reader), UInt64(0))
    let (first, overflow) = previous.addingReportingOverflow(gap)
    let (last, overflowLast) = first.addingReportingOverflow(extent)
    guard gap >= 1, !overflow, !overflowLast else {
      throw JSONError(
        .invalidValue(
          "A compact interval of replica \(replica) does not follow the one before within "
            + "1…\(Dot.maximumCounter)"), at: start)
    }
    return (first, last)
  }
}
