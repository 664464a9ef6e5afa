import SemanticCRDT

// Inlining: these conformances are generic (or called per element); @inlinable lets the module
// that encodes concrete maps and records specialize them, as the CRDTs' own code is (see
// ORMap.swift). @usableFromInline marks the field tables inlined code reads.

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

extension DotKernel where Key: Comparable & JSONWritable {
  /// Writes `"retired": [key, …]` ascending, for a delta that names the keys it retires; a
  /// state writes nothing, so state files are as before.
  @inlinable
  func writeRetiredKeys(to writer: inout JSONWriter) {
    guard let retired = retiredKeys else { return }
    writer.key("retired")
    writer.beginArray()
    for key in retired.sorted() { key.write(to: &writer) }
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
    retiredKeys: Set<Key>? = nil, startingAt start: Int
  ) throws(JSONError) -> DotKernel<Key, Value> {
    do {
      return try DotKernel(validating: consume parts, context: context, retiredKeys: retiredKeys)
    } catch {
      throw JSONError(.invalidValue(error.description), at: start)
    }
  }
}

/// The keys of a map's or set's object; `retired` only in a delta.
@usableFromInline enum CollectionField: String, CaseIterable, Sendable {
  case context, entries, retired

  @usableFromInline static let fields = JSONFields<Self>(optional: [.retired])
}

extension JSONReader {
  /// The entries of a map or set are read on two cores when at least this much input remains
  /// at their start; below it a second thread costs more than it saves.
  @usableFromInline static let entriesReadInHalvesAbove = 1 << 20
}

extension JSONReader {
  /// Reads `{"context": …, "entries": [[key, dots], …]}`, the shape of ORMap and ORSet, with
  /// `dots` reading one key's live dots, and validates the kernel. A delta also has
  /// `"retired": [key, …]`, each key once.
  @inlinable
  mutating func readCausalCollection<Key: JSONReadable, Value>(
    dots: @Sendable (inout JSONReader) throws(JSONError) -> DotSiblings<Value>?
  ) throws(JSONError) -> DotKernel<Key, Value> {
    let start = offset
    var context = CausalContext()
    var parts: [[DotKernel<Key, Value>.DecodedEntry?]] = []
    var retiredKeys: Set<Key>?
    try readObject(CollectionField.fields) { reader, field throws(JSONError) in
      switch field {
      case .context: context = try CausalContext(from: &reader)
      case .entries: parts = try reader.readEntries(capacityBound: context.count, dots: dots)
      case .retired:
        let start = reader.offset
        let keys = try [Key](from: &reader)
        retiredKeys = Set(keys)
        guard retiredKeys!.count == keys.count else {
          throw JSONError(.invalidValue("A delta lists a retired key twice"), at: start)
        }
      }
    }
    return try kernel(consume parts, context: context, retiredKeys: retiredKeys, startingAt: start)
  }

  /// Reads `[[key, dots], …]`, on two cores when the reader was given them and the array is
  /// long.
  @inlinable
  mutating func readEntries<Key: JSONReadable, Value>(
    capacityBound: UInt64,
    dots: @Sendable (inout JSONReader) throws(JSONError) -> DotSiblings<Value>?
  ) throws(JSONError) -> [[DotKernel<Key, Value>.DecodedEntry?]] {
    // Every live key holds a dot of the context, so its size bounds theirs; reserving it
    // spares regrowing an array of large values (and faulting in its pages) several times.
    // Bytes bound it too, for a context far larger than what is live: reserved pages that
    // are never written cost no memory.
    let capacity = Int(min(capacityBound, UInt64(bytes.count - position) / 8))
    return try readArrayInHalves(
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
}
