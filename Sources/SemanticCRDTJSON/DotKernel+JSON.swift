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
    // Taken, not copied: a copy of a record costs a retain per string it holds.
    guard let first = first.take() else { return nil }
    guard !more.isEmpty else { return DotSiblings(dot: first.dot, value: first.value) }
    more.insert(first, at: 0)
    return DotSiblings(unsorted: more)
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

  /// The kernel `builder` has built, turning a problem it found into an error at `start`.
  @inlinable
  func kernel<Key, Value>(
    _ builder: consuming DotKernel<Key, Value>.Builder, context: CausalContext,
    retiredKeys: Set<Key>?, startingAt start: Int
  ) throws(JSONError) -> DotKernel<Key, Value> {
    do {
      return try builder.kernel(context: context, retiredKeys: retiredKeys)
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
  /// `dots` reading one key's live dots (given the key, read just before), and validates the
  /// kernel. A delta also has
  /// `"retired": [key, …]`, each key once.
  ///
  /// With `greatest`, also returns the greatest of what it gives for each key's siblings, taken
  /// as each key is read (while its values are still in cache); `nil` without it.
  @inlinable
  mutating func readCausalCollection<Key: JSONReadable, Value>(
    dots: @Sendable (inout JSONReader, Key) throws(JSONError) -> DotSiblings<Value>?,
    greatest: (@Sendable (DotSiblings<Value>) -> HybridTimestamp?)? = nil
  ) throws(JSONError) -> (kernel: DotKernel<Key, Value>, greatestTimestamp: HybridTimestamp?) {
    let start = offset
    var context = CausalContext()
    var entries = DecodedEntries<Key, Value>()
    var retiredKeys: Set<Key>?
    try readObject(CollectionField.fields) { reader, field throws(JSONError) in
      switch field {
      case .context: context = try CausalContext(from: &reader)
      case .entries:
        entries = try reader.readEntries(
          capacityBound: context.count, dots: dots, greatest: greatest)
      case .retired:
        let start = reader.offset
        let keys = try [Key](from: &reader)
        retiredKeys = Set(keys)
        guard retiredKeys!.count == keys.count else {
          throw JSONError(.invalidValue("A delta lists a retired key twice"), at: start)
        }
      }
    }
    let greatestTimestamp = entries.greatestTimestamp
    return (
      try kernel(
        entries.takeBuilder(), context: context, retiredKeys: retiredKeys, startingAt: start),
      greatestTimestamp
    )
  }

  /// Reads `[[key, dots], …]`, on two cores when the reader was given them and the array is
  /// long.
  @inlinable
  mutating func readEntries<Key: JSONReadable, Value>(
    capacityBound: UInt64,
    dots: @Sendable (inout JSONReader, Key) throws(JSONError) -> DotSiblings<Value>?,
    greatest: (@Sendable (DotSiblings<Value>) -> HybridTimestamp?)?
  ) throws(JSONError) -> DecodedEntries<Key, Value> {
    // Every live key holds a dot of the context, so its size bounds theirs; reserving it
    // spares regrowing an array of large values (and faulting in its pages) several times.
    // Bytes bound it too, for a context far larger than what is live: reserved pages that
    // are never written cost no memory.
    let capacity = Int(min(capacityBound, UInt64(bytes.count - position) / 8))
    return DecodedEntries(
      halves: try readArrayInHalves(
        minimumBytes: JSONReader.entriesReadInHalvesAbove,
        empty: { () -> DecodedEntries<Key, Value> in DecodedEntries(reservingCapacity: capacity) },
        whileTheSecondReads: { $0.checkRead() }
      ) { (reader: inout JSONReader, part: inout DecodedEntries<Key, Value>) throws(JSONError) in
        let entry = try reader.readTuple { reader throws(JSONError) in
          let key = try Key(from: &reader)
          try reader.nextElement()
          return (key: key, siblings: try dots(&reader, key))
        }
        if let greatest, let siblings = entry.siblings, let stamp = greatest(siblings) {
          part.greatestTimestamp.raise(to: stamp)
        }
        // A half reads into the one part it starts with.
        part.parts[0].append(entry)
      })
  }
}

/// A map's or set's entries as read, in the parts they were read in, and the greatest
/// timestamp the reader was asked to find among their values; the first half's entries may be
/// checked into the kernel's table already (``checkRead()``).
@usableFromInline
struct DecodedEntries<Key: Hashable, Value> {
  @usableFromInline var parts: [[DotKernel<Key, Value>.DecodedEntry?]]
  @usableFromInline var greatestTimestamp: HybridTimestamp?
  /// The entries read before the parts, checked and in the table of the kernel being built.
  @usableFromInline var checked: DotKernel<Key, Value>.Builder?

  /// No entries.
  @inlinable
  init() {
    parts = []
  }

  /// One empty part with room for `capacity` entries.
  @inlinable
  init(reservingCapacity capacity: Int) {
    var part: [DotKernel<Key, Value>.DecodedEntry?] = []
    part.reserveCapacity(capacity)
    parts = [part]
  }

  /// The parts of `halves`, in order, and the greatest timestamp any of them found. Only the
  /// first half is ever checked before the halves join.
  @inlinable
  init(halves: consuming [DecodedEntries]) {
    parts = []
    checked = halves.isEmpty ? nil : halves[0].checked.take()
    for index in halves.indices {
      if let stamp = halves[index].greatestTimestamp { greatestTimestamp.raise(to: stamp) }
      parts += halves[index].takeParts()
    }
  }

  /// Checks the entries read so far into the table of the kernel being built: on the thread
  /// that read the first half of a long array, while the second thread reads the other. The
  /// table's room is guessed at 2⅛ times what the first half holds, the two halves being of
  /// about the same bytes; if more come, it grows once.
  @inlinable
  mutating func checkRead() {
    checked = takeBuilder(reserving: { 2 * $0 + $0 / 8 })
    // The element reader appends to the first part.
    parts = [[]]
  }

  /// The kernel being built, with every entry not yet checked added to it in order. A new
  /// one's room is `reserving` the count of the entries not yet checked.
  @inlinable
  mutating func takeBuilder(reserving: (Int) -> Int = { $0 }) -> DotKernel<Key, Value>.Builder {
    var builder =
      checked.take()
      ?? DotKernel.Builder(reservingCapacity: reserving(parts.reduce(0) { $0 + $1.count }))
    for index in parts.indices { builder.add(&parts[index]) }
    parts = []
    return builder
  }

  /// The parts, moved out: each array left with one reference, so the kernel's validation
  /// moves its entries out instead of copying them.
  @inlinable
  mutating func takeParts() -> [[DotKernel<Key, Value>.DecodedEntry?]] {
    defer { parts = [] }
    return parts
  }
}
