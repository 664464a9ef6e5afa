// Inlining: the code marked @inlinable is generic over keys and values and runs per key or
// per dot in merges, deltas and reads. Inlined, it is specialized for the caller's types in
// the caller's module; not inlined, every comparison, hash and copy of a key or value goes
// through witness tables. @usableFromInline marks the stored state and helpers that inlined
// code reads; each stays `package` or internal, out of the public API.

/// The shared engine of the observed-remove types: live dots per key, each with the value its
/// event wrote, plus the causal context of everything seen.
///
/// ``ORSet`` and ``ORMap`` are thin wrappers around it. Invariant: every live dot is in the
/// context and belongs to exactly one key.
///
/// ## States and keyed deltas
///
/// A kernel is a state, or a delta made by mutations (``write(_:for:by:minted:)``,
/// ``remove(_:)``) and the merges of such deltas. A delta also names the keys it retires: the
/// keys, besides those in its entries, whose dots its context has seen and no longer holds (a
/// removed key, a key whose writes a later write in the delta moved away). Merging a delta then
/// visits only its entries and those keys, O(change); merging a state must look at every key
/// here for dots it retires, because a state does not say where its dead dots lived.
///
/// ## The live-dot index
///
/// A state may keep a ``LiveDotIndex`` of its live dots (``indexLiveDots()``); every mutation
/// and merge keeps it up to date. With it, ``delta(since:)`` costs what the delta holds rather
/// than the number of keys, and merging a state or delta that has seen few dots finds the keys
/// it retires through the index instead of visiting every key (ADR 0026). Without it (deltas,
/// nested stores, sets), nothing changes. The index is not part of the value: two kernels with
/// the same entries, context and retired keys are equal whether or not either keeps one.
@usableFromInline
package struct DotKernel<Key: Hashable, Value> {
  @usableFromInline package private(set) var entries: [Key: DotSiblings<Value>]
  @usableFromInline package private(set) var context: CausalContext
  /// For a delta, the keys besides those in `entries` whose dots `context` retires; `nil` for
  /// a state, which does not know them.
  @usableFromInline package private(set) var retiredKeys: Set<Key>?
  /// The live dots by replica and counter, where kept; `nil` otherwise.
  @usableFromInline package private(set) var index: LiveDotIndex<Key>?

  @inlinable
  init() {
    entries = [:]
    context = CausalContext()
  }

  /// The empty delta: the start of a join of deltas that stays a delta.
  @inlinable static var emptyDelta: DotKernel {
    DotKernel(entries: [:], context: CausalContext(), retiredKeys: [])
  }

  @usableFromInline
  package init(
    entries: [Key: DotSiblings<Value>], context: CausalContext, retiredKeys: Set<Key>? = nil
  ) {
    self.entries = entries
    self.context = context
    self.retiredKeys = retiredKeys
  }

  /// Whether this is a delta that names the keys it retires.
  @inlinable package var isKeyedDelta: Bool { retiredKeys != nil }

  /// This kernel as a state: the same entries and context, without the keys a delta retires.
  /// Merging it gives what merging the delta gives, looking at every key.
  package var stateForm: DotKernel { DotKernel(entries: entries, context: context) }

  /// Starts keeping the live-dot index (see "The live-dot index" above); does nothing when it
  /// is kept already.
  ///
  /// - Complexity: O(*d* + *b*) for *d* live dots in *b* blocks of dense counters, O(*d* log
  ///   *d*) for sparse ones (see `LiveDotIndex.init(_:)`).
  @inlinable
  package mutating func indexLiveDots() {
    if index == nil { index = LiveDotIndex(entries) }
  }

  /// The indices of `entries` in one of `parts` near-equal parts, in storage order; together
  /// the parts hold every index once. For a caller that reads one part on each of several
  /// cores.
  ///
  /// - Precondition: `parts >= 1` and `0 <= part < parts`.
  /// - Complexity: O(*n* / `parts`) to find the part's bounds.
  @inlinable
  package func indices(ofPart part: Int, of parts: Int) -> DefaultIndices<[Key: DotSiblings<Value>]>
  {
    precondition(parts >= 1 && (0..<parts).contains(part), "part \(part) of \(parts)")
    // A dictionary's indices advance one at a time, so the whole map (one part, or the last)
    // ends at `endIndex` without a walk, and a part's end is found from its start.
    let (first, next) = (entries.count * part / parts, entries.count * (part + 1) / parts)
    let start = entries.index(entries.startIndex, offsetBy: first)
    let end = part == parts - 1 ? entries.endIndex : entries.index(start, offsetBy: next - first)
    return entries.indices[start..<end]
  }

  // MARK: Mutations (each returns its delta)

  /// Replaces every live dot of `key` with one new dot of `replica` carrying `value`.
  ///
  /// - Parameter minted: Dots of `replica` that the value's nested stores took for this write
  ///   (see ``NestingScope``): the context records them, so that no later dot repeats them.
  /// - Returns: The delta: the new dot with its value, and a context of the new, the minted and
  ///   the replaced dots.
  /// - Complexity: O(*s* + *m*) for *s* replaced siblings and *m* minted dots.
  @inlinable
  mutating func write(
    _ value: Value, for key: Key, by replica: ReplicaID, minted: [Dot] = []
  ) -> DotKernel {
    var deltaContext = CausalContext()
    let replaced = entries[key]
    replaced?.forEachDot { deltaContext.insert($0) }
    for dot in minted {
      context.insert(dot)
      deltaContext.insert(dot)
    }
    let dot = context.nextDot(for: replica)
    deltaContext.insert(dot)
    let siblings = DotSiblings(dot: dot, value: value)
    entries[key] = siblings
    index?.replace(key, replaced, with: siblings)
    return DotKernel(entries: [key: siblings], context: deltaContext, retiredKeys: [])
  }

  /// Drops every live dot of `key`.
  ///
  /// - Returns: The delta: no entries, a context of the removed dots, and `key` as the key it
  ///   retires.
  /// - Complexity: O(*s*) for *s* removed siblings.
  @inlinable
  mutating func remove(_ key: Key) -> DotKernel {
    var deltaContext = CausalContext()
    guard let removed = entries.removeValue(forKey: key) else { return .emptyDelta }
    removed.forEachDot { deltaContext.insert($0) }
    index?.replace(key, removed, with: nil)
    return DotKernel(entries: [:], context: deltaContext, retiredKeys: [key])
  }

  // MARK: Merge

  /// The causal join (Almeida et al., §6): per key, siblings join as in
  /// ``DotSiblings/join(_:seenBy:_:seenBy:)``; the contexts unite.
  ///
  /// - Complexity: O(*n* + *m*) hash lookups for *n* and *m* keys; the pass over keys only this
  ///   side holds is skipped when the other side has seen none of this side's dots, and none
  ///   is made when this side is empty and has seen nothing (it takes the other's table as it
  ///   is). Inlinable, so that each client specializes it for its keys and values.
  @inlinable
  mutating func merge(_ other: DotKernel) {
    merge(other) { _, _, _, _ in }
  }

  /// The causal join, calling `changed` with every key whose live writes it changed: the
  /// writes before and after, `nil` where the key is absent, and whether `other` holds the key.
  /// Keys whose writes stay the same are not reported.
  ///
  /// - Complexity: that of ``merge(_:)``, plus one call per key reported.
  @inlinable
  mutating func merge(
    _ other: DotKernel,
    changed: (
      Key, _ before: DotSiblings<Value>?, _ after: DotSiblings<Value>?, _ otherHoldsKey: Bool
    ) -> Void
  ) {
    var indexing = MergeIndexing(
      index.take(), gathering: other.entries.count >= LiveDotIndex<Key>.gatheringThreshold)
    defer { index = indexing.finish() }
    if entries.isEmpty && context.isEmpty {
      // Nothing here, not even a dot seen: the join is the other side. Its table is taken as
      // it is, where inserting would hash every key again into a table that grows as it
      // goes (the registers of a merge's delta, a map of category moves the first time).
      for (key, theirs) in other.entries { indexing.report(key, nil, theirs, true, to: changed) }
      entries = other.entries
      context = other.context
      joinRetiredKeys(of: other)
      return
    }
    var seenHere = ContextMembership(context)
    var seenThere = ContextMembership(other.context)
    // Whether `entries` has been written during this merge, and so holds storage of its own.
    var written = false
    // Retires what the other side has seen under each of `keys` it does not hold. A key may
    // come more than once: the first retire settles it.
    func retireListed(_ keys: some Sequence<Key>) {
      for key in keys where other.entries[key] == nil {
        guard let index = entries.index(forKey: key) else { continue }
        if retire(
          at: index, seenBy: &seenThere, written: &written, indexing: &indexing, changed: changed)
        {
          entries.remove(at: index)
          written = true
        }
      }
    }
    if !entries.isEmpty && !other.context.isDisjoint(with: context) {
      if let retired = other.retiredKeys {
        // A keyed delta says where the dots it retires live: look there only.
        retireListed(retired)
      } else if let liveIndex = indexing.index, other.context.count < UInt64(entries.count) {
        // The other side has seen fewer dots than this side has keys: the index says which of
        // them live here, and under which keys (once per dot), the only keys whose dots it can
        // retire.
        var candidates: [Key] = []
        for (replica, counters) in other.context.replicas {
          for range in counters.ranges {
            liveIndex.forEachKey(of: replica, in: range) { candidates.append($0) }
          }
        }
        retireListed(candidates)
      } else {
        var removed: [Key] = []
        for index in entries.indices {
          // Most keys hold no dot the other side has seen (always so for a small delta):
          // asking that first spares them the lookup in the other map.
          guard containsDot(at: index, where: { seenThere.contains($0) }),
            other.entries[entries.keys[index]] == nil
          else { continue }
          if retire(
            at: index, seenBy: &seenThere, written: &written, indexing: &indexing,
            changed: changed)
          {
            removed.append(entries.keys[index])
          }
        }
        for key in removed { entries.removeValue(forKey: key) }
        written = written || !removed.isEmpty
      }
    }
    for (key, theirs) in other.entries {
      if !written {
        // Until the first write, look before writing: writing makes the storage this map's
        // own, and a merge that changes nothing must not copy a store it shares.
        if let index = entries.index(forKey: key) {
          if hasSameDots(at: index, as: theirs) { continue }
        } else if !theirs.containsDot(where: { !seenHere.contains($0) }) {
          continue
        }
        written = true
      }
      // One hash lookup finds the key and writes it, through the subscript's modify accessor.
      Self.join(
        key, &entries[key], theirs, seenHere: &seenHere, seenThere: &seenThere,
        indexing: &indexing, changed: changed)
    }
    context.formUnion(other.context)
    joinRetiredKeys(of: other)
  }

  /// Whether a dot of the key at `index` satisfies `predicate`, reading the dots where they
  /// are stored. Copying the key's writes out retains its value's box, which a scan of every
  /// key otherwise never touches: a cache miss per key, most of what the scan cost.
  @inlinable
  func containsDot(
    at index: Dictionary<Key, DotSiblings<Value>>.Index, where predicate: (Dot) -> Bool
  ) -> Bool {
    DotSiblings<Value>.containsDot(
      entries.values[index].dot, entries.values[index].rest, where: predicate)
  }

  /// Whether the key at `index` holds the same dots as `theirs`, read in place as in
  /// ``containsDot(at:where:)``.
  @inlinable
  func hasSameDots(
    at index: Dictionary<Key, DotSiblings<Value>>.Index, as theirs: DotSiblings<Value>
  ) -> Bool {
    DotSiblings<Value>.hasSameDots(
      entries.values[index].dot, entries.values[index].rest, as: theirs)
  }

  /// Undoes a merge: puts each of `keys` back to the writes it held before, or removes it
  /// where it was absent, as ``merge(_:changed:)`` reported them, and the context back to
  /// `context`. The keys must be every key the merge reported, and `context` the context
  /// before it: a key whose writes only grew gets back those of its writes `context` holds.
  ///
  /// - Complexity: O(*k*) for *k* keys.
  @inlinable
  package mutating func undoMerge(restoring keys: WritesBefore<Key, Value>, context: CausalContext)
  {
    for (key, siblings) in keys.held {
      index?.replace(key, entries[key], with: siblings)
      entries[key] = siblings
    }
    for key in keys.absent {
      index?.replace(key, entries[key], with: nil)
      entries[key] = nil
    }
    var seenBefore = ContextMembership(context)
    for key in keys.grown {
      guard let after = entries[key] else { continue }
      let before = WritesBefore<Key, Value>.writes(before: after, seenBefore: &seenBefore)
      index?.replace(key, after, with: before)
      entries[key] = before
    }
    self.context = context
  }

  /// Drops the dots of the key at `index` that the other side has seen (it does not hold the
  /// key), reporting the change. Returns whether none is left, leaving `entries` unwritten so
  /// that `index` still names the key: the caller removes it.
  @inlinable
  mutating func retire(
    at index: Dictionary<Key, DotSiblings<Value>>.Index, seenBy seenThere: inout ContextMembership,
    written: inout Bool, indexing: inout MergeIndexing,
    changed: (Key, DotSiblings<Value>?, DotSiblings<Value>?, Bool) -> Void
  ) -> Bool {
    let (key, mine) = entries[index]
    guard let kept = mine.filter({ !seenThere.contains($0) }) else {
      indexing.report(key, mine, nil, false, to: changed)
      return true
    }
    if kept.count != mine.count {
      entries.values[index] = kept
      written = true
      indexing.report(key, mine, kept, false, to: changed)
    }
    return false
  }

  /// After a merge of `other`: a delta joined with a delta names the keys either retires;
  /// joined with a state it becomes a state.
  ///
  /// The union is enough. A dot in the joined context comes from one side's context, where it
  /// was live under a key of that side's entries or retired under a key that side names. A
  /// live dot the join drops is dropped because the other side has seen it and does not hold
  /// it: retired there, under that key, which the other side names.
  @inlinable
  mutating func joinRetiredKeys(of other: DotKernel) {
    guard retiredKeys != nil else { return }
    guard let theirs = other.retiredKeys else {
      retiredKeys = nil
      return
    }
    retiredKeys!.formUnion(theirs)
  }

  /// Joins `theirs` into the live writes of `key` (`slot`, `nil` where absent here), and calls
  /// `changed` if they changed. The writes are moved out of the slot and back, not copied.
  @inlinable
  static func join(
    _ key: Key, _ slot: inout DotSiblings<Value>?, _ theirs: DotSiblings<Value>,
    seenHere: inout ContextMembership, seenThere: inout ContextMembership,
    indexing: inout MergeIndexing,
    changed: (Key, DotSiblings<Value>?, DotSiblings<Value>?, Bool) -> Void
  ) {
    guard let mine = slot.take() else {
      slot = theirs.filter { !seenHere.contains($0) }
      if slot != nil { indexing.report(key, nil, slot, true, to: changed) }
      return
    }
    if mine.hasSameDots(as: theirs) {
      slot = mine
      return
    }
    slot = DotSiblings.join(mine, seenBy: &seenHere, theirs, seenBy: &seenThere)
    indexing.report(key, mine, slot, true, to: changed)
  }

  /// The live index while a merge runs, with what it reports each change to.
  ///
  /// The merge moves the index out of the kernel, so that reporting a change can update it
  /// while `entries` is being written, and puts it back at the end. A merge of many keys (a
  /// full state) brings their dots in the order of the keys' hashes: they are gathered and
  /// added at the end, each replica's at once. A small one's dots go straight into the last
  /// blocks, which costs less than gathering them.
  ///
  /// It is passed down `inout` rather than captured: a variable that a local function
  /// captures, when the function is passed on as a closure, lives in a box whose every access
  /// is checked for exclusivity at run time, two checks per key a merge reports.
  @usableFromInline
  struct MergeIndexing {
    @usableFromInline var index: LiveDotIndex<Key>?
    @usableFromInline var additions: LiveDotIndex<Key>.Additions?

    /// Updates `index` (when kept), gathering the dots a merge adds when `gathering`.
    @inlinable
    init(_ index: consuming LiveDotIndex<Key>?, gathering: Bool) {
      additions = index != nil && gathering ? LiveDotIndex<Key>.Additions() : nil
      self.index = index
    }

    /// Updates the index for a change of `key`'s writes from `before` to `after` and reports
    /// it to `changed`.
    @inlinable
    mutating func report(
      _ key: Key, _ before: DotSiblings<Value>?, _ after: DotSiblings<Value>?, _ holds: Bool,
      to changed: (Key, DotSiblings<Value>?, DotSiblings<Value>?, Bool) -> Void
    ) {
      index?.replace(key, before, with: after, adding: &additions)
      changed(key, before, after, holds)
    }

    /// The index with the gathered dots added, to put back.
    @inlinable
    mutating func finish() -> LiveDotIndex<Key>? {
      if let gathered = additions.take() { index?.insert(contentsOf: gathered) }
      return index.take()
    }
  }

  // MARK: Deltas

  /// What a peer whose state has seen `version` may lack: the live dots it has not seen, and a
  /// context of the dots it has not seen plus the dots within `version` that are no longer
  /// live here (removed or overwritten), so that merging the delta removes them there too.
  ///
  /// - Complexity: with the live-dot index, O(*c* + *b*) for *c* live dots the peer has not
  ///   seen and *b* blocks of 64 counters up to `version` (see ``LiveDotIndex``), plus the
  ///   intervals of the context; without it, O(*n* + *d* log *d*) for *n* keys and *d* live dots
  ///   within `version`. The context part has one interval per run of dead dots within
  ///   `version`. Inlinable, so that each client specializes it for its keys and values.
  @inlinable
  func delta(since version: VersionVector) -> DotKernel? {
    var deltaEntries: [Key: DotSiblings<Value>] = [:]
    var seen = ContextMembership(CausalContext(version))
    let deltaContext: CausalContext
    if let index {
      context.replicas.forEachReplica(with: version.table) { replica, counters, bound in
        let bound = bound ?? 0
        // Most replicas' dots the peer has all seen: no key to look for in the index.
        guard let counters, counters.maximum > bound else { return }
        index.forEachKey(of: replica, in: (bound + 1)...UInt64.max) { key in
          guard deltaEntries[key] == nil,
            let fresh = entries[key]?.filter({ !seen.contains($0) })
          else { return }
          deltaEntries[key] = fresh
        }
      }
      deltaContext = context.delta(since: version) { index.liveRanges(of: $0, upTo: $1) }
    } else {
      var liveSeen = LiveDots()
      for index in entries.indices {
        var unseen = false
        entries.values[index].forEachDot { dot in
          if seen.contains(dot) { liveSeen.append(dot) } else { unseen = true }
        }
        if unseen, let fresh = entries.values[index].filter({ !seen.contains($0) }) {
          deltaEntries[entries.keys[index]] = fresh
        }
      }
      var live = liveSeen.grouped()
      deltaContext = context.delta(since: version) { replica, _ in
        var counters = live.removeValue(forKey: replica) ?? []
        counters.sort()
        return CounterSet.ranges(ofSorted: counters)
      }
    }
    if deltaEntries.isEmpty && deltaContext.isEmpty { return nil }
    return DotKernel(entries: deltaEntries, context: deltaContext)
  }

  // MARK: Order and invariants

  /// The lattice order, defined without ``merge(_:)``: `self` precedes `other` when `other`
  /// has seen every dot `self` has seen and has not revived any dot `self` dropped.
  func isLessThanOrEqual(to other: DotKernel) -> Bool {
    guard context.isSubset(of: other.context) else { return false }
    for (key, theirs) in other.entries {
      let mine = entries[key]
      let revived = !theirs.allDots { dot in
        !context.contains(dot) || (mine?.contains(dot) ?? false)
      }
      if revived { return false }
    }
    return true
  }

  /// The problem of a live dot of `key` that the context has not seen, as
  /// ``invariantViolations()`` and ``leastLiveDotProblem()`` word it.
  @inlinable
  static func notInContext(_ dot: Dot, _ key: Key) -> String {
    "key \(key): live dot \(dot) not in context"
  }

  /// The problem of a dot live under two keys, worded as ``notInContext(_:_:)`` is.
  @inlinable
  static func liveTwice(_ dot: Dot) -> String { "dot \(dot) is live twice" }

  /// Descriptions of broken invariants; empty when the state is sound.
  @inlinable
  package func invariantViolations() -> [String] {
    var problems: [String] = []
    // With an index, each live dot is looked up in it, and the counts compared: a dot live
    // under two keys is indexed under at most one of them. Without one, a set finds it.
    var seen: Set<Dot> = []
    var liveDots = 0
    for (key, siblings) in entries {
      if let rest = siblings.rest {
        if rest.isEmpty { problems.append("key \(key): an empty array of further siblings") }
        let values = siblings.elements
        if !zip(values, values.dropFirst()).allSatisfy({ $0.dot < $1.dot }) {
          problems.append("key \(key): siblings not sorted")
        }
      }
      siblings.forEachDot { dot in
        liveDots += 1
        if !context.contains(dot) { problems.append(Self.notInContext(dot, key)) }
        guard let index else {
          if !seen.insert(dot).inserted { problems.append(Self.liveTwice(dot)) }
          return
        }
        switch index.key(of: dot) {
        case key: break
        case let other? where entries[other]?.contains(dot) == true:
          problems.append(Self.liveTwice(dot))
        default: problems.append("key \(key): live dot \(dot) is not indexed under it")
        }
      }
    }
    if let index {
      problems += index.shapeViolations()
      if index.count != liveDots {
        problems.append("the live-dot index does not hold exactly the live dots")
      }
    }
    return problems
  }
}

extension DotKernel: Equatable where Value: Equatable {
  /// Equal entries, context and retired keys; the index, which follows from the entries, is
  /// not compared.
  @inlinable
  package static func == (lhs: DotKernel, rhs: DotKernel) -> Bool {
    lhs.entries == rhs.entries && lhs.context == rhs.context && lhs.retiredKeys == rhs.retiredKeys
  }
}
extension DotKernel: Sendable where Key: Sendable, Value: Sendable {}

extension DotKernel {
  /// Moves every live dot, with its value, to the key `transform` gives its current key.
  /// Dots whose keys collide become siblings of one key; the context is unchanged.
  ///
  /// No dot is minted or dropped, and the join works dot by dot, so remapping commutes with
  /// merge: `a.merging(b).remapped(f) == a.remapped(f).merging(b.remapped(f))`.
  func remapped(
    keys transform: (Key) -> Key, values: (Key, Value) -> Value
  ) -> DotKernel {
    var result: [Key: DotSiblings<Value>] = [:]
    result.reserveCapacity(entries.count)
    for (key, siblings) in entries {
      let newKey = transform(key)
      let moved = siblings.elements.map {
        DottedValue(dot: $0.dot, value: values(newKey, $0.value))
      }
      if let existing = result[newKey] {
        result[newKey] = DotSiblings(sorted: (existing.elements + moved).sorted { $0.dot < $1.dot })
      } else {
        result[newKey] = DotSiblings(sorted: moved)
      }
    }
    var remapped = DotKernel(
      entries: result, context: context, retiredKeys: retiredKeys.map { Set($0.map(transform)) })
    if index != nil { remapped.indexLiveDots() }
    return remapped
  }
}
