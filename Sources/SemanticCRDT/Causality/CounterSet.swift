// Inlining: the code marked @inlinable is generic over keys and values and runs per key or
// per dot in merges, deltas and reads. Inlined, it is specialized for the caller's types in
// the caller's module; not inlined, every comparison, hash and copy of a key or value goes
// through witness tables. @usableFromInline marks the stored state and helpers that inlined
// code reads; each stays `package` or internal, out of the public API.

/// A set of event counters of one replica, stored as a contiguous prefix `1…prefix` and sorted,
/// disjoint, non-adjacent intervals above it.
///
/// A replica numbers its events without gaps, so a state that received them in order holds only
/// a prefix; out-of-order delivery and delta contexts leave a few intervals. The representation
/// is canonical: equal sets have equal stored values.
@usableFromInline
package struct CounterSet: Hashable, Sendable {
  /// Every counter in `1...prefix` is in the set (none when 0).
  @usableFromInline private(set) var prefix: UInt64 = 0
  /// Intervals above `prefix + 1`, sorted, disjoint and non-adjacent.
  @usableFromInline private(set) var intervals: [ClosedRange<UInt64>] = []

  init() {}

  /// The counters `1...prefix`: a replica's events seen without gaps.
  ///
  /// - Complexity: O(1).
  @usableFromInline
  init(prefix: UInt64) {
    self.prefix = prefix
  }

  /// Builds the canonical set holding the union of `ranges` (in any order, overlapping or not).
  ///
  /// An array, not any sequence: the inlinable code of other modules calls this, and a generic
  /// initializer not inlined there ran its filter and sort unspecialized, through witness
  /// tables, at a few hundred instructions a range.
  ///
  /// - Complexity: O(*k* log *k*) for *k* ranges.
  @usableFromInline
  package init(_ ranges: [ClosedRange<UInt64>]) {
    let sorted = ranges.filter { $0.upperBound > 0 }.sorted { $0.lowerBound < $1.lowerBound }
    var merged: [ClosedRange<UInt64>] = []
    merged.reserveCapacity(sorted.count)
    for range in sorted {
      let range = max(range.lowerBound, 1)...range.upperBound
      if let last = merged.last,
        last.upperBound == .max || range.lowerBound <= last.upperBound + 1
      {
        merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
      } else {
        merged.append(range)
      }
    }
    if let first = merged.first, first.lowerBound == 1 {
      prefix = first.upperBound
      merged.removeFirst()
    }
    intervals = merged
  }

  var isEmpty: Bool { prefix == 0 && intervals.isEmpty }

  /// The greatest counter in the set, or 0.
  @usableFromInline package var maximum: UInt64 { intervals.last?.upperBound ?? prefix }

  /// The set as sorted, disjoint, non-adjacent ranges.
  @usableFromInline package var ranges: [ClosedRange<UInt64>] {
    prefix == 0 ? intervals : [1...prefix] + intervals
  }

  /// The number of ``ranges``, without building them.
  var rangeCount: Int { (prefix == 0 ? 0 : 1) + intervals.count }

  /// The number of counters in the set.
  var count: UInt64 {
    intervals.reduce(prefix) { $0 + ($1.upperBound - $1.lowerBound + 1) }
  }

  /// - Complexity: O(1) for counters in the prefix, O(log *k*) otherwise.
  @inlinable
  func contains(_ counter: UInt64) -> Bool {
    if counter <= prefix { return counter > 0 }
    let index = firstInterval(reaching: counter)
    return index < intervals.count && intervals[index].contains(counter)
  }

  /// The index of the first interval whose upper bound is at least `counter`, or the count of
  /// intervals when none is.
  ///
  /// - Complexity: O(log *k*).
  @inlinable
  func firstInterval(reaching counter: UInt64) -> Int {
    intervals.partitioningIndex { $0.upperBound >= counter }
  }

  /// - Complexity: O(log *k*) plus the intervals moved: none for the counter after the prefix
  ///   when no interval follows it, the common case of a replica's writes merged in order.
  mutating func insert(_ counter: UInt64) {
    precondition(counter > 0)
    formUnion(counter...counter)
  }

  /// - Complexity: O(1) when both sets are prefixes; O(*k'* log *k*) plus the intervals moved
  ///   for the *k'* ranges of `other` when they are few, or few beside the *k* here (a delta's
  ///   context joined into a state's, whose removals leave many); O((*k* + *k'*) log(*k* +
  ///   *k'*)) otherwise.
  mutating func formUnion(_ other: CounterSet) {
    if other.intervals.isEmpty && other.prefix <= prefix { return }
    if intervals.isEmpty && other.intervals.isEmpty {
      prefix = max(prefix, other.prefix)
      return
    }
    if other.intervals.count <= Self.fewIntervals || other.intervals.count < intervals.count / 8 {
      if other.prefix > 0 { formUnion(1...other.prefix) }
      for range in other.intervals { formUnion(range) }
      return
    }
    self = CounterSet(ranges + other.ranges)
  }

  /// The most intervals a union places one by one whatever the size of the set it joins: below
  /// this, joining and sorting the two lists costs more in allocations than the lookups.
  static let fewIntervals = 4

  /// Adds the counters of `range` (its lower bound at least 1), keeping the set canonical: the
  /// intervals it overlaps or touches are joined with it, and the prefix takes in what then
  /// follows it without a gap.
  ///
  /// - Complexity: O(log *k*) plus the intervals joined and those moved after them.
  private mutating func formUnion(_ range: ClosedRange<UInt64>) {
    var (low, high) = (range.lowerBound, range.upperBound)
    if high <= prefix { return }
    if low <= prefix + 1 {
      prefix = high
      var absorbed = 0
      while absorbed < intervals.count, prefix < .max,
        intervals[absorbed].lowerBound <= prefix + 1
      {
        prefix = max(prefix, intervals[absorbed].upperBound)
        absorbed += 1
      }
      intervals.removeFirst(absorbed)
      return
    }
    // `low` is above `prefix + 1`, so `low - 1` is at least 1: the first interval that ends
    // where the range starts or later may touch it.
    let first = firstInterval(reaching: low - 1)
    var last = first
    while last < intervals.count, high == .max || intervals[last].lowerBound <= high + 1 {
      low = min(low, intervals[last].lowerBound)
      high = max(high, intervals[last].upperBound)
      last += 1
    }
    intervals.replaceSubrange(first..<last, with: CollectionOfOne(low...high))
  }

  /// The counters greater than `bound`.
  ///
  /// - Complexity: O(log *k*) to find where they start, plus the intervals kept.
  func above(_ bound: UInt64) -> CounterSet {
    if bound == 0 { return self }
    var result = CounterSet()
    guard bound < maximum else { return result }
    if bound < prefix {
      // What is left of the prefix starts at 2 or later: an interval, before all the others.
      result.intervals.reserveCapacity(intervals.count + 1)
      result.intervals.append(bound + 1...prefix)
      result.intervals.append(contentsOf: intervals)
      return result
    }
    // `bound` is below the maximum, so an interval reaches past it.
    let first = firstInterval(reaching: bound + 1)
    result.intervals = Array(intervals[first...])
    let start = result.intervals[0]
    if start.lowerBound <= bound { result.intervals[0] = bound + 1...start.upperBound }
    return result
  }

  /// The counters at most `bound`, except those in `excluded` (sorted, disjoint ranges).
  ///
  /// - Complexity: O(*k* + *e*) for *k* intervals here and *e* excluded ranges.
  func upTo(_ bound: UInt64, excluding excluded: [ClosedRange<UInt64>]) -> CounterSet {
    var result = CounterSet()
    var next = excluded.startIndex
    // The ranges here are sorted and apart, and what is cut out of one leaves gaps: the pieces
    // come in order, apart, and only the first may start at 1, so the result is built canonical
    // as it goes, with no sort.
    func keep(_ piece: ClosedRange<UInt64>) {
      if piece.lowerBound == 1 {
        result.prefix = piece.upperBound
      } else {
        result.intervals.append(piece)
      }
    }
    func cut(_ range: ClosedRange<UInt64>) {
      let high = min(range.upperBound, bound)
      while next < excluded.endIndex && excluded[next].upperBound < range.lowerBound { next += 1 }
      // The start of what is left of the range; nil once an excluded range covers the rest,
      // which may reach into the next range, so it stays the next one to look at.
      var low: UInt64? = range.lowerBound
      while let start = low, next < excluded.endIndex, excluded[next].lowerBound <= high {
        let cut = excluded[next]
        if cut.lowerBound > start { keep(start...(cut.lowerBound - 1)) }
        if cut.upperBound >= high {
          low = nil
        } else {
          low = cut.upperBound + 1
          next += 1
        }
      }
      if let start = low, start <= high { keep(start...high) }
    }
    if prefix > 0 { cut(1...prefix) }
    for range in intervals {
      guard range.lowerBound <= bound else { break }
      cut(range)
    }
    return result
  }

  /// The counters here that `other` does not hold.
  ///
  /// - Complexity: O(log *k*) plus the intervals kept when `other` is a prefix (a context that
  ///   has seen every counter up to its greatest, as most have); O(*k* + *e*) for *k* intervals
  ///   here and *e* in `other` otherwise.
  func subtracting(_ other: CounterSet) -> CounterSet {
    other.intervals.isEmpty ? above(other.prefix) : upTo(maximum, excluding: other.ranges)
  }

  /// Ascending counters as the sorted, disjoint, non-adjacent ranges they make up.
  @usableFromInline
  package static func ranges(ofSorted counters: [UInt64]) -> [ClosedRange<UInt64>] {
    var ranges: [ClosedRange<UInt64>] = []
    for counter in counters {
      if let last = ranges.last, counter <= last.upperBound + 1 {
        ranges[ranges.count - 1] = last.lowerBound...max(last.upperBound, counter)
      } else {
        ranges.append(counter...counter)
      }
    }
    return ranges
  }

  /// Whether every counter of `self` is in `other`.
  ///
  /// - Complexity: O(*k* log *k'*) for *k* intervals here and *k'* in `other`.
  func isSubset(of other: CounterSet) -> Bool {
    if prefix > other.prefix { return false }
    return intervals.allSatisfy(other.contains(range:))
  }

  /// Whether every counter of `range` is in the set. (A range that runs from the prefix past
  /// it misses the counter after the prefix, which no interval holds: the lookup finds no
  /// interval that starts low enough.)
  ///
  /// - Complexity: O(log *k*).
  private func contains(range: ClosedRange<UInt64>) -> Bool {
    if range.upperBound <= prefix { return true }
    let index = firstInterval(reaching: range.lowerBound)
    return index < intervals.count && intervals[index].lowerBound <= range.lowerBound
      && range.upperBound <= intervals[index].upperBound
  }
}

extension CounterSet {
  /// Whether some counter is in both sets.
  ///
  /// - Complexity: O(*k* log *k'*) for the *k* intervals of the set with fewer and the *k'* of
  ///   the other: a delta's context against a state's looks up each of the delta's few.
  func intersects(_ other: CounterSet) -> Bool {
    let (fewer, more) = intervals.count <= other.intervals.count ? (self, other) : (other, self)
    if fewer.prefix > 0 && more.intersects(1...fewer.prefix) { return true }
    return fewer.intervals.contains(where: more.intersects)
  }

  /// Whether some counter of `range` (its lower bound at least 1) is in the set.
  ///
  /// - Complexity: O(log *k*).
  private func intersects(_ range: ClosedRange<UInt64>) -> Bool {
    if range.lowerBound <= prefix { return true }
    let index = firstInterval(reaching: range.lowerBound)
    return index < intervals.count && intervals[index].lowerBound <= range.upperBound
  }
}
