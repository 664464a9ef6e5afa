// Inlining: the search runs in every lookup of a counter set's intervals, a live-dot index's
// blocks and a replica table's entries; inlined, it is specialized for the caller's elements
// and predicate in the caller's module.

extension RandomAccessCollection where Index == Int {
  /// The position of the first element of the second part, where `belongsInSecondPart` holds
  /// for every element from it on and for none before it (the collection is partitioned by
  /// it, as a sorted collection is by "not less than x"); `endIndex` when none belongs.
  ///
  /// - Complexity: O(log *n*) calls of `belongsInSecondPart`.
  @inlinable
  package func partitioningIndex(where belongsInSecondPart: (Element) -> Bool) -> Int {
    var (low, high) = (startIndex, endIndex)
    while low < high {
      let middle = low + (high - low) / 2
      if belongsInSecondPart(self[middle]) { high = middle } else { low = middle + 1 }
    }
    return low
  }
}
