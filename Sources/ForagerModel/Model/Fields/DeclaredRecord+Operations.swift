import SemanticCRDT

// The operations on a record that go field by field, each a visitor of its kind's declaration
// (``DeclaredRecord/fields(_:_:_:)``), then of its unknown fields.

extension DeclaredRecord {
  /// Merges every part of `other`: each field by its kind, the creation keeping the earlier.
  ///
  /// - Complexity: O(fields), plus what each field's merge costs.
  package mutating func mergeFields(_ other: Self) {
    var visitor = Merging()
    Self.fields(&visitor, &self, other)
    unknownFields.merge(other.unknownFields)
  }

  /// The greatest timestamp of any field's write, the unknown ones' included, so that a stamp
  /// too far ahead is found wherever it is.
  package var fieldsGreatestTimestamp: HybridTimestamp? {
    var visitor = GreatestTimestamp()
    inspectFields(with: &visitor)
    guard !unknownFields.isEmpty, let unknown = unknownFields.greatestTimestamp else {
      return visitor.greatest
    }
    return visitor.greatest.map { max($0, unknown) } ?? unknown
  }

  /// Whether `other`, the same record at another moment, shows what this one shows: each
  /// field's value by its kind (a register's value, not its stamp), the identity, the creation
  /// and the fields of a newer build as they are. Change events ask it of every record a merge
  /// or a write changed, so it reads the parts in place and builds nothing.
  ///
  /// - Complexity: O(fields).
  package func showsSame(as other: Self) -> Bool {
    var visitor = ShownComparison()
    inspectFields(with: &visitor, pairedWith: other)
    return visitor.same && unknownFields == other.unknownFields
  }

  /// The record as a map's write commits it over `previous` (see `Nestable`): the fields that
  /// hold dots are committed, the others are themselves.
  package func committedFields(over previous: () -> Self?, in scope: inout NestingScope) -> Self {
    guard !commitsUnchanged else { return self }
    let previous = previous()
    var result = self
    withUnsafeMutablePointer(to: &scope) { scope in
      var visitor = Committing(scope: scope, hasPrevious: previous != nil)
      Self.fields(&visitor, &result, previous ?? Self.blank)
      result.unknownFields = unknownFields.committed(
        over: previous?.unknownFields, in: &scope.pointee)
    }
    return result
  }

  /// Whether a field holds a live write of one of `replicas` under a dot (ADR 0029).
  package func fieldsHoldDot(of replicas: Set<ReplicaID>) -> Bool {
    guard Self.holdsDots || !unknownFields.isEmpty else { return false }
    var visitor = HoldingDot(replicas: replicas)
    inspectFields(with: &visitor)
    return visitor.holds || unknownFields.holdsDot(of: replicas)
  }

  /// The record with every field's writes of `replicas` stamped for `replica` (ADR 0029).
  package func restampingFields(_ replicas: Set<ReplicaID>, as replica: ReplicaID) -> Self {
    guard Self.holdsDots || !unknownFields.isEmpty else { return self }
    var visitor = Restamping(replicas: replicas, replica: replica)
    var record = self
    Self.fields(&visitor, &record, Self.blank)
    record.unknownFields = unknownFields.restamping(replicas, as: replica)
    return record
  }

  /// Whether a map's write commits the record as it is: no field of its kind holds dots, and it
  /// carries no field of a newer build (which may). Such a record can be written in the box it
  /// is already stored in.
  package var commitsUnchanged: Bool { !Self.holdsDots && unknownFields.isEmpty }

  /// Whether a field of this kind can hold dots: only then does a commit read the previous
  /// record.
  package static var holdsDots: Bool {
    var visitor = DotKinds()
    var record = blank
    fields(&visitor, &record, blank)
    return visitor.found
  }
}

/// A visitor that never throws and leaves identity alone, for the operations below.
private protocol FieldOperation: FieldVisitor where Failure == Never {}

extension FieldOperation {
  mutating func identity<Value: IdentityValue>(
    _ name: StaticString, _ value: inout Value, _ other: Value
  ) {}
  mutating func creation(_ value: inout Creation, _ other: Creation) {}
}

private struct Merging: FieldOperation {
  mutating func creation(_ value: inout Creation, _ other: Creation) { value.merge(other) }

  mutating func field<Field: RecordField>(_ name: FieldName, _ value: inout Field, _ other: Field) {
    value.merge(other)
  }
}

private struct GreatestTimestamp: FieldOperation {
  var greatest: HybridTimestamp?

  mutating func field<Field: RecordField>(_ name: FieldName, _ value: inout Field, _ other: Field) {
    if let stamp = value.fieldTimestamp { greatest.raise(to: stamp) }
  }
}

private struct Committing: FieldOperation {
  let scope: UnsafeMutablePointer<NestingScope>
  let hasPrevious: Bool

  mutating func field<Field: RecordField>(_ name: FieldName, _ value: inout Field, _ other: Field) {
    guard Field.kind.holdsDots else { return }
    value = value.committed(over: hasPrevious ? other : nil, in: &scope.pointee)
  }
}

private struct HoldingDot: FieldOperation {
  let replicas: Set<ReplicaID>
  var holds = false

  mutating func field<Field: RecordField>(_ name: FieldName, _ value: inout Field, _ other: Field) {
    if !holds { holds = value.holdsDot(of: replicas) }
  }
}

private struct Restamping: FieldOperation {
  let replicas: Set<ReplicaID>
  let replica: ReplicaID

  mutating func field<Field: RecordField>(_ name: FieldName, _ value: inout Field, _ other: Field) {
    value = value.restamping(replicas, as: replica)
  }
}

private struct ShownComparison: FieldVisitor {
  var same = true

  mutating func identity<Value: IdentityValue>(
    _ name: StaticString, _ value: inout Value, _ other: Value
  ) {
    if same { same = value == other }
  }

  mutating func creation(_ value: inout Creation, _ other: Creation) {
    if same { same = value == other }
  }

  mutating func field<Field: RecordField>(_ name: FieldName, _ value: inout Field, _ other: Field) {
    if same { same = value.showsSame(as: other) }
  }
}

private struct DotKinds: FieldOperation {
  var found = false

  mutating func field<Field: RecordField>(_ name: FieldName, _ value: inout Field, _ other: Field) {
    if Field.kind.holdsDots { found = true }
  }
}
