extension String {
  /// Whether `self` sorts before `other` by Unicode scalar values, the order of every key and
  /// id in this library. UTF-8 preserves scalar order, so this compares the UTF-8 bytes,
  /// without decoding scalars.
  ///
  /// - Complexity: O(length of the common prefix).
  public func precedesByScalars(_ other: String) -> Bool {
    var left = self
    var right = other
    return left.withUTF8 { a in
      right.withUTF8 { b in
        let common = Swift.min(a.count, b.count)
        var index = 0
        while index < common {
          if a[index] != b[index] { return a[index] < b[index] }
          index += 1
        }
        return a.count < b.count
      }
    }
  }
}
