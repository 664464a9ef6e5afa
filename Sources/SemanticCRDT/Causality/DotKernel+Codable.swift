/// An encoded sibling: `[dot, value]`.
struct EncodedSibling<Value> {
  let dot: Dot
  let value: Value
}

extension EncodedSibling: Decodable where Value: Decodable {
  init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    dot = try container.decode(Dot.self)
    value = try container.decode(Value.self)
    guard container.isAtEnd else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "A sibling is [dot, value]")
    }
  }
}

extension EncodedSibling: Encodable where Value: Encodable {
  func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    try container.encode(dot)
    try container.encode(value)
  }
}

extension DotKernel {
  /// The entries sorted by key, for deterministic output.
  func sortedEntries() -> [(key: Key, siblings: DotSiblings<Value>)] where Key: Comparable {
    entries.sorted { $0.key < $1.key }.map { (key: $0.key, siblings: $0.value) }
  }

  /// Rebuilds a kernel from decoded parts and checks it: keys unique, dots unique, every live
  /// dot in the context.
  ///
  /// - Throws: `DecodingError.dataCorrupted` naming the problem.
  init(
    decoding decoded: [(key: Key, siblings: [DottedValue<Value>])], context: CausalContext,
    codingPath: [any CodingKey]
  ) throws {
    var entries: [Key: DotSiblings<Value>] = [:]
    entries.reserveCapacity(decoded.count)
    for (index, entry) in decoded.enumerated() {
      let sorted = entry.siblings.sorted { $0.dot < $1.dot }
      let problem: String? =
        if entries[entry.key] != nil {
          "key \(entry.key) appears twice"
        } else if zip(sorted, sorted.dropFirst()).contains(where: { $0.dot == $1.dot }) {
          "key \(entry.key) lists a dot twice"
        } else {
          nil
        }
      if let problem {
        throw DecodingError.dataCorrupted(
          .init(codingPath: codingPath, debugDescription: "Entry \(index): \(problem)"))
      }
      guard let siblings = DotSiblings(sorted: sorted) else {
        throw DecodingError.dataCorrupted(
          .init(
            codingPath: codingPath, debugDescription: "Entry \(index): key \(entry.key) has no dots"
          ))
      }
      entries[entry.key] = siblings
    }
    self.init(entries: entries, context: context)
    if let problem = invariantViolations().first {
      throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: problem))
    }
  }
}

/// The two top-level fields of a causal collection: `context` and `entries`.
enum CausalCollectionCodingKeys: String, CodingKey {
  case context
  case entries
}
