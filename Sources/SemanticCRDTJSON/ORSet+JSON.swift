import SemanticCRDT

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
    kernel.writeRetiredKeys(to: &writer)
    writer.endObject()
  }
}

extension ORSet: JSONReadable where Element: JSONReadable {
  public init(from reader: inout JSONReader) throws(JSONError) {
    self.init(
      kernel: try reader.readCausalCollection { reader, _ throws(JSONError) in
        DotSiblings(
          unsorted: try [Dot](from: &reader).map { DottedValue(dot: $0, value: Present()) })
      }.kernel)
  }
}
