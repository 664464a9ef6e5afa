import SemanticCRDT
import SemanticCRDTJSON

/// A record of a kind a newer build declared and this build does not know, held in the map of
/// its kind (``HouseholdState/subscript(carried:)``) and merged exactly as the declaring build
/// merges it (ADR 0037).
///
/// A record kind added since format 3 is identified by its key in its map and has no identity
/// parts of its own: its object holds its `creation` (the earlier wins a merge, as in every
/// kind) and its fields, each keyed with its kind (``FieldName``). So this build reads every
/// field as an unknown field, merges each by the kind its key names, and writes the record back
/// byte for byte.
package struct CarriedRecord: HouseholdRecord {
  package private(set) var creation: Creation
  package var unknownFields = UnknownFields()

  package static func fields<Visitor: FieldVisitor>(
    _ visitor: inout Visitor, _ record: inout Self, _ other: Self
  ) throws(Visitor.Failure) {
    try visitor.creation(&record.creation, other.creation)
  }

  package static let blank = CarriedRecord(creation: .placeholder)

  /// Where reading starts (``blank``): every record is read from what a newer build wrote.
  private init(creation: Creation) {
    self.creation = creation
  }

  /// This build cannot read a carried record's scope: the app never shows the record, and
  /// the household carries it for the devices that can.
  package var sharingScope: SharingScope { .household }
}

extension CarriedRecord: DeclaredRecord {
  package static let fieldKeys = declaredKeys()

  package mutating func merge(_ other: Self) { mergeFields(other) }
  package var greatestTimestamp: HybridTimestamp? { fieldsGreatestTimestamp }
  package func committed(
    over previous: @autoclosure () -> Self?, in scope: inout NestingScope
  ) -> Self {
    committedFields(over: previous, in: &scope)
  }
  package func write(to writer: inout JSONWriter) { writeFields(to: &writer) }
  package init(from reader: inout JSONReader) throws(JSONError) {
    self = try Self.readFields(from: &reader)
  }
  package func encode(to encoder: any Encoder) throws { try encodeFields(to: encoder) }
  package init(from decoder: any Decoder) throws { try self.init(decodingFieldsFrom: decoder) }
}

/// The key of a record in a map of a kind added since format 3: a string, ordered by its UTF-8
/// bytes, so that every build writes the map's entries in one order whether it knows the kind
/// or not.
package struct CarriedKey: Hashable, Comparable, Sendable, CustomStringConvertible {
  package let rawValue: String

  package init(_ rawValue: String) {
    self.rawValue = rawValue
  }

  package static func < (lhs: CarriedKey, rhs: CarriedKey) -> Bool {
    lhs.rawValue.utf8.lexicographicallyPrecedes(rhs.rawValue.utf8)
  }

  package var description: String { rawValue }
}

extension CarriedKey: JSONCodable, Codable {
  package func write(to writer: inout JSONWriter) { writer.string(rawValue) }

  package init(from reader: inout JSONReader) throws(JSONError) {
    rawValue = try reader.readString()
  }

  package init(from decoder: any Decoder) throws {
    rawValue = try decoder.singleValueContainer().decode(String.self)
  }

  package func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }
}

extension CarriedKey: NotedKey {
  /// A record this build cannot show changes nothing an app of this build displays.
  package var notedKey: RecordKey? { nil }
}

/// The names of the maps of record kinds a newer build added: their keys in a state and in a
/// version, each the kind's name and `:map` (`"shelves:map"`).
package enum CarriedMapName {
  /// The suffix that marks a key as a map of records a newer build added.
  static let suffix = ":map"

  /// Whether `key` names a map of records: a name before the suffix.
  static func isMap(_ key: String) -> Bool {
    key.utf8.count > suffix.utf8.count && key.hasSuffix(suffix)
  }

  /// The kind's name in `key`, for what a person reads ("shelves").
  static func kind(_ key: String) -> String {
    String(key.utf8.dropLast(suffix.utf8.count)) ?? key
  }

  /// The ascending union of the names in `first` and `second`, by their UTF-8 bytes.
  static func union<First: Collection<String>, Second: Collection<String>>(
    _ first: First, _ second: Second
  ) -> [String] {
    if second.isEmpty { return sorted(first) }
    if first.isEmpty { return sorted(second) }
    return sorted(Set(first).union(second))
  }

  static func sorted(_ names: some Collection<String>) -> [String] {
    names.isEmpty ? [] : names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
  }
}
