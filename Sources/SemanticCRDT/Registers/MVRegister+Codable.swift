extension MVRegister.Write: Codable where Value: Codable {
  /// Decodes `[timestamp, value]`.
  public init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    timestamp = try container.decode(HybridTimestamp.self)
    value = try container.decode(Value.self)
    guard container.isAtEnd else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "A register write is [timestamp, value]")
    }
  }

  /// Encodes `[timestamp, value]`.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    try container.encode(timestamp)
    try container.encode(value)
  }
}

extension MVRegister: Codable where Value: Codable {
  private enum CodingKeys: String, CodingKey {
    case context
    case writes
  }

  /// Decodes `{"context": …, "writes": [[dot, [timestamp, value]], …]}`.
  ///
  /// - Throws: `DecodingError.dataCorrupted` for a dot listed twice, or a write whose dot is
  ///   missing from the context or names another replica than its timestamp.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let context = try container.decode(CausalContext.self, forKey: .context)
    let writes = try container.decode([EncodedSibling<Write>].self, forKey: .writes)
    if let mismatch = writes.first(where: { $0.dot.replica != $0.value.timestamp.replica }) {
      throw DecodingError.dataCorruptedError(
        forKey: .writes, in: container,
        debugDescription: "Write \(mismatch.dot) carries a timestamp of another replica")
    }
    let decoded: [(key: SingleKey, siblings: [DottedValue<Write>])] =
      writes.isEmpty
      ? [] : [(SingleKey(), writes.map { DottedValue(dot: $0.dot, value: $0.value) })]
    self.init(
      kernel: try DotKernel(decoding: decoded, context: context, codingPath: decoder.codingPath))
  }

  /// Encodes `{"context": …, "writes": [[dot, [timestamp, value]], …]}`, dots ascending.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(kernel.context, forKey: .context)
    let writes = (kernel.entries[SingleKey()]?.elements ?? []).map {
      EncodedSibling(dot: $0.dot, value: $0.value)
    }
    try container.encode(writes, forKey: .writes)
  }
}
