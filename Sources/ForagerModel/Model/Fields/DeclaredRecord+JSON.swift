import SemanticCRDT
import SemanticCRDTJSON

// The fast codec of a declared record: its parts in the order of their keys, a field at its
// default left out, the unknown fields among them in key order.

extension DeclaredRecord {
  /// Writes the record: each part in its declared order (its keys' order), a field left out
  /// while it holds its default, the unknown fields each where its key sorts.
  ///
  /// Compactly (``JSONWriter/writesCompactly``), the part that is the record's key in its map
  /// (``keyPartType``) is left out: the map's entry says it.
  ///
  /// - Complexity: O(size of the record).
  package func writeFields(to writer: inout JSONWriter) {
    writer.beginObject()
    var remaining = unknownFields.entries[...]
    let omitted = writer.writesCompactly ? Self.keyPartType.map(ObjectIdentifier.init) : nil
    withUnsafeMutablePointer(to: &writer) { writer in
      withUnsafeMutablePointer(to: &remaining) { remaining in
        var visitor = FieldWriting(writer: writer, unknown: remaining, omitted: omitted)
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
    try readFields(from: &reader, over: blank, keys: fieldKeys, refusing: nil)
  }

  /// Reads a record as ``readFields(from:)`` does, over `record`, by `keys`, refusing the part
  /// at `refused`: for the compact encoding (``readFields(from:key:compactly:)``).
  static func readFields(
    from reader: inout JSONReader, over record: Self, keys: JSONKeys, refusing refused: Int?
  ) throws(JSONError) -> Self {
    var record = record
    let start = reader.offset
    try reader.readObject(
      keys,
      { reader, index throws(JSONError) in
        guard index != refused else {
          throw reader.error(
            .invalidValue(
              "a compact record writes \"\(keys.names[index])\", which its entry's key says"))
        }
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

  /// Not kept in a map.
  package static var keyPartType: Any.Type? { nil }

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
  /// The type of the identity part left out, if any.
  let omitted: ObjectIdentifier?

  mutating func identity<Value: IdentityValue>(
    _ name: StaticString, _ value: inout Value, _ other: Value
  ) {
    if let omitted, ObjectIdentifier(Value.self) == omitted { return }
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

extension MappedRecord {
  /// The record's key in its map: the part the compact encoding leaves out.
  package static var keyPartType: Any.Type? { Key.self }

  /// How the compact encoding reads a record of this kind (``readFields(from:key:compactly:)``):
  /// its keys with the key part optional, and that part's index among them (`nil` for a kind
  /// whose identity does not hold its key: a carried kind's).
  package static func compactReading() -> (keys: JSONKeys, keyPart: Int?) {
    var finding = KeyPartFinding(keyType: ObjectIdentifier(Key.self))
    var record = blank
    fields(&finding, &record, blank)
    return (finding.index.map(fieldKeys.makingOptional) ?? fieldKeys, finding.index)
  }

  /// Reads a record in the compact encoding, under `key` in its map: as
  /// ``readFields(from:)`` does, its key part taken from `key` and refused if written.
  ///
  /// - Parameter compactly: ``compactReading()``, made once per map.
  package static func readFields(
    from reader: inout JSONReader, key: Key, compactly: (keys: JSONKeys, keyPart: Int?)
  ) throws(JSONError) -> Self {
    var record = blank
    var filling = KeyPartFilling(key: key)
    fields(&filling, &record, blank)
    return try readFields(
      from: &reader, over: record, keys: compactly.keys, refusing: compactly.keyPart)
  }
}

/// The index, among a record's parts, of the identity part of the key's type.
private struct KeyPartFinding: FieldVisitor {
  typealias Failure = Never
  let keyType: ObjectIdentifier
  var count = 0
  var index: Int?

  mutating func identity<Value: IdentityValue>(
    _ name: StaticString, _ value: inout Value, _ other: Value
  ) {
    if ObjectIdentifier(Value.self) == keyType { index = count }
    count += 1
  }

  mutating func creation(_ value: inout Creation, _ other: Creation) { count += 1 }

  mutating func field<Field: RecordField>(_ name: FieldName, _ value: inout Field, _ other: Field) {
    count += 1
  }
}

/// Sets the identity part of the key's type to the key.
private struct KeyPartFilling<Key>: FieldVisitor {
  typealias Failure = Never
  let key: Key

  mutating func identity<Value: IdentityValue>(
    _ name: StaticString, _ value: inout Value, _ other: Value
  ) {
    if let key = key as? Value { value = key }
  }

  mutating func creation(_ value: inout Creation, _ other: Creation) {}

  mutating func field<Field: RecordField>(_ name: FieldName, _ value: inout Field, _ other: Field) {
  }
}
