// Inlining: the code marked @inlinable is generic over keys and values and runs per key or
// per dot in merges, deltas and reads. Inlined, it is specialized for the caller's types in
// the caller's module; not inlined, every comparison, hash and copy of a key or value goes
// through witness tables. @usableFromInline marks the stored state and helpers that inlined
// code reads; each stays `package` or internal, out of the public API.

/// The live dots of a dot store, by replica and counter, each with the key it lives under: how
/// a delta for a peer finds the keys holding dots the peer has not seen and the dots the peer
/// may still hold that are dead here, and how a merge finds the keys whose dots a small delta
/// retires, without visiting every key (see ADR 0026).
///
/// Per replica, the counters are kept in blocks of 64, sorted by block number: a bit per
/// counter and the keys of the set bits in bit order. A replica numbers its events in order, so
/// a new dot almost always lands in that replica's last block; a block that empties goes, so
/// that equal sets of dots have equal indexes.
///
/// - Complexity: Inserting or removing a dot is O(log *b*) for *b* blocks of its replica, plus
///   moving at most 63 keys within its block (and the blocks after it, when a block comes or
///   goes). A query costs the blocks it reads and the dots it reports.
@usableFromInline
package struct LiveDotIndex<Key: Hashable> {
  @usableFromInline var columns: [ReplicaID: Column] = [:]

  /// An empty index.
  @inlinable
  package init() {}

  /// The index of `entries`' live dots.
  ///
  /// - Complexity: O(*d* + *b*) for *d* live dots in *b* blocks when each replica's live
  ///   counters are dense (its blocks, empty ones included, no more than its dots), as a
  ///   replica's are that numbers its writes in order; O(*d* log *d*) otherwise.
  @inlinable
  package init<Value>(_ entries: [Key: DotSiblings<Value>]) {
    var additions = Additions()
    for position in entries.indices {
      // Only the dots are read, in place: the scan never touches a record's box (one cache miss
      // per record otherwise, more than half of the whole build's time).
      additions.append(entries.values[position].dot, under: entries.keys[position])
      if let rest = entries.values[position].rest {
        for value in rest { additions.append(value.dot, under: entries.keys[position]) }
      }
    }
    insert(contentsOf: additions)
  }

  /// The number of keys a merge brings from which it gathers their dots (``Additions``) rather
  /// than inserting each as it comes: a small merge's dots land in the last blocks, where an
  /// insert is cheap, and gathering them cost the 50-device simulation's merges a tenth more
  /// instructions (docs/benchmarks.md).
  @inlinable
  package static var gatheringThreshold: Int { 1_024 }

  /// Adds `additions`, each replica's at once: a replica the index does not hold yet gets its
  /// column built as ``init(_:)`` builds one; the dots of a replica it holds are inserted in
  /// counter order, so that each lands in or after the block of the one before.
  ///
  /// - Complexity: for *d* dots of a replica, O(*d* + *b*) when it is new and dense, as in
  ///   ``init(_:)``; O(*d* log *d*) plus the inserts otherwise.
  @inlinable
  package mutating func insert(contentsOf additions: Additions) {
    additions.dots.forEach { replica, dots in
      guard var column = columns.removeValue(forKey: replica) else {
        columns[replica] = Column(blocks: Column.placed(dots) ?? Column.sorted(dots))
        return
      }
      for (counter, key) in dots.sorted(by: { $0.counter < $1.counter }) {
        column.insert(counter, key)
      }
      columns[replica] = column
    }
  }

  /// Adds `dot`, live under `key`.
  @inlinable
  package mutating func insert(_ dot: Dot, _ key: Key) {
    columns[dot.replica, default: Column()].insert(dot.counter, key)
  }

  /// Removes `dot`, if present.
  @inlinable
  package mutating func remove(_ dot: Dot) {
    // One hash lookup: the position found is written through and, if need be, removed.
    guard let position = columns.index(forKey: dot.replica),
      columns.values[position].remove(dot.counter)
    else { return }
    // A replica without live dots has no column, so that equal sets have equal indexes.
    if columns.values[position].blocks.isEmpty { columns.remove(at: position) }
  }

  /// Records that the live dots of `key` changed from `before` to `after` (`nil` where the key
  /// is absent).
  ///
  /// - Complexity: O(*s*²) for *s* siblings (one or two, in practice), plus the updates.
  @inlinable
  package mutating func replace<Value>(
    _ key: Key, _ before: DotSiblings<Value>?, with after: DotSiblings<Value>?
  ) {
    var insertingEach: Additions? = nil
    replace(key, before, with: after, adding: &insertingEach)
  }

  /// Records that the live dots of `key` changed from `before` to `after`, removing what went
  /// at once; what came is inserted at once too when `additions` is `nil`, and otherwise
  /// appended to it, for ``insert(contentsOf:)`` to add with the rest of a merge's: a merge
  /// that brings many dots of one replica, in the order of its keys' hashes, then builds or
  /// extends that replica's column in counter order instead of inserting each dot into the
  /// middle of a block.
  ///
  /// The dots appended must not be removed before they are inserted: a merge reports each key
  /// once, after the keys whose dots it retires.
  ///
  /// - Complexity: O(*s*²) for *s* siblings, plus the updates.
  @inlinable
  package mutating func replace<Value>(
    _ key: Key, _ before: DotSiblings<Value>?, with after: DotSiblings<Value>?,
    adding additions: inout Additions?
  ) {
    before?.forEachDot { dot in
      if after?.contains(dot) != true { remove(dot) }
    }
    after?.forEachDot { dot in
      guard before?.contains(dot) != true else { return }
      if additions != nil {
        additions!.append(dot, under: key)
      } else {
        insert(dot, key)
      }
    }
  }

  /// Calls `body` with the key of each live dot of `replica` whose counter is in `counters`,
  /// in counter order (a key with several such dots comes once per dot).
  ///
  /// - Complexity: O(log *b* + the blocks within `counters` + the dots reported).
  @inlinable
  package func forEachKey(
    of replica: ReplicaID, in counters: ClosedRange<UInt64>, _ body: (Key) -> Void
  ) {
    guard let column = columns[replica] else { return }
    let last = counters.upperBound >> Block.shift
    var position = column.position(ofFirstFrom: counters.lowerBound >> Block.shift)
    while position < column.blocks.count, column.blocks[position].number <= last {
      column.blocks[position].forEachKey(in: counters, body)
      position += 1
    }
  }

  /// The live counters of `replica` up to `bound`, as sorted, disjoint, non-adjacent ranges.
  ///
  /// - Complexity: O(the blocks up to `bound` + the ranges).
  @inlinable
  package func liveRanges(of replica: ReplicaID, upTo bound: UInt64) -> [ClosedRange<UInt64>] {
    guard let column = columns[replica] else { return [] }
    var ranges: [ClosedRange<UInt64>] = []
    for block in column.blocks {
      if block.number > bound >> Block.shift { break }
      block.appendRanges(upTo: bound, to: &ranges)
    }
    return ranges
  }

  /// The key `dot` is indexed under, or `nil` when it is not indexed.
  ///
  /// - Complexity: O(log *b*) for *b* blocks of the dot's replica.
  @inlinable
  package func key(of dot: Dot) -> Key? {
    guard let column = columns[dot.replica] else { return nil }
    let number = dot.counter >> Block.shift
    let position = column.position(ofFirstFrom: number)
    guard position < column.blocks.count, column.blocks[position].number == number else {
      return nil
    }
    let (bits, bit) = (column.blocks[position].bits, dot.counter & 63)
    guard bits & (1 << bit) != 0 else { return nil }
    return column.blocks[position].keys[Block.rank(bit, in: bits)]
  }

  /// What breaks the index's own shape, which equal sets of dots must share: a column without
  /// blocks, an empty block, blocks out of order, or a block whose keys do not match its bits.
  /// Empty for a sound index.
  ///
  /// - Complexity: O(*b*) for *b* blocks.
  @inlinable
  package func shapeViolations() -> [String] {
    var problems: [String] = []
    for (replica, column) in columns {
      if column.blocks.isEmpty { problems.append("the index has an empty column for \(replica)") }
      for (earlier, later) in zip(column.blocks, column.blocks.dropFirst())
      where earlier.number >= later.number {
        problems.append("the index's blocks of \(replica) are out of order at \(later.number)")
      }
      for block in column.blocks
      where block.bits == 0 || block.keys.count != block.bits.nonzeroBitCount {
        problems.append("the index's block \(block.number) of \(replica) does not match its keys")
      }
    }
    return problems
  }

  /// The number of live dots indexed.
  @inlinable
  package var count: Int {
    columns.values.reduce(0) { total, column in
      column.blocks.reduce(total) { $0 + $1.keys.count }
    }
  }
}

extension LiveDotIndex {
  /// Dots to add to an index together (``insert(contentsOf:)``), kept by replica in the order
  /// they come.
  @usableFromInline
  package struct Additions {
    /// Each replica's counters, with the key each lives under.
    @usableFromInline var dots = ReplicaLists<(counter: UInt64, key: Key)>()

    /// No dots.
    @inlinable
    package init() {}

    /// Adds `dot`, to live under `key`.
    @inlinable
    package mutating func append(_ dot: Dot, under key: Key) {
      dots.append((dot.counter, key), of: dot.replica)
    }
  }
}

extension LiveDotIndex {
  /// The blocks of one replica's counters, sorted by number.
  @usableFromInline
  struct Column {
    @usableFromInline var blocks: [Block]

    @inlinable
    init(blocks: [Block] = []) {
      self.blocks = blocks
    }

    /// The blocks of `dots`, each dot put straight into its place (of a counter that comes
    /// twice, the later key): `nil` when the blocks from the lowest counter's to the highest's
    /// outnumber the dots (sparse counters, which `sorted(_:)` serves in less memory).
    ///
    /// - Complexity: O(*d* + *b*) for *d* dots over *b* blocks.
    @inlinable
    static func placed(_ dots: [(counter: UInt64, key: Key)]) -> [Block]? {
      guard let first = dots.first?.counter else { return [] }
      var (low, high) = (first >> Block.shift, first >> Block.shift)
      for position in dots.indices {
        low = min(low, dots[position].counter >> Block.shift)
        high = max(high, dots[position].counter >> Block.shift)
      }
      guard high - low < UInt64(dots.count) else { return nil }
      let span = Int(high - low) + 1
      var bits = [UInt64](repeating: 0, count: span)
      for position in dots.indices {
        let counter = dots[position].counter
        let block = Int((counter >> Block.shift) - low)
        bits[block] |= 1 << (counter & 63)
      }
      // All the blocks' keys in one sequence: where each block's start, then each dot's place
      // (a counter that comes twice has one place, which the later dot takes).
      var starts = [Int](repeating: 0, count: span + 1)
      for block in 0..<span { starts[block + 1] = starts[block] + bits[block].nonzeroBitCount }
      var order = [Int](repeating: 0, count: dots.count)
      for position in dots.indices {
        let counter = dots[position].counter
        let block = Int((counter >> Block.shift) - low)
        order[starts[block] + Block.rank(counter & 63, in: bits[block])] = position
      }
      var blocks: [Block] = []
      for block in 0..<span where bits[block] != 0 {
        blocks.append(
          Block(
            number: low + UInt64(block), bits: bits[block],
            keys: order[starts[block]..<starts[block + 1]].map { dots[$0].key }))
      }
      return blocks
    }

    /// The blocks of `dots`, sorted by counter and swept in order, so that each lands in or
    /// after the last block (the fast path of `insert`); of a counter that comes twice, the
    /// later key.
    ///
    /// - Complexity: O(*d* log *d*) for *d* dots.
    @inlinable
    static func sorted(_ dots: [(counter: UInt64, key: Key)]) -> [Block] {
      var column = Column()
      for (counter, key) in dots.sorted(by: { $0.counter < $1.counter }) {
        column.insert(counter, key)
      }
      return column.blocks
    }

    /// The position of the first block numbered `number` or more.
    @inlinable
    func position(ofFirstFrom number: UInt64) -> Int {
      // Most lookups are for the newest counters: try the last block before searching.
      if let last = blocks.last, last.number <= number {
        return last.number == number ? blocks.count - 1 : blocks.count
      }
      return blocks.partitioningIndex { $0.number >= number }
    }

    @inlinable
    mutating func insert(_ counter: UInt64, _ key: Key) {
      let number = counter >> Block.shift
      let position = position(ofFirstFrom: number)
      if position == blocks.count || blocks[position].number != number {
        blocks.insert(Block(counter), at: position)
      }
      blocks[position].insert(counter, key)
    }

    /// Removes `counter`; returns whether it was there.
    @inlinable
    mutating func remove(_ counter: UInt64) -> Bool {
      let number = counter >> Block.shift
      let position = position(ofFirstFrom: number)
      guard position < blocks.count, blocks[position].number == number,
        blocks[position].remove(counter)
      else { return false }
      if blocks[position].bits == 0 { blocks.remove(at: position) }
      return true
    }
  }

  /// The live counters `64 × number …< 64 × (number + 1)` of one replica: a bit each, and the
  /// keys of the set bits in bit order.
  @usableFromInline
  struct Block {
    @usableFromInline static var shift: UInt64 { 6 }
    @usableFromInline let number: UInt64
    @usableFromInline var bits: UInt64 = 0
    @usableFromInline var keys: [Key] = []

    /// The empty block that holds `counter`.
    @inlinable
    init(_ counter: UInt64) {
      number = counter >> Self.shift
    }

    /// The block numbered `number` with the counters of `bits` set, `keys` theirs in bit order.
    @inlinable
    init(number: UInt64, bits: UInt64, keys: [Key]) {
      (self.number, self.bits, self.keys) = (number, bits, keys)
    }

    /// The block's first counter.
    @inlinable var base: UInt64 { number << Self.shift }

    /// The number of set bits below `bit`: where its key is in `keys`.
    @inlinable
    func rank(_ bit: UInt64) -> Int {
      Self.rank(bit, in: bits)
    }

    /// The number of bits of `bits` set below `bit`: where a block with those bits keeps the
    /// key of `bit`.
    @inlinable
    static func rank(_ bit: UInt64, in bits: UInt64) -> Int {
      (bits & ((1 << bit) &- 1)).nonzeroBitCount
    }

    @inlinable
    mutating func insert(_ counter: UInt64, _ key: Key) {
      let bit = counter & 63
      if bits & (1 << bit) != 0 {
        keys[rank(bit)] = key
      } else {
        keys.insert(key, at: rank(bit))
        bits |= 1 << bit
      }
    }

    /// Removes `counter`; returns whether it was there.
    @inlinable
    mutating func remove(_ counter: UInt64) -> Bool {
      let bit = counter & 63
      guard bits & (1 << bit) != 0 else { return false }
      keys.remove(at: rank(bit))
      bits &= ~(1 << bit)
      return true
    }

    /// The bits of the counters in `counters`.
    @inlinable
    func mask(_ counters: ClosedRange<UInt64>) -> UInt64 {
      guard counters.upperBound >= base, counters.lowerBound <= base + 63 else { return 0 }
      let low = counters.lowerBound > base ? counters.lowerBound - base : 0
      let high = min(counters.upperBound - base, 63)
      let above: UInt64 = high == 63 ? ~0 : (1 << (high + 1)) &- 1
      return (~0 << low) & above
    }

    @inlinable
    func forEachKey(in counters: ClosedRange<UInt64>, _ body: (Key) -> Void) {
      var selected = bits & mask(counters)
      while selected != 0 {
        body(keys[rank(UInt64(selected.trailingZeroBitCount))])
        selected &= selected &- 1
      }
    }

    /// Appends the runs of set bits up to `bound` to `ranges`, joining a run that continues the
    /// last range.
    @inlinable
    func appendRanges(upTo bound: UInt64, to ranges: inout [ClosedRange<UInt64>]) {
      var remaining = bits & mask(0...bound)
      while remaining != 0 {
        let start = UInt64(remaining.trailingZeroBitCount)
        let length = UInt64((~(remaining >> start)).trailingZeroBitCount)
        let run = (base + start)...(base + start + length - 1)
        if let last = ranges.last, last.upperBound + 1 == run.lowerBound {
          ranges[ranges.count - 1] = last.lowerBound...run.upperBound
        } else {
          ranges.append(run)
        }
        remaining = length == 64 ? 0 : remaining & ~(((1 << length) &- 1) << start)
      }
    }
  }
}

extension LiveDotIndex: Equatable {}
extension LiveDotIndex.Column: Equatable {}
extension LiveDotIndex.Block: Equatable {}
extension LiveDotIndex: Sendable where Key: Sendable {}
extension LiveDotIndex.Column: Sendable where Key: Sendable {}
extension LiveDotIndex.Block: Sendable where Key: Sendable {}
extension LiveDotIndex.Additions: Sendable where Key: Sendable {}
