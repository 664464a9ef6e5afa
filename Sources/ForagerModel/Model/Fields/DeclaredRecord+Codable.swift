import SemanticCRDT
import SemanticCRDTJSON

// Foundation's codable coders for a declared record: the shape the fast codec writes (a field
// at its default left out, the unknown fields kept), with `JSONEncoder`'s `.sortedKeys`.

/// A key of a record's object in Foundation's coders.
struct FieldCodingKey: CodingKey {
  let stringValue: String
  var intValue: Int? { nil }
  init(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}

extension DeclaredRecord {
  /// Encodes the record as ``writeFields(to:)`` writes it.
  package func encodeFields(to encoder: any Encoder) throws {
    var visitor = FieldEncoding(container: encoder.container(keyedBy: FieldCodingKey.self))
    try inspectFields(with: &visitor)
    try unknownFields.encode(to: &visitor.container) { FieldCodingKey(stringValue: $0) }
  }

  /// Decodes a record as ``readFields(from:)`` reads one.
  package init(decodingFieldsFrom decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: FieldCodingKey.self)
    var record = Self.blank
    var seen = Set<Int>()
    for key in container.allKeys {
      guard let index = Self.fieldKeys.names.firstIndex(of: key.stringValue) else {
        try record.unknownFields.decode(key, from: container)
        continue
      }
      seen.insert(index)
      var visitor = FieldDecoding(container: container, key: key, target: index)
      try Self.fields(&visitor, &record, Self.blank)
    }
    do {
      try record.unknownFields.finishReading(at: 0)
    } catch {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: decoder.codingPath, debugDescription: error.problem.description))
    }
    if let missing = Self.fieldKeys.requiredIndexes.first(where: { !seen.contains($0) }) {
      throw DecodingError.keyNotFound(
        FieldCodingKey(stringValue: Self.fieldKeys.names[missing]),
        DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "a required key"))
    }
    self = record
  }
}

private struct FieldEncoding: FieldVisitor {
  typealias Failure = any Error
  var container: KeyedEncodingContainer<FieldCodingKey>

  mutating func identity<Value: IdentityValue>(
    _ name: StaticString, _ value: inout Value, _ other: Value
  ) throws {
    try container.encode(value, forKey: FieldCodingKey(stringValue: name.description))
  }

  mutating func creation(_ value: inout Creation, _ other: Creation) throws {
    try identity("creation", &value, other)
  }

  mutating func field<Field: RecordField>(_ name: FieldName, _ value: inout Field, _ other: Field)
    throws
  {
    guard value != other else { return }
    try container.encode(value, forKey: FieldCodingKey(stringValue: name.key(Field.kind)))
  }
}

private struct FieldDecoding: FieldVisitor {
  typealias Failure = any Error
  let container: KeyedDecodingContainer<FieldCodingKey>
  let key: FieldCodingKey
  let target: Int
  var index = 0

  mutating func identity<Value: IdentityValue>(
    _ name: StaticString, _ value: inout Value, _ other: Value
  ) throws {
    if index == target { value = try container.decode(Value.self, forKey: key) }
    index += 1
  }

  mutating func creation(_ value: inout Creation, _ other: Creation) throws {
    try identity("creation", &value, other)
  }

  mutating func field<Field: RecordField>(_ name: FieldName, _ value: inout Field, _ other: Field)
    throws
  {
    if index == target { value = try container.decode(Field.self, forKey: key) }
    index += 1
  }
}
