import SemanticCRDT

// Inlining: these conformances are generic (or called per element); @inlinable lets the module
// that encodes concrete maps and records specialize them, as the CRDTs' own code is (see
// ORMap.swift). @usableFromInline marks the field tables inlined code reads.

extension Boxed: JSONWritable where Value: JSONWritable {
  /// Writes the value, as if it were not boxed.
  @inlinable
  package func write(to writer: inout JSONWriter) {
    value.write(to: &writer)
  }
}
