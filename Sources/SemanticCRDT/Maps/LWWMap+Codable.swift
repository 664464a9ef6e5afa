extension LWWMap: Encodable where Key: Encodable & Comparable, Value: Encodable {
  /// Encodes `{"context": …, "entries": [[key, timestamp, counter, value], …]}`, keys
  /// ascending; a tombstone has no value: `[key, timestamp, counter]`.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CausalCollectionCodingKeys.self)
    try container.encode(context, forKey: .context)
    var list = container.nestedUnkeyedContainer(forKey: .entries)
    for (key, entry) in entries.sorted(by: { $0.key < $1.key }) {
      var row = list.nestedUnkeyedContainer()
      try row.encode(key)
      try row.encode(entry.timestamp)
      try row.encode(entry.counter)
      if let value = entry.value { try row.encode(value) }
    }
  }
}

extension LWWMap: Decodable where Key: Decodable, Value: Decodable {
  /// Decodes the form written by `encode(to:)`, in any order of entries.
  ///
  /// - Throws: `DecodingError.dataCorrupted` for a key listed twice or a write missing from the
  ///   context.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CausalCollectionCodingKeys.self)
    let context = try container.decode(CausalContext.self, forKey: .context)
    var list = try container.nestedUnkeyedContainer(forKey: .entries)
    var entries: [Key: Entry] = [:]
    while !list.isAtEnd {
      var row = try list.nestedUnkeyedContainer()
      let key = try row.decode(Key.self)
      let timestamp = try row.decode(HybridTimestamp.self)
      let counter = try row.decode(UInt64.self)
      let value = row.isAtEnd ? nil : try row.decode(Value.self)
      guard row.isAtEnd, counter > 0 else {
        throw DecodingError.dataCorruptedError(
          in: row, debugDescription: "A map entry is [key, timestamp, counter ≥ 1, value?]")
      }
      guard
        entries.updateValue(
          Entry(value: value, timestamp: timestamp, counter: counter), forKey: key) == nil
      else {
        throw DecodingError.dataCorruptedError(
          in: row, debugDescription: "Key \(key) appears twice")
      }
    }
    self.init(entries: entries, context: context)
    if let problem = invariantViolations().first {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: problem))
    }
  }
}
