import SemanticCRDT

extension Boxed: JSONWritable where Value: JSONWritable {
  /// Writes the value, as if it were not boxed.
  @inlinable
  package func write(to writer: inout JSONWriter) {
    switch self {
    case .value(let value): value.write(to: &writer)
    }
  }
}
