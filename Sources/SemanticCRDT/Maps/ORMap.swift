// Inlining: the code marked @inlinable is generic over keys and values and runs per key or
// per dot in merges, deltas and reads. Inlined, it is specialized for the caller's types in
// the caller's module; not inlined, every comparison, hash and copy of a key or value goes
// through witness tables. @usableFromInline marks the stored state and helpers that inlined
// code reads; each stays `package` or internal, out of the public API.

/// A map with add-wins keys whose values are themselves CRDTs: the collection type for
/// entities.
///
/// ```swift
/// let (phoneID, tabletID) = (ReplicaID.random(), ReplicaID.random())
/// var phone = ORMap<String, GCounter>()
/// phone.update("cilantro", by: phoneID, default: GCounter()) { $0.increment(by: 1, replica: phoneID) }
/// var tablet = ORMap<String, GCounter>()
/// tablet.update("cilantro", by: tabletID, default: GCounter()) { $0.increment(by: 1, replica: tabletID) }
/// phone.merge(tablet)
/// phone["cilantro"]?.value   // 2
/// ```
///
/// ## Merge semantics
///
/// Every write of a key is an event with a fresh ``Dot`` that carries the value the writer
/// produced, and replaces the dots of that key the writer had seen. A remove drops the dots it
/// has seen. On merge, dots survive or fall as in ``ORSet``, so **a concurrent update and remove
/// leave the key present (add-wins)** with the updater's value. The value read for a key is the
/// ``Mergeable/merge(_:)`` of the values of its surviving dots: concurrent updates of one key
/// (two devices incrementing one counter, or editing different fields of one record) both
/// survive.
///
/// Keeping each value with the dot that wrote it, and joining on read, is what makes the map's
/// merge associative: a map that joined the stored values of both sides whenever a key survived
/// would resurrect values that a remove had already dropped, depending on the order of merges.
///
/// ## Complexity
///
/// Reading a key joins its surviving values: one in the common case. Merging a state is
/// O(*n* + *m*) hash lookups. The deltas that ``set(_:to:by:)``, ``update(_:by:default:_:)``
/// and ``remove(_:)`` return, and their merges, name the keys they remove, so merging one
/// costs O(its keys), whatever the size of the map. A delta carries the full value of each
/// changed key.
///
/// Each write's value is stored in an allocation of its own, so that the map's hash table holds
/// a key, a dot and a reference per bucket however large the values are, and a merge that moves
/// or copies a value retains one object (see ADR 0010).
///
/// - SeeAlso: Almeida, Shoker, Baquero, *Delta State Replicated Data Types* (2018), §7;
///   basho/riak_dt `riak_dt_map`.
public struct ORMap<Key: Hashable, Value: Nestable> {
  /// The writes, each value boxed (see ``Boxed``).
  @usableFromInline package var kernel: DotKernel<Key, Boxed<Value>>

  /// Creates an empty map.
  @inlinable
  public init() {
    kernel = DotKernel()
  }

  @usableFromInline
  package init(kernel: DotKernel<Key, Boxed<Value>>) {
    self.kernel = kernel
  }

  /// The empty delta: merging the deltas of mutations into it keeps a delta that names the
  /// keys it removes (see ``remove(_:)``), so that merging the join costs what the changes do.
  @inlinable package static var emptyDelta: ORMap { ORMap(kernel: .emptyDelta) }

  /// This map as a state: a delta without the keys it names as removed (for tests of them).
  package var stateForm: ORMap { ORMap(kernel: kernel.stateForm) }

  /// Starts keeping an index of the live writes by replica and counter, kept up to date by
  /// every later write and merge: ``delta(since:)`` then costs what the delta holds, and a
  /// merge of a small delta finds the keys it removes without visiting every key (ADR 0026).
  /// Copies of the map keep it; equality ignores it.
  ///
  /// - Complexity: O(*d* + *b*) for *d* live writes in *b* blocks when each replica's counters
  ///   are dense (O(*d* log *d*) otherwise), once; then O(log *b*) per write a
  ///   mutation or merge adds or drops, for *b* blocks of 64 counters of its replica.
  @inlinable
  package mutating func indexLiveDots() { kernel.indexLiveDots() }

  /// Whether the map keeps the index of ``indexLiveDots()``.
  package var keepsLiveDotIndex: Bool { kernel.index != nil }

  /// The value of `key`: the join of the values its surviving writes carry, or `nil` when the
  /// key is absent.
  ///
  /// - Complexity: O(1) with one surviving write; one merge per further concurrent write.
  @inlinable
  public subscript(key: Key) -> Value? {
    kernel.entries[key].map { Self.mergedValue(of: $0) }
  }

  /// The value of every present key, each the merge of its surviving writes, in no particular
  /// order. Reading them this way avoids a second lookup per key.
  ///
  /// - Complexity: O(1) to create; each element costs what reading its key costs.
  @inlinable
  public var values: some Collection<Value> {
    kernel.entries.values.lazy.map { Self.mergedValue(of: $0) }
  }

  /// The merge of the values of one key's surviving writes.
  @inlinable
  static func mergedValue(of siblings: DotSiblings<Boxed<Value>>) -> Value {
    guard let rest = siblings.rest else { return siblings.value.value }
    var joined = siblings.value.value
    for element in rest { joined.merge(element.value.value) }
    return joined
  }

  /// ``mergedValue(of:)`` in a box: the stored one for a single write, which costs no copy.
  @inlinable
  static func mergedBox(of siblings: DotSiblings<Boxed<Value>>) -> Boxed<Value> {
    siblings.isSingle ? siblings.value : Boxed(mergedValue(of: siblings))
  }

  /// Calls `body` with each key of one of `parts` near-equal parts of the map (the parts of
  /// ``greatestTimestamp(inPart:of:)``), and its value in a box: the whole by default, a part
  /// for a caller that reads one on each of several cores. The box is the stored one for a
  /// single write, so `body` reads the fields it needs where they are (`box.value.field`):
  /// copying a record out of its box would read all of it, and a check that reads a name or a
  /// key of every record reads a fraction. A key with several writes lends a new box of their
  /// merge.
  ///
  /// - Precondition: `parts >= 1` and `0 <= part < parts`.
  /// - Complexity: O(*n* / `parts`).
  @inlinable
  package func forEachBoxedValue(
    inPart part: Int = 0, of parts: Int = 1, _ body: (Key, Boxed<Value>) -> Void
  ) {
    let entries = kernel.entries
    for index in kernel.indices(ofPart: part, of: parts) {
      body(entries.keys[index], Self.mergedBox(of: entries.values[index]))
    }
  }

  /// Whether `key` is present.
  @inlinable
  public func contains(_ key: Key) -> Bool { kernel.entries[key] != nil }

  /// The present keys.
  @inlinable
  public var keys: some Collection<Key> { kernel.entries.keys }

  /// The number of present keys.
  @inlinable
  public var count: Int { kernel.entries.count }

  /// Whether no key is present.
  @inlinable
  public var isEmpty: Bool { kernel.entries.isEmpty }

  /// Every dot this map has seen.
  public var context: CausalContext { kernel.context }

  /// The number of concurrent writes of `key` that survive; more than 1 until a later write
  /// that has seen them all.
  @inlinable
  public func writeCount(of key: Key) -> Int { kernel.entries[key]?.count ?? 0 }

  /// The newest surviving write of `replica` to `key`, as its dot: how a checker names the write
  /// a replica just made.
  package func newestDot(of key: Key, by replica: ReplicaID) -> Dot? {
    var newest: Dot?
    kernel.entries[key]?.forEachDot { dot in
      if dot.replica == replica, dot.counter > newest?.counter ?? 0 { newest = dot }
    }
    return newest
  }

  /// Writes `value` for `key` as a new event of `replica`, replacing the writes of `key` this
  /// replica has seen. To change part of a value and keep the rest, use
  /// ``update(_:by:default:_:)``.
  ///
  /// A value that holds dots of its own (an ``MVRegister``, ``ORSet`` or ``ORMap``, or a record
  /// with such fields) is committed first (see ``Nestable``): the dots it introduces are minted
  /// from this map's context, and the write supersedes everything this replica has seen under
  /// `key`.
  ///
  /// - Returns: The delta of this change.
  /// - Complexity: O(1) for values without dots; otherwise also linear in the value's dots.
  @inlinable @discardableResult
  public mutating func set(_ key: Key, to value: Value, by replica: ReplicaID) -> ORMap {
    let (committed, minted) = commit(value, over: self[key], by: replica)
    return ORMap(kernel: kernel.write(Boxed(committed), for: key, by: replica, minted: minted))
  }

  /// Writes the value in `box` for `key` as a new event of `replica`, in that box: for a value
  /// whose commit leaves it as it is (it holds no dots of its own; see ``Nestable``), so that
  /// a copy of a record kept elsewhere shares the record's storage with the map it came from.
  ///
  /// - Precondition: Committing the value over anything changes nothing.
  /// - Complexity: O(1).
  @inlinable
  package mutating func set(_ key: Key, toBoxed box: Boxed<Value>, by replica: ReplicaID) {
    _ = kernel.write(box, for: key, by: replica)
  }

  /// Changes the value of `key` (starting from `defaultValue` when absent) as a new event of
  /// `replica`.
  ///
  /// The changed value is committed like a value passed to ``set(_:to:by:)``, so the dots that
  /// `body`'s changes mint are this map's, never a number the replica used before.
  ///
  /// - Parameters:
  ///   - key: The key to change.
  ///   - replica: The replica making the change.
  ///   - defaultValue: The value to start from when `key` is absent.
  ///   - body: Changes the value in place; it should use the value type's own mutators, so
  ///     that concurrent changes elsewhere merge with this one.
  /// - Returns: The delta of this change.
  /// - Complexity: that of reading `key`, plus `body`, plus committing the value.
  @inlinable @discardableResult
  public mutating func update(
    _ key: Key, by replica: ReplicaID, default defaultValue: @autoclosure () -> Value,
    _ body: (inout Value) throws -> Void
  ) rethrows -> ORMap {
    let previous = self[key]
    var value = previous ?? defaultValue()
    try body(&value)
    let (committed, minted) = commit(value, over: previous, by: replica)
    return ORMap(kernel: kernel.write(Boxed(committed), for: key, by: replica, minted: minted))
  }

  /// `value` committed as a write of `replica` over the key's `previous` value (see
  /// ``Nestable``), and the dots the commit minted from this map's context.
  @inlinable
  func commit(
    _ value: Value, over previous: @autoclosure () -> Value?, by replica: ReplicaID
  ) -> (Value, minted: [Dot]) {
    var scope = NestingScope(context: kernel.context, replica: replica)
    let committed = value.committed(over: previous(), in: &scope)
    return (committed, scope.minted)
  }

  /// Removes `key` as this replica has seen it; concurrent writes elsewhere survive.
  ///
  /// - Returns: The delta of this change.
  @inlinable @discardableResult
  public mutating func remove(_ key: Key) -> ORMap {
    ORMap(kernel: kernel.remove(key))
  }
}

extension ORMap: Equatable where Value: Equatable {}

extension ORMap: Mergeable {
  /// Joins `other` into this map; see "Merge semantics" above.
  ///
  /// - Complexity: O(*n* + *m*) for *n* and *m* keys.
  @inlinable
  public mutating func merge(_ other: ORMap) {
    kernel.merge(other.kernel)
  }

  /// Joins `other` into this map like ``merge(_:)``, and calls `changed` with every key whose
  /// writes the merge changed, what that did to it, and its writes before and after (`nil`
  /// where absent). A key whose writes stay the same is not reported, so the cost is that of
  /// the merge plus, per key reported, reading its value before and after.
  ///
  /// The writes are lent to `changed` rather than kept in the ``Change``: wherever an optional
  /// of them is copied in memory, the compiler copies it through the runtime's generic
  /// witnesses, which cost a fifth of a full state's merge while a key's writes were an enum
  /// (docs/benchmarks.md) and still cost some as a struct (ADR 0046).
  @inlinable
  package mutating func merge(
    _ other: ORMap,
    changed: (
      Key, Change, _ writesBefore: DotSiblings<Boxed<Value>>?,
      _ writesAfter: DotSiblings<Boxed<Value>>?
    ) -> Void
  ) {
    kernel.merge(other.kernel) { key, before, after, otherHoldsKey in
      changed(
        key, Change(writesBefore: before, writesAfter: after, otherHoldsKey: otherHoldsKey),
        before, after)
    }
  }

  /// Undoes a merge that reported `changes` (each key with its writes before the merge) and
  /// found the map with `context`: for a caller that merges in place and then refuses the
  /// result.
  ///
  /// - Complexity: O(*k*) for *k* keys.
  package mutating func undoMerge(
    restoring changes: WritesBefore<Key, Boxed<Value>>, context: CausalContext
  ) {
    kernel.undoMerge(restoring: changes, context: context)
  }

  /// What a merge changed, as a delta any replica may merge (ADR 0040): the writes after the
  /// merge of every key it changed, under a context of the dots the merge brought that this
  /// map had not seen, with every dot those keys held before and after.
  ///
  /// Every dot of that context that is live after the merge is among the delta's writes, so
  /// the delta is the merged map restricted to its context: part of a state of the household,
  /// which any replica may merge and lose nothing that merging the state would not. Merged into
  /// this map as it was before the merge, it gives the map as it is after. It names no keys it
  /// retires (its context reaches dots under keys it does not hold): a receiver looks for them.
  ///
  /// - Parameters:
  ///   - theirs: The context of the map merged in.
  ///   - seenBefore: This map's context before the merge.
  ///   - changes: Every key the merge reported, with its writes before.
  ///   - merged: The map the merge made, which holds each key's writes after.
  /// - Complexity: O(*k* + *d* log *d*) for *k* keys changed and *d* dots they held, plus the
  ///   contexts' intervals.
  @inlinable
  package static func delta(
    ofMerging theirs: CausalContext, into seenBefore: CausalContext,
    changing changes: WritesBefore<Key, Boxed<Value>>, merged: ORMap
  ) -> ORMap {
    var entries: [Key: DotSiblings<Boxed<Value>>] = [:]
    entries.reserveCapacity(changes.count)
    // The keys' dots come in the order of a hash table: gathered and sorted per replica, then
    // made ranges at once, rather than inserted one by one into intervals.
    var counters = ReplicaLists<UInt64>()
    // Passed `inout`, not captured: a local function's captures that a closure in it uses
    // again are boxed, and every access to them checked for exclusivity at run time.
    func noteAfter(
      _ key: Key, in entries: inout [Key: DotSiblings<Boxed<Value>>],
      _ counters: inout ReplicaLists<UInt64>
    ) {
      guard let after = merged.kernel.entries[key] else { return }
      after.forEachDot { counters.append($0.counter, of: $0.replica) }
      entries[key] = after
    }
    for (key, before) in changes.held {
      before.forEachDot { counters.append($0.counter, of: $0.replica) }
      noteAfter(key, in: &entries, &counters)
    }
    // A key that was absent, or whose writes only grew, held no dot before that it does not
    // hold after.
    for key in changes.absent { noteAfter(key, in: &entries, &counters) }
    for key in changes.grown { noteAfter(key, in: &entries, &counters) }
    // Each replica once, so the table is built as it comes, sorted once.
    var seen: [(ReplicaID, CounterSet)] = []
    counters.forEach { replica, counters in
      seen.append((replica, CounterSet(CounterSet.ranges(ofSorted: counters.sorted()))))
    }
    var context = theirs.subtracting(seenBefore)
    context.formUnion(CausalContext(replicas: ReplicaTable(seen)))
    return ORMap(kernel: DotKernel(entries: entries, context: context))
  }

  /// How a merge changed one key, as ``merge(_:changed:)`` reports it, with the key's value
  /// before and after. Each value is read once, as the change is made: a caller reads them
  /// several times over (to count, to announce, to recheck), and reading one joins the key's
  /// surviving writes.
  @usableFromInline package struct Change {
    /// Whether the map merged in holds the key. A key it does not hold changes only by losing
    /// writes the other map has seen and no longer holds.
    @usableFromInline package let otherHoldsKey: Bool
    /// The key's value before the merge, `nil` where it was absent: the box the map stores it
    /// in, so that a reader reads the parts it needs in place (`change.before?.value.part`)
    /// rather than copying the record; a new box only for a key with concurrent writes.
    @usableFromInline package let before: Boxed<Value>?
    /// The key's value after the merge, `nil` where it is absent, boxed like ``before``.
    @usableFromInline package let after: Boxed<Value>?
    /// Whether the merge changed the key's writes. A merge reports a key whose writes it
    /// joined even when the join kept its own (the other side held a write this side has seen
    /// superseded).
    @usableFromInline package let changedWrites: Bool

    /// Borrows the writes, so that making a change copies none of them (see
    /// ``ORMap/merge(_:changed:)``).
    @inlinable
    init(
      writesBefore: borrowing DotSiblings<Boxed<Value>>?,
      writesAfter: borrowing DotSiblings<Boxed<Value>>?, otherHoldsKey: Bool
    ) {
      self.otherHoldsKey = otherHoldsKey
      before = Self.box(of: writesBefore)
      after = Self.box(of: writesAfter)
      // Absent both times: unchanged; absent once: changed (`sameDots` is false).
      changedWrites =
        (before != nil || after != nil) && !Self.sameDots(writesBefore, writesAfter)
    }

    /// The merged value of `writes` in a box (``ORMap/mergedBox(of:)``), `nil` for none.
    @inlinable
    static func box(of writes: borrowing DotSiblings<Boxed<Value>>?) -> Boxed<Value>? {
      switch writes {
      case nil: nil
      case let writes?: mergedBox(of: writes)
      }
    }

    /// Whether both hold writes, with the same dots.
    @inlinable
    static func sameDots(
      _ first: borrowing DotSiblings<Boxed<Value>>?, _ second: borrowing DotSiblings<Boxed<Value>>?
    ) -> Bool {
      // One switch per side: switching on the pair would copy both into a tuple.
      switch first {
      case nil: false
      case let mine?:
        switch second {
        case nil: false
        case let theirs?: mine.hasSameDots(as: theirs)
        }
      }
    }

    /// Whether the key was absent before the merge.
    @inlinable package var wasAbsent: Bool { before == nil }
    /// Whether the key is absent after the merge.
    @inlinable package var isAbsent: Bool { after == nil }
  }
}

extension ORMap: DeltaMergeable {
  /// The events seen without gaps, per replica.
  public var version: VersionVector { kernel.context.versionVector }

  /// The writes a peer that has seen `version` lacks, and the removals of writes it has seen.
  ///
  /// - Complexity: O(*n* + *d* log *d*) for *n* keys and *d* live dots within `version`; for a
  ///   map that keeps the index of `indexLiveDots()` (ADR 0026), O(*c* + *b*) for *c* writes the
  ///   peer has not seen and *b* blocks of 64 counters within `version`. Either way, plus one
  ///   interval per run of removed writes within `version`.
  @inlinable
  public func delta(since version: VersionVector) -> ORMap? {
    kernel.delta(since: version).map { ORMap(kernel: $0) }
  }
}

extension ORMap: HybridTimestamped where Value: HybridTimestamped {
  /// The greatest timestamp in any stored value.
  ///
  /// - Complexity: O(*n*) over all stored values.
  @inlinable
  public var greatestTimestamp: HybridTimestamp? { greatestTimestamp(inPart: 0, of: 1) }

  /// The greatest timestamp in the stored values of one of `parts` near-equal parts of the map
  /// (in its storage order; together the parts hold every value once): for a caller that owns
  /// several cores and scans one part on each. The map itself never starts a thread.
  ///
  /// - Precondition: `parts >= 1` and `0 <= part < parts`.
  /// - Complexity: O(*n* / `parts`) over the part's stored values.
  @inlinable
  public func greatestTimestamp(inPart part: Int, of parts: Int) -> HybridTimestamp? {
    let values = kernel.entries.values
    var greatest: HybridTimestamp?
    // By index, reading each value in place: a for-in loop would copy every record.
    for index in kernel.indices(ofPart: part, of: parts) {
      if let stamp = values[index].greatestTimestamp() { greatest.raise(to: stamp) }
    }
    return greatest
  }
}

extension DotSiblings {
  /// The greatest timestamp among one key's values in an ``ORMap``: what the map's
  /// ``ORMap/greatestTimestamp`` is the greatest of, and what a reader of the map finds for each
  /// key as it reads it (one definition for both).
  ///
  /// - Complexity: O(*s*) for *s* siblings.
  @inlinable
  package func greatestTimestamp<Record: HybridTimestamped>() -> HybridTimestamp?
  where Value == Boxed<Record> {
    var greatest: HybridTimestamp?
    forEachElement { _, boxed in
      if let stamp = boxed.value.greatestTimestamp { greatest.raise(to: stamp) }
    }
    return greatest
  }
}

extension ORMap {
  /// The lattice order, defined independently of ``merge(_:)``; see ``ORSet``.
  package func isLessThanOrEqual(to other: ORMap) -> Bool {
    kernel.isLessThanOrEqual(to: other.kernel)
  }

  /// Descriptions of broken invariants; empty when the state is sound.
  @inlinable
  package func invariantViolations() -> [String] { kernel.invariantViolations() }
}

extension ORMap: Sendable where Key: Sendable, Value: Sendable {}

extension ORMap {
  /// Re-keys the map: every write moves, with its value changed by `value`, to the key
  /// `transform` gives. Writes whose new keys collide become concurrent writes of one key, so
  /// the value read there is their merge: records that now share a key become one.
  ///
  /// Nothing is forgotten and no new write is made, so replicas that apply the same transform
  /// converge with each other and with states re-keyed later:
  /// `a.merging(b).rekeyed(f, value: g) == a.rekeyed(f, value: g).merging(b.rekeyed(f, value: g))`.
  /// Use it to move a store to a new normalizer version.
  ///
  /// - Parameters:
  ///   - transform: The new key of each key; it must be a function of the key alone.
  ///   - value: The value under its new key (for example, with its stored key field updated);
  ///     it must be a function of its arguments alone.
  /// - Complexity: O(*n*) for *n* writes.
  public func rekeyed(_ transform: (Key) -> Key, value: (Key, Value) -> Value) -> ORMap {
    ORMap(kernel: kernel.remapped(keys: transform) { Boxed(value($0, $1.value)) })
  }
}
