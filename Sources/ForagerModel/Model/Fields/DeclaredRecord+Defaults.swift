import SemanticCRDT
import SemanticCRDTJSON

// What a record kind that is not public derives from its declaration with no forward of its
// own (`CarriedRecord`, the newer build's kinds): the operations every record has, as the
// public kinds forward them in Entities+Declared.swift. A public kind must forward them: a
// public requirement's witness cannot come from this package extension, and the compiler says
// so if one is missed (ADR 0036).

extension DeclaredRecord {
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
