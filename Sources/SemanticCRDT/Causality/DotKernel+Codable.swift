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
  /// The entries in ascending key order, for deterministic output. Sorts dictionary positions by their keys, so no
  /// value is copied while sorting.
  @inlinable
  func sortedEntries() -> some Sequence<(key: Key, siblings: DotSiblings<Value>)>
  where Key: Comparable {
    var positions = Array(entries.keys.indices)
    let keys = entries.keys
    positions.sort { keys[$0] < keys[$1] }
    let entries = entries
    return positions.lazy.map { (key: keys[$0], siblings: entries.values[$0]) }
  }

  /// Rebuilds a kernel from decoded parts and checks it: keys unique, dots unique, every live
  /// dot in the context.
  ///
  /// - Throws: `DecodingError.dataCorrupted` naming the problem.
  init(
    decoding decoded: [(key: Key, siblings: [DottedValue<Value>])], context: CausalContext,
    codingPath: [any CodingKey]
  ) throws {
    do {
      try self.init(
        validating: decoded.map { ($0.key, DotSiblings(unsorted: $0.siblings)) }, context: context)
    } catch {
      throw DecodingError.dataCorrupted(
        .init(codingPath: codingPath, debugDescription: error.description))
    }
  }

  /// Rebuilds a kernel from entries read in any order, refusing a key listed twice, a dot
  /// listed twice, a key without dots (`nil` siblings), and any broken invariant. Shared by
  /// both codecs; siblings come as ``DotSiblings/init(unsorted:)`` makes them.
  ///
  /// - Complexity: O(*k* + *d* log *d*) for *k* keys and *d* live dots; one hash per key.
  @inlinable
  init(
    validating decoded: [(key: Key, siblings: DotSiblings<Value>?)], context: CausalContext
  ) throws(KernelShapeError) {
    var entries: [Key: DotSiblings<Value>] = [:]
    entries.reserveCapacity(decoded.count)
    for (index, entry) in decoded.enumerated() {
      func problem(_ text: String) -> KernelShapeError {
        let twice = entries[entry.key] != nil
        return KernelShapeError(
          description: "Entry \(index): key \(entry.key) \(twice ? "appears twice" : text)")
      }
      guard var siblings = entry.siblings else { throw problem("has no dots") }
      if case .many(var values) = siblings {
        values.sort { $0.dot < $1.dot }
        if zip(values, values.dropFirst()).contains(where: { $0.dot == $1.dot }) {
          throw problem("lists a dot twice")
        }
        siblings = .many(values)
      }
      if entries.updateValue(siblings, forKey: entry.key) != nil {
        throw KernelShapeError(description: "Entry \(index): key \(entry.key) appears twice")
      }
    }
    self.init(entries: entries, context: context)
    // Siblings were sorted and checked above; what is left is the live dots' rules. The fast
    // check finds whether one breaks; the full check then names it.
    if hasLiveDotProblem(), let problem = invariantViolations().first {
      throw KernelShapeError(description: problem)
    }
  }

  /// Whether a dot is live twice or live but absent from the context.
  ///
  /// Counters are grouped by replica (consecutive dots usually share one, so most dots cost an
  /// append, not a hash of their replica id), then checked for repeats and against the
  /// replica's counters in the context: O(*d*) for *d* live dots whose counters are dense (the
  /// usual case), O(*d* log *d*) otherwise.
  @inlinable
  func hasLiveDotProblem() -> Bool {
    var groups: [ReplicaID: [UInt64]] = [:]
    var current: ReplicaID?
    var counters: [UInt64] = []
    for siblings in entries.values {
      siblings.forEachDot { dot in
        if dot.replica != current {
          if let current { groups[current] = counters }
          current = dot.replica
          counters = groups.removeValue(forKey: dot.replica) ?? []
        }
        counters.append(dot.counter)
      }
    }
    if let current { groups[current] = counters }
    for (replica, counters) in groups {
      guard let known = context.replicas[replica],
        counters.allSatisfy({ known.contains($0) }), !Self.hasRepeat(counters)
      else { return true }
    }
    return false
  }

  /// Whether a counter occurs twice: by a bitmap over their span when it is at most 64 times
  /// their number (one bit per possible counter), by sorting otherwise.
  @inlinable
  static func hasRepeat(_ counters: [UInt64]) -> Bool {
    guard let lowest = counters.min(), let highest = counters.max() else { return false }
    let span = highest - lowest
    guard span / 64 <= UInt64(counters.count) else {
      let sorted = counters.sorted()
      return zip(sorted, sorted.dropFirst()).contains { $0 == $1 }
    }
    var seen = [UInt64](repeating: 0, count: Int(span / 64) + 1)
    for counter in counters {
      let offset = counter - lowest
      let bit: UInt64 = 1 << (offset % 64)
      let word = Int(offset / 64)
      if seen[word] & bit != 0 { return true }
      seen[word] |= bit
    }
    return false
  }
}

/// Why decoded entries do not form a valid dot kernel; each codec wraps it in its own error.
@usableFromInline
struct KernelShapeError: Error {
  @usableFromInline let description: String

  @usableFromInline
  init(description: String) {
    self.description = description
  }
}

/// The two top-level fields of a causal collection: `context` and `entries`.
enum CausalCollectionCodingKeys: String, CodingKey {
  case context
  case entries
}
