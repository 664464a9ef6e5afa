// Inlining: the code marked @inlinable is generic over keys and values and runs per key or
// per dot in merges, deltas and reads. Inlined, it is specialized for the caller's types in
// the caller's module; not inlined, every comparison, hash and copy of a key or value goes
// through witness tables. @usableFromInline marks the stored state and helpers that inlined
// code reads; each stays `package` or internal, out of the public API.

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
  /// The entries in ascending key order, for deterministic output. Sorts keys with their
  /// dictionary positions, so no value is copied while sorting, and the comparisons borrow the
  /// keys in the array instead of copying each out of the dictionary.
  @inlinable
  package func sortedEntries() -> some Sequence<(key: Key, siblings: DotSiblings<Value>)>
  where Key: Comparable {
    var order: [(key: Key, position: Dictionary<Key, DotSiblings<Value>>.Index)] = []
    order.reserveCapacity(entries.count)
    for position in entries.indices { order.append((entries.keys[position], position)) }
    order.sort { $0.key < $1.key }
    let entries = entries
    return order.lazy.map { (key: $0.key, siblings: entries.values[$0.position]) }
  }

  /// Rebuilds a kernel from decoded parts and checks it: keys unique, dots unique, every live
  /// dot in the context.
  ///
  /// - Throws: `DecodingError.dataCorrupted` naming the problem.
  init(
    decoding decoded: [(key: Key, siblings: [DottedValue<Value>])], context: CausalContext,
    retiredKeys: Set<Key>? = nil, codingPath: [any CodingKey]
  ) throws {
    do {
      try self.init(
        validating: [decoded.map { ($0.key, DotSiblings(unsorted: $0.siblings)) }],
        context: context, retiredKeys: retiredKeys)
    } catch {
      throw DecodingError.dataCorrupted(
        .init(codingPath: codingPath, debugDescription: error.description))
    }
  }

  /// One entry as a reader decoded it: siblings made by ``DotSiblings/init(unsorted:)``, `nil`
  /// for a key listed without dots.
  @usableFromInline
  package typealias DecodedEntry = (key: Key, siblings: DotSiblings<Value>?)

  /// Rebuilds a kernel from entries read in any order (in parts, for a reader that read them
  /// in pieces), refusing a key listed twice, a dot listed twice, a key without dots (`nil`
  /// siblings), and any broken invariant. Shared by both codecs; siblings come as
  /// ``DotSiblings/init(unsorted:)`` makes them. Entries are moved out of `parts`, not copied
  /// (a copy of a record retains each of its strings).
  ///
  /// - Complexity: O(*k* + *d*) for *k* keys and *d* live dots with dense counters, one hash
  ///   per key; O(*d* log *d*) for sparse counters.
  @inlinable
  package init(
    validating parts: consuming [[DecodedEntry?]], context: CausalContext,
    retiredKeys: Set<Key>? = nil
  ) throws(KernelShapeError) {
    var parts = parts
    var builder = Builder(reservingCapacity: parts.reduce(0) { $0 + $1.count })
    for part in parts.indices { builder.add(&parts[part]) }
    self = try builder.kernel(context: context, retiredKeys: retiredKeys)
  }

  /// A kernel being rebuilt from decoded entries, one part at a time in the order they were
  /// read: what ``init(validating:context:retiredKeys:)`` does, in steps, so that a reader
  /// can check the parts it has read while another thread still reads the rest. The first
  /// problem found is kept and thrown by ``kernel(context:retiredKeys:)``, after every part
  /// has been given: the same problem, with the same entry number, as checking all at once.
  @usableFromInline
  package struct Builder {
    @usableFromInline var entries: [Key: DotSiblings<Value>] = [:]
    @usableFromInline var liveDots = LiveDots()
    /// How many entries have been added: the number of the next one, in problems' messages.
    @usableFromInline var added = 0
    /// The first problem found; once set, parts are no longer looked at.
    @usableFromInline var problem: KernelShapeError?

    /// Room for `capacity` entries: for a caller that knows or can guess how many come.
    @inlinable
    package init(reservingCapacity capacity: Int) {
      entries.reserveCapacity(capacity)
    }

    /// Moves the entries of `part` into the kernel being built, checking each: siblings sorted
    /// with no dot twice, and no key twice. Leaves `part` empty, its storage freed.
    ///
    /// - Complexity: O(*k*) for *k* entries, one hash each, and O(*s* log *s*) for a key's *s*
    ///   siblings when it has several.
    @inlinable
    package mutating func add(_ part: inout [DecodedEntry?]) {
      // Each part's storage goes as soon as it is moved out, not when the last one is.
      defer { part = [] }
      guard problem == nil else { return }
      // Growing the table rehashes what it holds: when more come than were guessed, once.
      entries.reserveCapacity(entries.count + part.count)
      for position in part.indices {
        guard let (key, decodedSiblings) = part[position].take() else { continue }
        guard let decodedSiblings else {
          problem = DotKernel.shapeError(
            added, key, entries[key] != nil ? "appears twice" : "has no dots")
          return
        }
        guard let siblings = decodedSiblings.sortedIfUnique() else {
          problem = DotKernel.shapeError(
            added, key, entries[key] != nil ? "appears twice" : "lists a dot twice")
          return
        }
        siblings.forEachDot { liveDots.append($0) }
        if entries.updateValue(siblings, forKey: key) != nil {
          problem = DotKernel.shapeError(added, key, "appears twice")
          return
        }
        added += 1
      }
    }

    /// The kernel of every entry added, with `context` and `retiredKeys`.
    ///
    /// - Throws: The first problem ``add(_:)`` found, or else a live dot that is not in
    ///   `context` or is live under two keys.
    @inlinable
    package consuming func kernel(
      context: CausalContext, retiredKeys: Set<Key>?
    ) throws(KernelShapeError) -> DotKernel {
      if let problem { throw problem }
      let kernel = DotKernel(entries: entries, context: context, retiredKeys: retiredKeys)
      // Siblings were sorted and checked as they were added; what is left is the live dots'
      // rules. The fast check finds whether one breaks; the full check then names it.
      if liveDots.haveProblem(in: context), let problem = kernel.leastLiveDotProblem() {
        throw KernelShapeError(description: problem)
      }
      return kernel
    }
  }

  /// The problem of the least live dot that is absent from the context or live under two
  /// keys, `nil` when none is: one problem, the same whatever order the table holds its keys
  /// in. The table's order depends on its capacity, which differs between entries read on one
  /// core and read in halves; ``invariantViolations()``' first problem, which a build named
  /// before, could differ with it.
  ///
  /// - Complexity: O(*d*) for *d* live dots, one hash each: for a kernel already found to have
  ///   such a problem.
  @inlinable
  package func leastLiveDotProblem() -> String? {
    var keyOfDot: [Dot: Key] = [:]
    var least: (dot: Dot, problem: String)?
    func note(_ dot: Dot, _ problem: @autoclosure () -> String) {
      if let least, least.dot < dot { return }
      let problem = problem()
      if let least, least.dot == dot, least.problem <= problem { return }
      least = (dot, problem)
    }
    for (key, siblings) in entries {
      siblings.forEachDot { dot in
        if !context.contains(dot) { note(dot, Self.notInContext(dot, key)) }
        if keyOfDot.updateValue(key, forKey: dot) != nil { note(dot, Self.liveTwice(dot)) }
      }
    }
    return least?.problem
  }

  @usableFromInline
  package static func shapeError(_ index: Int, _ key: Key, _ problem: String) -> KernelShapeError {
    KernelShapeError(description: "Entry \(index): key \(key) \(problem)")
  }

  /// The live dots of a kernel being built, grouped by replica, for the check that none is
  /// live twice or missing from the context.
  ///
  /// Consecutive dots usually share a replica, so most cost an append, not a hash of their
  /// replica id.
  @usableFromInline
  package struct LiveDots {
    @usableFromInline package var groups: [ReplicaID: [UInt64]] = [:]
    @usableFromInline package var current: ReplicaID?
    @usableFromInline package var counters: [UInt64] = []

    @inlinable
    init() {}

    @inlinable
    mutating func append(_ dot: Dot) {
      if dot.replica != current {
        if let current { groups[current] = counters }
        current = dot.replica
        counters = groups.removeValue(forKey: dot.replica) ?? []
      }
      counters.append(dot.counter)
    }

    /// The counters appended, per replica, in the order appended.
    @inlinable
    consuming func grouped() -> [ReplicaID: [UInt64]] {
      if let current { groups[current] = counters }
      return groups
    }

    /// Whether a dot is live twice or live but absent from `context`: O(*d*) for *d* dots
    /// whose counters are dense (the usual case), O(*d* log *d*) otherwise.
    @inlinable
    consuming func haveProblem(in context: CausalContext) -> Bool {
      for (replica, counters) in grouped() {
        guard let known = context.replicas[replica],
          counters.allSatisfy({ known.contains($0) }), !DotKernel.hasRepeat(counters)
        else { return true }
      }
      return false
    }
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
package struct KernelShapeError: Error {
  @usableFromInline package let description: String

  @usableFromInline
  package init(description: String) {
    self.description = description
  }
}

/// The top-level fields of a causal collection: `context` and `entries`, and `retired` in a
/// delta.
enum CausalCollectionCodingKeys: String, CodingKey {
  case context
  case entries
  case retired
}

extension DotKernel where Key: Encodable & Comparable {
  /// Encodes the keys a delta retires, ascending; nothing for a state.
  func encodeRetiredKeys(into container: inout KeyedEncodingContainer<CausalCollectionCodingKeys>)
    throws
  {
    if let retiredKeys { try container.encode(retiredKeys.sorted(), forKey: .retired) }
  }
}

extension KeyedDecodingContainer<CausalCollectionCodingKeys> {
  /// The keys a delta retires, each once; `nil` for a state.
  func decodeRetiredKeys<Key: Decodable & Hashable>(_: Key.Type) throws -> Set<Key>? {
    guard let keys = try decodeIfPresent([Key].self, forKey: .retired) else { return nil }
    let unique = Set(keys)
    guard unique.count == keys.count else {
      throw DecodingError.dataCorruptedError(
        forKey: .retired, in: self, debugDescription: "A delta lists a retired key twice")
    }
    return unique
  }
}
