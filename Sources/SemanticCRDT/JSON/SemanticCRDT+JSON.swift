// The fast codec's conformances for the SemanticCRDT types. Each writes exactly the bytes
// `JSONEncoder` with `.sortedKeys` writes from the type's `Codable` conformance (see
// docs/format.md), and reads with the same validation, so the two codecs are interchangeable.

extension ReplicaID: JSONCodable {
  @inlinable
  public func write(to writer: inout JSONWriter) { writer.string(rawValue) }

  public init(from reader: inout JSONReader) throws(JSONError) {
    let text = try reader.readString()
    guard !text.isEmpty else { throw reader.error(.invalidValue("a replica id is empty")) }
    self.init(text)
  }
}

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

extension CausalContext: JSONCodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    for replica in replicas.keys.sorted() {
      writer.key(replica.rawValue)
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
    try reader.readDynamicObject { reader, replica throws(JSONError) in
      guard !replica.isEmpty else { throw reader.error(.invalidValue("a replica id is empty")) }
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
        ranges.append(first...last)
      }
      guard !ranges.isEmpty else {
        throw reader.error(.invalidValue("replica \(replica) has no intervals"))
      }
      replicas[ReplicaID(replica)] = CounterSet(ranges)
      guard replicas.count <= CausalContext.maximumReplicas else {
        throw reader.error(
          .invalidValue(
            "a causal context names more than \(CausalContext.maximumReplicas) replicas"))
      }
    }
    self.init(replicas: replicas)
  }
}

extension VersionVector: JSONCodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    for replica in counters.keys.sorted() {
      writer.key(replica.rawValue)
      writer.unsigned(counters[replica]!)
    }
    writer.endObject()
  }

  public init(from reader: inout JSONReader) throws(JSONError) {
    var counters: [ReplicaID: UInt64] = [:]
    try reader.readDynamicObject { reader, replica throws(JSONError) in
      let counter = try UInt64(from: &reader)
      guard !replica.isEmpty, counter > 0, counter <= Dot.maximumCounter else {
        throw reader.error(
          .invalidValue(
            "Version vector entries need a non-empty replica and a counter in 1…\(Dot.maximumCounter)"
          ))
      }
      counters[ReplicaID(replica)] = counter
      guard counters.count <= CausalContext.maximumReplicas else {
        throw reader.error(
          .invalidValue(
            "a version vector names more than \(CausalContext.maximumReplicas) replicas"))
      }
    }
    self.init(counters)
  }
}

extension GCounter: JSONCodable {
  public func write(to writer: inout JSONWriter) { VersionVector(contributions).write(to: &writer) }

  public init(from reader: inout JSONReader) throws(JSONError) {
    self.init(contributions: try VersionVector(from: &reader).counters)
  }
}

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

// MARK: - Dot-kernel collections

extension DotKernel where Key: Comparable & JSONWritable, Value: JSONWritable {
  /// Writes `[key, [[dot, value], …]]` per key, ascending by key, dots ascending.
  @inlinable
  func writeEntries(to writer: inout JSONWriter) {
    writer.beginArray()
    for (key, siblings) in sortedEntries() {
      writer.beginArray()
      key.write(to: &writer)
      writer.beginArray()
      siblings.forEachElement { dot, value in
        writer.beginArray()
        dot.write(to: &writer)
        value.write(to: &writer)
        writer.endArray()
      }
      writer.endArray()
      writer.endArray()
    }
    writer.endArray()
  }
}

extension JSONReader {
  /// Reads `[[dot, value], …]`: `nil` for an empty list, and one sibling without an array.
  /// Several come unsorted, for the kernel's validation to sort and check.
  @inlinable
  mutating func readSiblings<Value>(
    _ value: (inout JSONReader) throws(JSONError) -> Value
  ) throws(JSONError) -> DotSiblings<Value>? {
    var first: DottedValue<Value>?
    var more: [DottedValue<Value>] = []
    try readArray { reader throws(JSONError) in
      let sibling = try reader.readTuple { reader throws(JSONError) in
        let dot = try Dot(from: &reader)
        try reader.nextElement()
        return DottedValue(dot: dot, value: try value(&reader))
      }
      if first == nil { first = sibling } else { more.append(sibling) }
    }
    guard let first else { return nil }
    return more.isEmpty ? .one(first.dot, first.value) : DotSiblings(unsorted: [first] + more)
  }

  /// Builds a kernel from decoded entries, turning a broken invariant into an error at `start`.
  @inlinable
  func kernel<Key, Value>(
    _ parts: consuming [[DotKernel<Key, Value>.DecodedEntry?]], context: CausalContext,
    startingAt start: Int
  ) throws(JSONError) -> DotKernel<Key, Value> {
    do {
      return try DotKernel(validating: consume parts, context: context)
    } catch {
      throw JSONError(.invalidValue(error.description), at: start)
    }
  }
}

@usableFromInline let collectionFields = JSONFields("context", "entries")

extension JSONReader {
  /// The entries of a map or set are read on two cores when at least this much input remains
  /// at their start; below it a second thread costs more than it saves.
  @usableFromInline static let entriesReadInHalvesAbove = 1 << 20
}

extension JSONReader {
  /// Reads `{"context": …, "entries": [[key, dots], …]}`, the shape of ORMap and ORSet, with
  /// `dots` reading one key's live dots, and validates the kernel.
  @inlinable
  mutating func readCausalCollection<Key: JSONReadable, Value>(
    dots: (inout JSONReader) throws(JSONError) -> DotSiblings<Value>?
  ) throws(JSONError) -> DotKernel<Key, Value> {
    let start = offset
    var context = CausalContext()
    var parts: [[DotKernel<Key, Value>.DecodedEntry?]] = []
    try readObject(collectionFields) { reader, field throws(JSONError) in
      if field == 0 {
        context = try CausalContext(from: &reader)
        return
      }
      // Every live key holds a dot of the context, so its size bounds theirs; reserving it
      // spares regrowing an array of large values (and faulting in its pages) several times.
      // Bytes bound it too, for a context far larger than what is live: reserved pages that
      // are never written cost no memory.
      let capacity = Int(min(context.count, UInt64(reader.bytes.count - reader.position) / 8))
      parts = try reader.readArrayInHalves(
        minimumBytes: JSONReader.entriesReadInHalvesAbove,
        empty: { () -> [DotKernel<Key, Value>.DecodedEntry?] in
          var part: [DotKernel<Key, Value>.DecodedEntry?] = []
          part.reserveCapacity(capacity)
          return part
        }
      ) {
        (reader: inout JSONReader, part: inout [DotKernel<Key, Value>.DecodedEntry?])
          throws(JSONError) in
        part.append(
          try reader.readTuple { reader throws(JSONError) in
            let key = try Key(from: &reader)
            try reader.nextElement()
            return (key, try dots(&reader))
          })
      }
    }
    return try kernel(consume parts, context: context, startingAt: start)
  }
}
@usableFromInline let multiValueFields = JSONFields("context", "writes")

extension ORMap: JSONWritable where Key: JSONWritable & Comparable, Value: JSONWritable {
  @inlinable
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.field("context", kernel.context)
    writer.key("entries")
    kernel.writeEntries(to: &writer)
    writer.endObject()
  }
}

extension ORMap: JSONReadable where Key: JSONReadable, Value: JSONReadable {
  @inlinable
  public init(from reader: inout JSONReader) throws(JSONError) {
    self.init(
      kernel: try reader.readCausalCollection { reader throws(JSONError) in
        try reader.readSiblings { reader throws(JSONError) in Boxed(try Value(from: &reader)) }
      })
  }
}

extension ORSet: JSONWritable where Element: JSONWritable & Comparable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.field("context", kernel.context)
    writer.key("entries")
    writer.beginArray()
    for (element, siblings) in kernel.sortedEntries() {
      writer.beginArray()
      element.write(to: &writer)
      writer.beginArray()
      siblings.forEachDot { $0.write(to: &writer) }
      writer.endArray()
      writer.endArray()
    }
    writer.endArray()
    writer.endObject()
  }
}

extension ORSet: JSONReadable where Element: JSONReadable {
  public init(from reader: inout JSONReader) throws(JSONError) {
    self.init(
      kernel: try reader.readCausalCollection { reader throws(JSONError) in
        DotSiblings(
          unsorted: try [Dot](from: &reader).map { DottedValue(dot: $0, value: Present()) })
      })
  }
}

extension MVRegister: JSONWritable where Value: JSONWritable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.field("context", kernel.context)
    writer.key("writes")
    writer.beginArray()
    for element in kernel.entries[SingleKey()]?.elements ?? [] {
      writer.beginArray()
      element.dot.write(to: &writer)
      writer.beginArray()
      element.value.timestamp.write(to: &writer)
      element.value.value.write(to: &writer)
      writer.endArray()
      writer.endArray()
    }
    writer.endArray()
    writer.endObject()
  }
}

extension MVRegister: JSONReadable where Value: JSONReadable {
  @inlinable
  public init(from reader: inout JSONReader) throws(JSONError) {
    let start = reader.offset
    var context = CausalContext()
    var writes: DotSiblings<Write>?
    try reader.readObject(multiValueFields) { reader, field throws(JSONError) in
      if field == 0 {
        context = try CausalContext(from: &reader)
        return
      }
      writes = try reader.readSiblings { reader throws(JSONError) in
        try reader.readTuple { reader throws(JSONError) in
          let timestamp = try HybridTimestamp(from: &reader)
          try reader.nextElement()
          return Write(value: try Value(from: &reader), timestamp: timestamp)
        }
      }
    }
    if let mismatch = writes?.elements.first(where: { $0.dot.replica != $0.value.timestamp.replica }
    ) {
      throw JSONError(
        .invalidValue("Write \(mismatch.dot) carries a timestamp of another replica"), at: start)
    }
    self.init(
      kernel: try reader.kernel(
        [writes == nil ? [] : [(SingleKey(), writes)]], context: context, startingAt: start))
  }
}
