import SemanticCRDT
import SemanticCRDTJSON

/// The CRDTs a record's field can be. Every build knows every kind, so a build merges a field
/// it does not know exactly as the build that declared it does, once it knows the kind: a
/// field added since format 3 names its kind in its key (`"note:lww"`), and its value stays
/// opaque JSON (``RawJSON``). A new kind needs a new major version of the format.
package enum FieldKind: String, CaseIterable, Sendable {
  /// A last-writer-wins register (``LWWRegister``): the write with the greatest hybrid
  /// timestamp wins.
  case lastWriterWins = "lww"
  /// A multi-value register (``MVRegister``): concurrent writes all survive until a later
  /// write that has seen them.
  case multiValue = "mv"
  /// A grow-only counter (``GCounter``): increments on every device add up.
  case counter = "counter"
  /// A max register (``MaxRegister``): the greatest value written wins, whenever it was
  /// written.
  case maximum = "max"

  /// Whether a field of this kind holds dots, which a map's write commits (see `Nestable`).
  var holdsDots: Bool { self == .multiValue }

  /// The separator between a field's name and its kind in a key.
  static let separator = UInt8(ascii: ":")

  /// The kind a key such as `"note:lww"` names, and the name before it; `nil` for a key that
  /// names no kind (a field format 3 had, written bare).
  static func parse(_ key: String) -> (name: Substring, kind: FieldKind?)? {
    guard let colon = key.utf8.lastIndex(of: separator) else { return nil }
    return (key[..<colon], FieldKind(rawValue: String(key[key.index(after: colon)...])))
  }
}

/// A CRDT a record can hold as one field, with what the household's operations need of it:
/// its merge and commit into a map (`Nestable`), both codecs, what it shows apart from its
/// stamps (`ShowsValue`), its greatest timestamp, and the writes of given replicas it holds
/// (ADR 0029).
///
/// The conformances are the ``FieldKind``s; ``RawJSON`` instantiates each of them for fields
/// this build does not know.
package protocol RecordField: Nestable, JSONCodable, Codable, ShowsValue {
  /// How this field merges, named in its key where a build may not know it.
  static var kind: FieldKind { get }
  /// The greatest timestamp among its writes; `nil` for a kind without timestamps.
  var fieldTimestamp: HybridTimestamp? { get }
  /// Whether it holds a live write of one of `replicas` under a dot (ADR 0029).
  func holdsDot(of replicas: Set<ReplicaID>) -> Bool
  /// The field with the writes of `replicas` stamped for `replica` (ADR 0029).
  func restamping(_ replicas: Set<ReplicaID>, as replica: ReplicaID) -> Self
}

extension RecordField {
  /// A kind without dots holds none.
  package func holdsDot(of replicas: Set<ReplicaID>) -> Bool { false }
  /// A kind without dots has no writes to stamp anew.
  package func restamping(_ replicas: Set<ReplicaID>, as replica: ReplicaID) -> Self { self }
}

/// The value of a register field: what both codecs read and write, and what `RawJSON` is for
/// fields this build does not know.
package typealias FieldValue = Hashable & JSONCodable & Codable

extension LWWRegister: RecordField where Value: FieldValue {
  package static var kind: FieldKind { .lastWriterWins }
  package var fieldTimestamp: HybridTimestamp? { timestamp }
}

extension MVRegister: RecordField where Value: FieldValue {
  package static var kind: FieldKind { .multiValue }
  package var fieldTimestamp: HybridTimestamp? { greatestTimestamp }
}

extension GCounter: RecordField {
  package static var kind: FieldKind { .counter }
  package var fieldTimestamp: HybridTimestamp? { nil }
}

/// A value a max-register field may hold: an integer on the wire, which ``RawJSON`` orders as
/// the declaring build's type does.
package protocol MaxRegisterValue: FieldValue, Comparable {}

extension Int64: MaxRegisterValue {}
extension RawJSON: MaxRegisterValue {}

extension MaxRegister: RecordField where Value: MaxRegisterValue {
  package static var kind: FieldKind { .maximum }
  package var fieldTimestamp: HybridTimestamp? { nil }
}

extension FieldKind {
  /// The end of a key that names this kind, after the field's name.
  var keySuffix: StaticString {
    switch self {
    case .lastWriterWins: ":lww"
    case .multiValue: ":mv"
    case .counter: ":counter"
    case .maximum: ":max"
    }
  }
}
