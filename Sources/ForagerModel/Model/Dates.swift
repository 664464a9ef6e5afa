import Foundation

// Instants on the wire are whole milliseconds since 1970 (an `Int64`), the same number on
// every device; a `Date` is a binary fraction of seconds, which is not.

extension Date {
  /// The instant `milliseconds` after 1970-01-01 00:00 UTC.
  init(millisecondsSince1970 milliseconds: Int64) {
    self.init(timeIntervalSince1970: Double(milliseconds) / 1_000)
  }

  /// Whole milliseconds since 1970-01-01 00:00 UTC, rounded down.
  var millisecondsSince1970: Int64 {
    Int64((timeIntervalSince1970 * 1_000).rounded(.down))
  }
}
