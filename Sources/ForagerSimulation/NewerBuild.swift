import ForagerSync
import SemanticCRDT
import SemanticCRDTJSON

/// The record kind of the test-only newer build of the model: a pantry shelf, keyed by its
/// name, with one field of each kind. This build does not declare it; it carries the newer
/// build's map of shelves, `"shelves:map"`, as a map of `CarriedRecord`s (ADR 0037). The
/// `mixed-versions` scenario's devices on the newer build write shelves through it, and the
/// tests' newer build reads and writes its map typed.
package struct Shelf: DeclaredRecord, Equatable {
  /// The newer build's map of shelves, under its key in a state.
  package static let map = "shelves:map"

  package var creation: Creation
  /// Who keeps the shelf stocked: concurrent choices all kept.
  package var keepers = MVRegister<String>()
  /// The name on the shelf's label; the last write wins.
  package var label = LWWRegister("", at: HouseholdState.genesis)
  /// When it was last checked, in milliseconds since 1970: only moves forward.
  package var lastChecked = MaxRegister<Int64>(0)
  /// How many times it was restocked, on every device together.
  package var restocks = GCounter()
  package var unknownFields = UnknownFields()

  package static func fields<Visitor: FieldVisitor>(
    _ visitor: inout Visitor, _ record: inout Self, _ other: Self
  ) throws(Visitor.Failure) {
    try visitor.creation(&record.creation, other.creation)
    try visitor.field("keepers", &record.keepers, other.keepers)
    try visitor.field("label", &record.label, other.label)
    try visitor.field("lastChecked", &record.lastChecked, other.lastChecked)
    try visitor.field("restocks", &record.restocks, other.restocks)
  }

  package static let blank = Shelf(creation: .placeholder)
  package static let fieldKeys = declaredKeys()

  package init(creation: Creation) { self.creation = creation }

  package var sharingScope: SharingScope { .household }
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

extension Shelf {
  /// The shelf a carried record holds, read as the newer build reads its bytes.
  package init(_ carried: CarriedRecord) {
    // A carried record is what a newer build wrote: it reads back as one.
    self = try! JSONReader.decode(Shelf.self, from: JSONWriter.encode(carried))
  }

  /// The shelf as this build carries it.
  package var carried: CarriedRecord {
    try! JSONReader.decode(CarriedRecord.self, from: JSONWriter.encode(self))
  }
}
