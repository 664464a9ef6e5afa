/// When a store compacts its journal: an append that would take the journal past
/// ``limit(snapshotLength:)`` writes a snapshot instead and empties the journal.
///
/// The limit is a fraction of the snapshot's size, and never less than a floor. Opening then
/// reads at most the snapshot and that fraction more, and a compaction (which rewrites the
/// household) comes once per that fraction of the household written as changes: saving costs
/// O(change) amortized, and the journal never holds more than the limit (docs/decisions/0023).
public struct JournalCompaction: Hashable, Sendable {
  /// The journal may grow to this fraction of the snapshot's size.
  public var fractionOfSnapshot: Double
  /// The journal may always grow to this many bytes, however small the snapshot.
  public var minimumBytes: Int

  public init(fractionOfSnapshot: Double, minimumBytes: Int) {
    self.fractionOfSnapshot = fractionOfSnapshot
    self.minimumBytes = minimumBytes
  }

  /// A quarter of the snapshot, and at least 1 MiB: for a household of 100,000 records (a
  /// 41 MB snapshot) about 10 MB of changes between compactions, several thousand saves.
  public static let `default` = JournalCompaction(fractionOfSnapshot: 0.25, minimumBytes: 1 << 20)

  /// The most bytes the journal may hold beside a snapshot of `snapshotLength` bytes.
  public func limit(snapshotLength: Int) -> Int {
    max(minimumBytes, Int(Double(snapshotLength) * fractionOfSnapshot))
  }
}

/// What ``ReplicaStore/append(_:of:)`` wrote.
public enum JournalWrite: Hashable, Sendable {
  /// One line at the end of the journal.
  case line
  /// A snapshot, the journal emptied (a compaction).
  case snapshot
}
