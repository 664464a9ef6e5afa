import Foundation

// Inlining: the order is the tie-break of every pair of timestamps with equal clocks and the
// order of every sort of keys; called across modules, each call paid a function call and a
// byte loop.

extension String {
  /// Whether `self` sorts before `other` by Unicode scalar values, the order of every key and
  /// id in this library. UTF-8 preserves scalar order, so this compares the UTF-8 bytes,
  /// without decoding scalars: the common prefix with one `memcmp`, then the lengths.
  ///
  /// - Complexity: O(length of the common prefix).
  @inlinable
  public func precedesByScalars(_ other: String) -> Bool {
    var left = self
    var right = other
    return left.withUTF8 { a in
      right.withUTF8 { b in
        let common = Swift.min(a.count, b.count)
        if common > 0, let first = a.baseAddress, let second = b.baseAddress {
          let order = memcmp(first, second, common)
          if order != 0 { return order < 0 }
        }
        return a.count < b.count
      }
    }
  }
}
