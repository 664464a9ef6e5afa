import ForagerModel

/// What a ``ReplicaStore`` knows of its snapshot and journal between saves: enough to append
/// the next line in place and to know when to compact.
struct FilePosition: Sendable {
  /// The sequence number of the last journal entry written or read (or that the snapshot
  /// holds).
  var sequence: UInt64 = 0
  /// The length of the journal's whole lines.
  var journalLength = 0
  /// The journal's length on disk, torn line included.
  var journalSize = 0
  /// Whether the journal ends in a torn line, cut before the next append.
  var hasTornTail: Bool { journalSize > journalLength }
  /// The journal's identity after this store last wrote it: `nil` when it only read it. An
  /// append finds the journal so, or writes a snapshot instead.
  var journalIdentity: FileIO.Identity?
  /// The snapshot's identity after this store last wrote it: `nil` when it only read it. A
  /// store of a device's copy in a shared folder appends to the journal only while the snapshot
  /// is so (see ``ReplicaStore/append(_:of:)``).
  var snapshotIdentity: FileIO.Identity?
  /// The snapshot's size in bytes, and the format it is in; `nil` when there is none.
  var snapshotLength = 0
  var snapshotFormat: Int64?
  /// The ids of the kept removals the snapshot holds: a journal line does not hold them.
  var removals: [RemovedRecords.ID] = []

  init() {}

  /// Where a store stands that opened no snapshot, beside `journal` (without entries).
  init(journal: ReplicaJournal.Contents?) {
    take(journal)
  }

  /// Where a store stands that opened `snapshot` and `journal`, before replaying it.
  init(snapshot: ReplicaFileContents, journal: ReplicaJournal.Contents?) {
    sequence = snapshot.journalSequence
    snapshotLength = snapshot.byteCount
    snapshotFormat = snapshot.format
    removals = snapshot.removals.map(\.id)
    take(journal)
  }

  private mutating func take(_ journal: ReplicaJournal.Contents?) {
    guard let journal else { return }
    journalLength = journal.validLength
    journalSize = journal.byteCount
  }

  /// The journal as the next append must find it.
  var journalExpectation: FileIO.Expectation {
    FileIO.Expectation(
      size: journalSize, identity: journalIdentity, cutTo: hasTornTail ? journalLength : nil)
  }

  mutating func snapshotWritten(
    _ length: Int, identity: FileIO.Identity?, removals kept: [RemovedRecords]
  ) {
    snapshotIdentity = identity
    snapshotLength = length
    snapshotFormat = ReplicaFileFormat.current
    removals = kept.map(\.id)
  }

  mutating func journalEmptied(_ identity: FileIO.Identity?) {
    journalLength = 0
    journalSize = 0
    journalIdentity = identity
  }

  mutating func appended(_ entry: UInt64, bytes: Int, identity: FileIO.Identity) {
    sequence = entry
    journalLength += bytes
    journalSize = journalLength
    journalIdentity = identity
  }
}
