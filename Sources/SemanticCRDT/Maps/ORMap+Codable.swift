extension ORMap: Encodable where Key: Encodable & Comparable, Value: Encodable {
  /// Encodes `{"context": …, "entries": [[key, [[dot, value], …]], …]}`, keys and dots
  /// ascending, so equal maps encode to identical bytes (given a deterministic value encoding).
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CausalCollectionCodingKeys.self)
    try container.encode(kernel.context, forKey: .context)
    var entries = container.nestedUnkeyedContainer(forKey: .entries)
    for (key, siblings) in kernel.sortedEntries() {
      var pair = entries.nestedUnkeyedContainer()
      try pair.encode(key)
      var writes = pair.nestedUnkeyedContainer()
      for element in siblings.elements {
        var sibling = writes.nestedUnkeyedContainer()
        try sibling.encode(element.dot)
        try sibling.encode(element.value.value)
      }
    }
    try kernel.encodeRetiredKeys(into: &container)
  }
}

extension ORMap: Decodable where Key: Decodable, Value: Decodable {
  /// Decodes the form written by `encode(to:)`, in any order of entries and dots.
  ///
  /// - Throws: `DecodingError.dataCorrupted` for a key listed twice, a key without writes, a dot
  ///   listed twice, or a live dot missing from the context.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CausalCollectionCodingKeys.self)
    let context = try container.decode(CausalContext.self, forKey: .context)
    var entries = try container.nestedUnkeyedContainer(forKey: .entries)
    var decoded: [(key: Key, siblings: [DottedValue<Boxed<Value>>])] = []
    while !entries.isAtEnd {
      var pair = try entries.nestedUnkeyedContainer()
      let key = try pair.decode(Key.self)
      let writes = try pair.decode([EncodedSibling<Value>].self)
      guard pair.isAtEnd else {
        throw DecodingError.dataCorruptedError(
          in: pair, debugDescription: "A map entry is [key, [[dot, value], …]]")
      }
      decoded.append((key, writes.map { DottedValue(dot: $0.dot, value: Boxed($0.value)) }))
    }
    self.init(
      kernel: try DotKernel(
        decoding: decoded, context: context,
        retiredKeys: try container.decodeRetiredKeys(Key.self), codingPath: decoder.codingPath))
  }
}
