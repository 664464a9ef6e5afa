import SemanticCRDT
import SemanticCRDTJSON

// The fast codec of a declared record: its parts in the order of their keys, a field at its
// default left out, the unknown fields among them in key order.

extension DeclaredRecord {
  /// Writes the record: each part in its declared order (its keys' order), a field left out
  /// while it holds its default, the unknown fields each where its key sorts.
  ///
  /// - Complexity: O(size of the record).
  package func writeFields(to writer: inout JSONWriter) {
    writer.beginObject()
    var remaining = unknownFields.entries[...]
    withUnsafeMutablePointer(to: &writer) { writer in
      withUnsafeMutablePointer(to: &remaining) { remaining in
        var visitor = FieldWriting(writer: writer, unknown: remaining)
        inspectFields(with: &visitor)
        if !remaining.pointee.isEmpty {
          UnknownFields.write(&remaining.pointee, before: nil, to: &writer.pointee)
        }
      }
    }
    writer.endObject()
  }

  /// Reads a record: its identity required, each field absent taking its default, a key this
  /// build does not know kept among the unknown fields if it names its kind.
  ///
  /// - Throws: `JSONError`: a missing identity, a key twice, a key that names no kind this build
  ///   knows, and whatever a part's own reader refuses.
  package static func readFields(from reader: inout JSONReader) throws(JSONError) -> Self {
    var record = blank
    let start = reader.offset
    try reader.readObject(
      fieldKeys,
      { reader, index throws(JSONError) in
        try withUnsafeMutablePointer(to: &reader) { reader throws(JSONError) in
          var visitor = FieldReading(reader: reader, target: index)
          try fields(&visitor, &record, blank)
        }
      },
      unknown: { reader, key throws(JSONError) in
        let offset = reader.offset
        try record.unknownFields.read(key, from: &reader, at: offset)
      })
    if !record.unknownFields.isEmpty { try record.unknownFields.finishReading(at: start) }
    return record
  }

  /// The keys of the record's parts, in order, its identity required: for a kind's
  /// `static let fieldKeys`, built once.
  package static func declaredKeys() -> JSONKeys {
    var visitor = FieldNaming()
    var record = blank
    fields(&visitor, &record, blank)
    return JSONKeys(visitor.names, optional: visitor.optional)
  }
}

/// The parts' keys, and which may be absent (the fields, each at its default then).
struct FieldNaming: FieldVisitor {
  typealias Failure = Never
  var names: [String] = []
  var optional: Set<Int> = []

  mutating func identity<Value: IdentityValue>(
    _ name: StaticString, _ value: inout Value, _ other: Value
  ) {
    names.append(name.description)
  }

  mutating func creation(_ value: inout Creation, _ other: Creation) {
    names.append("creation")
  }

  mutating func field<Field: RecordField>(_ name: FieldName, _ value: inout Field, _ other: Field) {
    optional.insert(names.count)
    names.append(name.key(Field.kind))
  }
}

private struct FieldWriting: FieldVisitor {
  typealias Failure = Never
  let writer: UnsafeMutablePointer<JSONWriter>
  /// The unknown fields not yet written.
  let unknown: UnsafeMutablePointer<ArraySlice<UnknownFields.Entry>>

  mutating func identity<Value: IdentityValue>(
    _ name: StaticString, _ value: inout Value, _ other: Value
  ) {
    writeUnknown(before: name, nil)
    writer.pointee.key(name)
    value.write(to: &writer.pointee)
  }

  mutating func creation(_ value: inout Creation, _ other: Creation) {
    identity("creation", &value, other)
  }

  /// Leaves the field out while it equals `other`, the blank record's: its default.
  mutating func field<Field: RecordField>(_ name: FieldName, _ value: inout Field, _ other: Field) {
    guard value != other else { return }
    if name.isBare {
      writeUnknown(before: name.name, nil)
      writer.pointee.key(name.name)
    } else {
      writeUnknown(before: name.name, Field.kind.keySuffix)
      writer.pointee.key(name.name, Field.kind.keySuffix)
    }
    value.write(to: &writer.pointee)
  }

  /// Writes the unknown fields whose keys sort before `name` and `suffix` together.
  private func writeUnknown(before name: StaticString, _ suffix: StaticString?) {
    guard !unknown.pointee.isEmpty else { return }
    var key = Array(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    if let suffix {
      key += UnsafeBufferPointer(start: suffix.utf8Start, count: suffix.utf8CodeUnitCount)
    }
    key.withUnsafeBufferPointer {
      UnknownFields.write(&unknown.pointee, before: $0, to: &writer.pointee)
    }
  }
}

private struct FieldReading: FieldVisitor {
  typealias Failure = JSONError
  let reader: UnsafeMutablePointer<JSONReader>
  /// The index of the part whose key was read.
  let target: Int
  var index = 0

  mutating func identity<Value: IdentityValue>(
    _ name: StaticString, _ value: inout Value, _ other: Value
  ) throws(JSONError) {
    if index == target { value = try Value(from: &reader.pointee) }
    index += 1
  }

  mutating func creation(_ value: inout Creation, _ other: Creation) throws(JSONError) {
    try identity("creation", &value, other)
  }

  mutating func field<Field: RecordField>(_ name: FieldName, _ value: inout Field, _ other: Field)
    throws(JSONError)
  {
    if index == target { value = try Field(from: &reader.pointee) }
    index += 1
  }
}
