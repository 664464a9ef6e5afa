extension ORSet: Encodable where Element: Encodable & Comparable {
  /// Encodes `{"context": …, "entries": [[element, [dot, …]], …]}`, elements ascending and dots
  /// ascending, so equal sets encode to identical bytes.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CausalCollectionCodingKeys.self)
    try container.encode(kernel.context, forKey: .context)
    var entries = container.nestedUnkeyedContainer(forKey: .entries)
    for (element, siblings) in kernel.sortedEntries() {
      var pair = entries.nestedUnkeyedContainer()
      try pair.encode(element)
      try pair.encode(siblings.elements.map(\.dot))
    }
    try kernel.encodeRetiredKeys(into: &container)
  }
}

extension ORSet: Decodable where Element: Decodable {
  /// Decodes the form written by `encode(to:)`, in any order of entries and dots.
  ///
  /// - Throws: `DecodingError.dataCorrupted` for an element listed twice, an element without
  ///   dots, a dot listed twice, or a live dot missing from the context.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CausalCollectionCodingKeys.self)
    let context = try container.decode(CausalContext.self, forKey: .context)
    var entries = try container.nestedUnkeyedContainer(forKey: .entries)
    var decoded: [(key: Element, siblings: [DottedValue<Present>])] = []
    while !entries.isAtEnd {
      var pair = try entries.nestedUnkeyedContainer()
      let element = try pair.decode(Element.self)
      let dots = try pair.decode([Dot].self)
      guard pair.isAtEnd else {
        throw DecodingError.dataCorruptedError(
          in: pair, debugDescription: "A set entry is [element, [dot, …]]")
      }
      decoded.append((element, dots.map { DottedValue(dot: $0, value: Present()) }))
    }
    self.init(
      kernel: try DotKernel(
        decoding: decoded, context: context,
        retiredKeys: try container.decodeRetiredKeys(Element.self), codingPath: decoder.codingPath))
  }
}
