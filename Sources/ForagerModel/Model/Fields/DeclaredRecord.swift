import SemanticCRDT
import SemanticCRDTJSON

/// A record kind whose parts are declared once, in ``fields(_:_:_:)``: everything done to its
/// fields one by one (merge, commit into a map, greatest timestamp, both codecs, the writes of
/// given replicas) is derived from that declaration by a ``FieldVisitor``, in
/// DeclaredRecord+Operations.swift and the codecs beside it (ADR 0036).
///
/// A field is a stored property whose initial value is its default: the value of a record
/// written before the field existed, which the encodings leave out. Adding one is two lines,
/// the property and its line in the declaration.
package protocol DeclaredRecord: HouseholdRecord, JSONCodable {
  /// Calls `visitor` with each part of `record`, in the order of their keys' UTF-8 bytes (the
  /// order the codecs write them, which a test checks), paired with the same part of `other`.
  ///
  /// Only the operation that needs a second record reads `other`: a merge gives the record it
  /// merges in, a commit the previous one; the others give ``blank``.
  static func fields<Visitor: FieldVisitor>(
    _ visitor: inout Visitor, _ record: inout Self, _ other: Self
  ) throws(Visitor.Failure)

  /// A record whose identity is a placeholder and whose every field has its default: where
  /// decoding starts, and what the encoders compare a field with to leave a default out.
  static var blank: Self { get }

  /// The type of the part of the record's identity that is its key in its map, which the
  /// compact encoding leaves out (DeclaredRecord+JSON.swift): the map's key type for a kind
  /// kept in one (``MappedRecord``), `nil` otherwise.
  static var keyPartType: Any.Type? { get }

  /// The keys of the record's parts, built once from the declaration by
  /// ``declaredKeys()`` (a `static let`).
  static var fieldKeys: JSONKeys { get }

  /// The fields a newer build wrote that this build does not know, merged by their kinds and
  /// written back unchanged.
  var unknownFields: UnknownFields { get set }
}

extension DeclaredRecord {
  /// Calls the declaration with `visitor` over this record in place, paired with `other`
  /// (``blank`` unless given): for an operation that only reads the parts (a writer, the
  /// greatest timestamp, a comparison), which would otherwise copy the record to pass it
  /// `inout`, and a copy costs a retain and a release per string and array the record holds.
  ///
  /// - Precondition: `visitor` writes no part it is given.
  @inline(__always)
  package func inspectFields<Visitor: FieldVisitor>(
    with visitor: inout Visitor, pairedWith other: Self = blank
  ) throws(Visitor.Failure) {
    try withUnsafePointer(to: self) { record throws(Visitor.Failure) in
      try Self.fields(&visitor, &UnsafeMutablePointer(mutating: record).pointee, other)
    }
  }
}

/// An operation over a record's parts, one at a time, generic over each part's type, so that
/// each is specialized for it. The record kind's ``DeclaredRecord/fields(_:_:_:)`` calls it
/// with each part, paired with the same part of a second record.
package protocol FieldVisitor {
  /// What the operation may throw: `Never` for all but reading.
  associatedtype Failure: Error

  /// A part of the record's identity (its key, id, list, source): required, written bare, the
  /// same on every replica, so a merge leaves it alone.
  mutating func identity<Value: IdentityValue>(
    _ name: StaticString, _ value: inout Value, _ other: Value
  ) throws(Failure)

  /// The record's ``Creation``: required, written bare as `"creation"`; the earlier wins a merge.
  mutating func creation(_ value: inout Creation, _ other: Creation) throws(Failure)

  /// A CRDT field: left out of the encodings at its default; keyed by its name alone if format
  /// 3 had it, by its name and kind (``FieldName``) if not.
  mutating func field<Field: RecordField>(
    _ name: FieldName, _ value: inout Field, _ other: Field
  ) throws(Failure)
}

/// The type of a part of a record's identity.
package typealias IdentityValue = Equatable & Sendable & JSONCodable & Codable

/// A field's name in the declaration, and so on the wire.
///
/// A string literal names a field added since format 3: its key adds its kind
/// (`"note"` is written `"note:lww"`), so that a build that does not know it can merge it
/// (``FieldKind``). ``bare(_:)`` names a field format 3 had, which every build knows: written as
/// format 3 wrote it.
package struct FieldName: ExpressibleByStringLiteral, Sendable {
  /// The name.
  package let name: StaticString
  /// Whether the key is the name alone.
  package let isBare: Bool

  package init(stringLiteral name: StaticString) {
    self.name = name
    isBare = false
  }

  private init(bare name: StaticString) {
    self.name = name
    isBare = true
  }

  /// A field format 3 had, keyed by its name alone.
  package static func bare(_ name: StaticString) -> FieldName { FieldName(bare: name) }

  /// The key of a field of `kind` of this name.
  package func key(_ kind: FieldKind) -> String {
    isBare ? name.description : "\(name):\(kind.rawValue)"
  }
}
