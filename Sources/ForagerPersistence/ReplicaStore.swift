import ForagerModel
import Foundation
import SemanticCRDT
import SemanticCRDTJSON
internal import SharedSupport

/// One replica's files: open them at launch, append each change to the journal, and now and
/// then compact the journal into a new snapshot.
///
/// - A replica is a snapshot file plus a journal beside it (`ReplicaJournal`):
///   ``append(_:of:)`` writes one line per save, O(change), instead of the whole household;
///   ``save(_:)`` writes a snapshot and empties the journal. Opening reads the snapshot and
///   replays the journal entries it does not hold, dropping a torn last line (it was never
///   acknowledged). The journal stays bounded: an append that would take it past
///   ``compaction`` writes a snapshot instead (docs/decisions/0023).
///
/// - Saving is atomic and durable: a crash at any moment leaves the previous file or the new
///   one, never a torn one, and the files are readable and writable by their owner only. A
///   crash between writing a snapshot and emptying the journal leaves entries the snapshot
///   holds, which opening skips by their sequence numbers.
/// - Opening a missing file gives an empty replica (first launch). Opening a damaged file, a
///   file of another household or one written by a newer build throws a ``StoreError`` and
///   leaves the file exactly as it was.
/// - **Every open takes a fresh replica id (an incarnation).** A file may be an older copy of
///   itself (a restored backup, a reinstall that kept an old file); a replica continuing from
///   it under its old id would reissue dots its peers have already seen, and they would
///   discard the new writes as known. A fresh id cannot collide. Its cost, one version-vector
///   entry per session that writes, is discussed in docs/decisions/0006.
/// - Fields of the file's envelope that this build does not know (a newer build wrote them)
///   stay with the store that opened the file, beside the replica, and its saves write them
///   back: the replica holds the household, the store holds what the file says around it.
///
/// One process owns a replica file at a time; replicas of other devices live in other files.
///
/// ```swift
/// var store = ReplicaStore(fileURL: file)
/// var replica = try store.open(household: household, member: me)
/// _ = try replica.getOrCreateCategory(displayName: "Produce")
/// if let change = replica.takeLocalDelta() { try store.append(change, of: replica) }
/// ```
public struct ReplicaStore: Sendable {
  /// The replica's file.
  public let fileURL: URL
  /// The largest file this store reads, in bytes; a larger one is refused with
  /// ``StoreError/Problem/tooLarge(size:limit:)`` before it is read.
  public var maximumFileSize: Int

  /// The default ``maximumFileSize``: the platform's (``PlatformLimits/maximumFileSize``),
  /// 256 MiB, or 32 MiB on watchOS. A household of 100,000 records is about 41 MB, so 256 MiB
  /// is room for about 600,000 and 32 MiB for about 75,000; a file past it is damage or an
  /// attack, or on a watch more than it can hold in memory.
  public static let defaultMaximumFileSize = PlatformLimits.current.maximumFileSize
  /// How many cores reading the file may use. With `Cores.two` (the default) a large file's
  /// checksum and the second half of its long maps are read on another thread: a file of
  /// 100,000 records loads in about half the time. Give `Cores.one` where no core is free,
  /// such as a process that opens many stores at once. This is the one place a load decides.
  public var loadingCores: Cores
  /// The envelope fields of the file this store last opened that this build does not know,
  /// as their JSON bytes, written back by ``save(_:)``.
  private var carriedFields: [String: [UInt8]] = [:]

  /// Names of envelope fields this store writes back unchanged: those of the file it last
  /// opened that a newer build wrote and this one does not know. Empty before an open.
  public var carriedFieldNames: [String] { carriedFields.keys.sorted() }
  /// When an append writes a snapshot instead of a journal line.
  public var compaction: JournalCompaction
  /// What this store knows of its files since it opened or last wrote them.
  private var position = FilePosition()
  /// Whether the files live in a folder other programs write to (a shared folder): then a
  /// save never writes through a link at the snapshot's name but replaces the link, and it
  /// removes the journal (the name, never a file it links to) before the new snapshot lands,
  /// so that a reader never takes the old journal for the new snapshot's (a save killed
  /// between the two leaves the old snapshot with no journal, which a reader reads whole). A
  /// device's own replica, the default, writes the file a link at its name points to, and
  /// empties the journal last (ADR 0028).
  package var isShared = false
  /// Failures the next file operations meet: for tests of what a failing disk leaves.
  package var faults = FileFaults()

  public init(
    fileURL: URL, maximumFileSize: Int = ReplicaStore.defaultMaximumFileSize,
    loadingCores: Cores = .two, compaction: JournalCompaction = .default
  ) {
    self.fileURL = fileURL
    self.maximumFileSize = maximumFileSize
    self.loadingCores = loadingCores
    self.compaction = compaction
  }

  /// The replica's journal, beside its file (see `ReplicaJournal.url(of:)`).
  public var journalURL: URL { ReplicaJournal.url(of: fileURL) }

  /// The journal's length in bytes as this store last read or wrote it.
  public var journalLength: Int { position.journalLength }

  /// The file's contents as stored, or `nil` when there is no file. Opens no replica and mints
  /// nothing: for inspecting files.
  public func read() throws(StoreError) -> ReplicaFileContents? {
    try read(checkingModel: true)
  }

  /// The file's contents, its household checked against the model's invariants or not (for
  /// ``open(_:journal:file:household:member:wallClock:incarnation:)``, which checks the
  /// household the journal leaves).
  package func read(checkingModel: Bool) throws(StoreError) -> ReplicaFileContents? {
    guard let bytes = try bytes(of: fileURL) else { return nil }
    var contents =
      checkingModel
      ? try ReplicaFileFormat.decode(bytes, file: fileURL, cores: loadingCores)
      : try ReplicaFileFormat.decodeUnchecked(bytes, file: fileURL, cores: loadingCores)
    contents.byteCount = bytes.count
    contents.isModelChecked = checkingModel
    return contents
  }

  /// The journal's contents as stored, or `nil` when there is none. Changes nothing: a torn
  /// last line is reported (`ReplicaJournal.Contents.droppedTornLine`), not cut.
  package func readJournal() throws(StoreError) -> ReplicaJournal.Contents? {
    guard let bytes = try journalBytes() else { return nil }
    return try ReplicaJournal.decode(bytes, file: journalURL)
  }

  /// The journal's bytes as stored, read within ``maximumFileSize``, or `nil` when there is
  /// none: for a reader that decodes only the lines it has not read.
  package func journalBytes() throws(StoreError) -> [UInt8]? {
    try bytes(of: journalURL)
  }

  /// The bytes of `file` (the snapshot or the journal), read within ``maximumFileSize``, or
  /// `nil` when there is no such file.
  package func bytes(of file: URL) throws(StoreError) -> [UInt8]? {
    do {
      return try FileIO.readFile(file.path, limit: maximumFileSize)
    } catch {
      if let (size, limit) = error.tooLarge {
        throw StoreError(file: file, problem: .tooLarge(size: size, limit: limit))
      }
      throw StoreError(file: file, problem: .unreadable(error.reason))
    }
  }

  /// Opens the replica of this device for `household`, under a fresh replica id.
  ///
  /// - Parameters:
  ///   - household: The household the file must hold (a file of another is refused).
  ///   - member: The device's member, used when there is no file yet; an existing file keeps
  ///     the member it records.
  ///   - wallClock: The clock for new timestamps. The replica's clock resumes after both the
  ///     clock reading stored in the file and the greatest timestamp in the state, so nothing
  ///     it writes sorts before what the file already holds.
  ///   - incarnation: The replica id of this session. Leave the default, a fresh random id;
  ///     a deterministic simulation passes one drawn from its seeded generator (see
  ///     ``mintReplicaID(using:)``). Never pass an id used before.
  /// - Throws: ``StoreError``; the file is never modified by opening (temporary files left by
  ///   a crashed save are removed).
  public mutating func open(
    household: HouseholdID, member: MemberID, wallClock: WallClock = .system,
    incarnation: ReplicaID = ReplicaStore.mintReplicaID()
  ) throws(StoreError) -> HouseholdReplica {
    let (stored, journal) = try readSnapshotAndJournal()
    // Temporary files of a save that crashed, including one before the first save finished.
    FileIO.removeLeftovers(of: fileURL.path)
    return try open(
      stored, journal: journal, file: fileURL, household: household, member: member,
      wallClock: wallClock, incarnation: incarnation)
  }

  /// The snapshot's contents (its model unchecked) and the journal's, the journal read on the
  /// second core when the store may use it.
  private func readSnapshotAndJournal() throws(StoreError) -> (
    ReplicaFileContents?, ReplicaJournal.Contents?
  ) {
    guard loadingCores == .two else { return (try read(checkingModel: false), try readJournal()) }
    let store = self
    let (stored, journal) = try concurrently({ () throws(StoreError) in
      try store.read(checkingModel: false)
    }) {
      Result { () throws(StoreError) in try store.readJournal() }
    }
    return (stored, try journal.get())
  }

  /// Opens a replica from a file's decoded contents (or `nil` for no file) and its journal's
  /// exactly as ``open(household:member:wallClock:incarnation:)`` does, and keeps the envelope
  /// fields it does not know for this store's saves: for a caller that reads the bytes itself,
  /// such as the simulator's in-memory disk or a tool that writes a merged file elsewhere.
  ///
  /// - Parameter file: Named in errors.
  package mutating func open(
    _ stored: consuming ReplicaFileContents?, journal: ReplicaJournal.Contents? = nil, file: URL,
    household: HouseholdID, member: MemberID, wallClock: WallClock, incarnation: ReplicaID
  ) throws(StoreError) -> HouseholdReplica {
    guard var contents = stored.take() else {
      try requireSnapshot(for: journal)
      carriedFields = [:]
      position = FilePosition(journal: journal)
      return HouseholdReplica(
        joining: household, member: member, replica: incarnation, wallClock: wallClock)
    }
    guard contents.state.householdID == household else {
      throw StoreError(
        file: file,
        problem: .differentHousehold(expected: household, found: contents.state.householdID))
    }
    guard contents.state.normalizerVersion <= .current else {
      throw StoreError(
        file: file,
        problem: .newerNormalizer(found: contents.state.normalizerVersion, supported: .current))
    }
    // The file is bytes from outside too: its own stamps pass the skew bound, or one file
    // stamped a century ahead would freeze last-writer-wins for every device it reaches.
    var clock = HybridClock(replica: incarnation, wallClock: wallClock)
    do {
      if let stored = contents.clock {
        try clock.observe(
          HybridTimestamp(
            wallMilliseconds: stored.wallMilliseconds, logical: stored.logical,
            replica: incarnation))
      }
      if let greatest = contents.greatestTimestampRead
        ?? contents.state.greatestTimestamp(cores: loadingCores)
      {
        try clock.observe(greatest)
      }
    } catch {
      throw StoreError(file: file, problem: .clockSkew(error))
    }
    var replica = HouseholdReplica(state: contents.state, member: contents.member, clock: clock)
    // Every incarnation that wrote these files was this device's (docs/decisions/0029).
    var incarnations = contents.incarnations + [contents.replica]
    incarnations += (journal?.entries ?? []).map(\.replica)
    var seen: Set<ReplicaID> = [incarnation]
    replica.pastIncarnations = incarnations.filter { seen.insert($0).inserted }
    // The replica holds the only reference to the household's maps, so that replaying the
    // journal changes them in place instead of copying each map it writes.
    contents.state = HouseholdState(emptyLike: contents.state)
    replica.removals = contents.removals
    var position = FilePosition(snapshot: contents, journal: journal)
    let replayed = try replay(
      journal, after: contents.journalSequence, into: &replica, reaching: &position)
    // The household opened must be sound: checked once, on what the journal left.
    if replayed || !contents.isModelChecked {
      let problems = replica.state.modelViolations(cores: loadingCores)
      if !problems.isEmpty {
        throw StoreError(
          file: replayed ? journalURL : file, problem: .unsound(Array(problems.prefix(3))))
      }
    }
    carriedFields = contents.carriedFields
    self.position = position
    return replica
  }

  /// Refuses a journal with entries when there is no snapshot: they alone are not a household,
  /// and starting a new one beside them would lose them.
  package func requireSnapshot(for journal: ReplicaJournal.Contents?) throws(StoreError) {
    if let journal, !journal.entries.isEmpty {
      throw StoreError(file: journalURL, problem: .journalWithoutSnapshot)
    }
  }

  /// Merges the journal's entries after `sequence` into `replica`, each checked as a file is
  /// (see ``HouseholdReplica/replay(_:clockReading:)``); returns whether there were any. The
  /// household they leave is the caller's to check.
  private func replay(
    _ journal: ReplicaJournal.Contents?, after sequence: UInt64,
    into replica: inout HouseholdReplica, reaching position: inout FilePosition
  ) throws(StoreError) -> Bool {
    guard let journal else { return false }
    var replayed = false
    var claimed: Set<ReplicaID> = []
    for entry in journal.entries where entry.sequence > sequence {
      do {
        try replica.replay(
          entry.delta, clockReading: entry.clock.map { ($0.wallMilliseconds, $0.logical) },
          greatestTimestamp: entry.greatestTimestampRead, claimed: &claimed)
      } catch {
        switch error {
        case .massRemoval, .removesOwnerOrEveryMember, .tooManyReplicas, .tooManyIntervals:
          throw StoreError(
            file: journalURL, problem: .refusedLine(sequence: entry.sequence, error))
        default:
          throw StoreError(file: journalURL, problem: .refusing(error))
        }
      }
      position.sequence = entry.sequence
      replayed = true
    }
    replica.answerReplayedClaims(claimed)
    return replayed
  }

  /// A store of another file that saves what this one does, envelope fields it carries
  /// included: for writing an opened replica to a second place (a shared folder, say).
  package func relocated(to fileURL: URL) -> ReplicaStore {
    var store = ReplicaStore(
      fileURL: fileURL, maximumFileSize: maximumFileSize, loadingCores: loadingCores)
    store.carriedFields = carriedFields
    return store
  }

  /// This store, knowing what it knows of its files, with its file named by another URL (the
  /// one a file coordinator hands out for the same file).
  package func reached(at fileURL: URL) -> ReplicaStore {
    var store = relocated(to: fileURL)
    store.compaction = compaction
    store.position = position
    store.isShared = isShared
    store.faults = faults
    return store
  }

  /// Removes the temporary files that saves of this file left when they were killed midway.
  /// ``open(household:member:wallClock:incarnation:)`` does it; a tool that writes the file
  /// without opening it calls this.
  public func removeLeftovers() {
    FileIO.removeLeftovers(of: fileURL.path)
  }

  /// Removes the temporary files of this file that no save can still be writing: those last
  /// modified ``abandonedSaveAge`` or longer ago. For a process that reads the file without
  /// owning it (another device's file in a shared folder, say), where a newer temporary file
  /// may belong to a save in progress.
  public func removeAbandonedLeftovers() {
    FileIO.removeLeftovers(
      of: fileURL.path, minimumAge: Int(Self.abandonedSaveAge.components.seconds))
  }

  /// One hour: a save writes a household of 100,000 records in under a second, so a temporary
  /// file untouched for an hour belongs to a save that was killed.
  public static let abandonedSaveAge = Duration.seconds(60 * 60)

  /// Saves `replica` atomically in the current format as a new snapshot, then empties the
  /// journal: a compaction. The snapshot records the last journal sequence this store wrote or
  /// read, so `replica` must hold every change appended before (it does when it is the replica
  /// the appends came from); a crash before the journal is emptied leaves entries opening
  /// skips.
  ///
  /// When the file is a symlink, the file it names is replaced and the link stays: a person
  /// who keeps a replica on another volume keeps it there. A store of a device's copy in a
  /// shared folder replaces the link itself, and removes the journal first (ADR 0028).
  ///
  /// - Complexity: O(size of the state), plus three `fsync`s.
  public mutating func save(_ replica: HouseholdReplica) throws(StoreError) {
    var contents = ReplicaFileContents(replica, carrying: carriedFields)
    contents.journalSequence = position.sequence
    let bytes = ReplicaFileFormat.encode(contents)
    if isShared { try emptyJournal() }
    let written: FileIO.Identity?
    do {
      written = try FileIO.writeAtomically(
        bytes, to: isShared ? fileURL.path : fileURL.resolvingSymlinksInPath().path,
        faults: &faults)
    } catch {
      throw StoreError(file: fileURL, problem: .writeFailed(error.reason))
    }
    position.snapshotWritten(bytes.count, identity: written, removals: replica.removals)
    if !isShared { try emptyJournal() }
  }

  /// Empties the journal (removing whatever else stands at its name but a folder).
  private mutating func emptyJournal() throws(StoreError) {
    let journal = journalURL
    let emptied: FileIO.Identity?
    do {
      emptied = try FileIO.empty(journal.path, removing: isShared, faults: &faults)
    } catch {
      throw StoreError(file: journal, problem: .writeFailed(error.reason))
    }
    position.journalEmptied(emptied)
  }

  /// Appends `change` to the journal as one line, flushed to disk before it returns: what a
  /// save of a few edits costs, whatever the size of the household.
  ///
  /// `change` is every change `replica` took since the last save: the delta of its own edits
  /// (``HouseholdReplica/takeLocalDelta()``) joined with every state or delta it merged. A
  /// snapshot is written instead (``save(_:)``) when the line would take the journal past
  /// ``compaction``, when the file on disk is of an older format (so that a build that knows
  /// no journal refuses the file rather than miss the journal), when `replica`'s kept
  /// removals changed (a journal line holds the household, not the trash), when the sequence
  /// numbers reached `ReplicaJournal.maximumSequence`, or when the journal is not as this
  /// store left it: a fragment of a failed append, a line another program wrote, a link or
  /// anything but a regular file at its name. So a failed append never has a line written
  /// after its fragment, and the snapshot replaces whatever was there. A store of a device's
  /// copy in a shared folder also writes a snapshot when its snapshot is not the file it last
  /// wrote (a link, a sync service's older copy): readers of the whole file would not see the
  /// line's changes until the next snapshot.
  ///
  /// - Returns: Whether it appended a line or wrote a snapshot.
  /// - Complexity: O(size of `change`) and one `fsync` for a line.
  @discardableResult
  public mutating func append(_ change: HouseholdState, of replica: HouseholdReplica)
    throws(StoreError) -> JournalWrite
  {
    let entry = JournalEntry(
      sequence: position.sequence + 1, replica: replica.replicaID,
      clock: ClockReading(replica.clock), delta: change)
    let line = ReplicaJournal.encode(entry)
    // A line that removes more than a merge may is refused when replayed, as a peer's
    // state would be: this build writes such a change as a snapshot.
    guard position.sequence < ReplicaJournal.maximumSequence,
      !change.removesBeyond(.default, leaving: replica.state.recordCount),
      position.snapshotFormat == ReplicaFileFormat.current,
      position.removals == replica.removals.map(\.id),
      position.journalLength + line.count
        <= compaction.limit(snapshotLength: position.snapshotLength),
      !isShared || snapshotIsAsWritten
    else {
      try save(replica)
      return .snapshot
    }
    let appended: FileIO.Identity?
    do {
      appended = try FileIO.append(
        line, to: journalURL.path, expecting: position.journalExpectation, faults: &faults)
    } catch {
      throw StoreError(file: journalURL, problem: .writeFailed(error.reason))
    }
    guard let appended else {
      try save(replica)
      return .snapshot
    }
    position.appended(entry.sequence, bytes: line.count, identity: appended)
    return .line
  }

  /// The sequence number of the last journal line written or read, or the snapshot's.
  package var journalSequence: UInt64 { position.sequence }

  /// Numbers this store's next snapshot past `last`, the last sequence an earlier store wrote
  /// at this file: readers tell a snapshot from the one they read by its incarnation and
  /// sequence, so a snapshot written again must not repeat them.
  package mutating func numberPast(_ last: UInt64) {
    position.sequence = max(position.sequence, last + 1)
  }

  /// Whether the snapshot is the file this store last wrote. In a shared folder, readers
  /// that read the device whole take its journal's lines after its snapshot: a line appended
  /// beside a snapshot another writer replaced (a link, a service's older copy, junk) would
  /// reach only the readers that already hold the snapshot.
  private var snapshotIsAsWritten: Bool {
    guard let written = position.snapshotIdentity else { return false }
    return FileIO.identity(of: fileURL.path) == written
  }

  /// A new random replica id; the same as ``ReplicaID/random()``.
  public static func mintReplicaID() -> ReplicaID { .random() }

  /// A new replica id drawn from `generator`; the same as ``ReplicaID/random(using:)``.
  public static func mintReplicaID(using generator: inout some RandomNumberGenerator) -> ReplicaID {
    .random(using: &generator)
  }
}
