import SemanticCRDT

// Inlining: these conformances are generic (or called per element); @inlinable lets the module
// that encodes concrete maps and records specialize them, as the CRDTs' own code is (see
// ORMap.swift). @usableFromInline marks the field tables inlined code reads.

extension ORMap: JSONWritable where Key: JSONWritable & Comparable, Value: JSONWritable {
  @inlinable
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.field("context", kernel.context)
    writer.key("entries")
    kernel.writeEntries(to: &writer)
    kernel.writeRetiredKeys(to: &writer)
    writer.endObject()
  }
}

extension ORMap: JSONReadable where Key: JSONReadable, Value: JSONReadable {
  @inlinable
  public init(from reader: inout JSONReader) throws(JSONError) {
    self.init(kernel: try reader.readCausalCollection(dots: Self.readDots).kernel)
  }

  /// Reads one key's `[[dot, value], …]`.
  @inlinable
  static func readDots(_ reader: inout JSONReader, _ key: Key) throws(JSONError)
    -> DotSiblings<Boxed<Value>>?
  {
    try reader.readSiblings { reader throws(JSONError) in Boxed(try Value(from: &reader)) }
  }
}

extension ORMap where Key: JSONReadable, Value: JSONReadable & HybridTimestamped {
  /// Reads a map as ``init(from:)`` does, and its ``greatestTimestamp``, found as each key is
  /// read rather than by a second pass over the map: the pass would miss the cache once per
  /// value, the reader finds each value still in it.
  ///
  /// - Complexity: that of ``init(from:)``.
  @inlinable
  package static func readFindingGreatestTimestamp(
    from reader: inout JSONReader
  ) throws(JSONError) -> (map: ORMap, greatestTimestamp: HybridTimestamp?) {
    let read: (kernel: DotKernel<Key, Boxed<Value>>, greatestTimestamp: HybridTimestamp?) =
      try reader.readCausalCollection(dots: Self.readDots) { $0.greatestTimestamp() }
    return (ORMap(kernel: read.kernel), read.greatestTimestamp)
  }

  /// Reads a map as ``readFindingGreatestTimestamp(from:)`` does, each value by `value`, which
  /// is given the key it is read under: for an encoding whose values leave out what their key
  /// says (``JSONWriter/writesCompactly``).
  @inlinable
  package static func readFindingGreatestTimestamp(
    from reader: inout JSONReader,
    value: @escaping @Sendable (inout JSONReader, Key) throws(JSONError) -> Value
  ) throws(JSONError) -> (map: ORMap, greatestTimestamp: HybridTimestamp?) {
    let read: (kernel: DotKernel<Key, Boxed<Value>>, greatestTimestamp: HybridTimestamp?) =
      try reader.readCausalCollection(
        dots: { reader, key throws(JSONError) in
          try reader.readSiblings { reader throws(JSONError) in Boxed(try value(&reader, key)) }
        }
      ) { $0.greatestTimestamp() }
    return (ORMap(kernel: read.kernel), read.greatestTimestamp)
  }
}
