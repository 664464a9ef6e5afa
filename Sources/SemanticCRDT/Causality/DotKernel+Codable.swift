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
      try self.init(validating: decoded, context: context)
    } catch {
      throw DecodingError.dataCorrupted(
        .init(codingPath: codingPath, debugDescription: error.description))
    }
  }

  /// Rebuilds a kernel from entries read in any order, refusing a key listed twice, a dot
  /// listed twice, a key without dots, and any broken invariant. Shared by both codecs.
  @inlinable
  init(
    validating decoded: [(key: Key, siblings: [DottedValue<Value>])], context: CausalContext
  ) throws(KernelShapeError) {
    var entries: [Key: DotSiblings<Value>] = [:]
    entries.reserveCapacity(decoded.count)
    for (index, entry) in decoded.enumerated() {
      var sorted = entry.siblings
      if sorted.count > 1 { sorted.sort { $0.dot < $1.dot } }
      let problem: String? =
        if entries[entry.key] != nil {
          "key \(entry.key) appears twice"
        } else if zip(sorted, sorted.dropFirst()).contains(where: { $0.dot == $1.dot }) {
          "key \(entry.key) lists a dot twice"
        } else {
          nil
        }
      if let problem { throw KernelShapeError(description: "Entry \(index): \(problem)") }
      guard let siblings = DotSiblings(sorted: sorted) else {
        throw KernelShapeError(description: "Entry \(index): key \(entry.key) has no dots")
      }
      entries[entry.key] = siblings
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
  /// append, not a hash of their replica id), then sorted and checked against the replica's
  /// counters in the context: O(*d* log *d*) for *d* live dots.
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
    for (replica, var counters) in groups {
      counters.sort()
      guard let known = context.replicas[replica] else { return true }
      var previous: UInt64?
      for counter in counters {
        if counter == previous || !known.contains(counter) { return true }
        previous = counter
      }
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
