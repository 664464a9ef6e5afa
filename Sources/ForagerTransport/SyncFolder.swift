import ForagerModel
import ForagerPersistence
import Foundation
import SemanticCRDT

/// The folder transport: a folder that a file-sync service (iCloud Drive, Dropbox, Syncthing, a
/// network share) keeps the same on every device. Each device writes only its own file there,
/// `<deviceID>.forager.json`, reads everyone else's and merges them. Merging is a join, so
/// the order, timing and repetition of what the service delivers do not matter, and the files
/// are full states, which any incarnation may merge (docs/decisions/0007).
///
/// Every entry of the folder is from outside: a file not downloaded yet, a partial download, a
/// temporary file, a service's conflicted copy, a damaged file, a newer build's, another
/// household's. Each is skipped with a ``Skip`` saying why, or merged when it is a replica
/// of the household; nothing is trapped on and nothing local changes for a skipped file.
///
/// ```swift
/// let folder = SyncFolder(
///   url: iCloudDocuments.appending(path: "Household"), deviceID: store.deviceID,
///   deviceName: UIDevice.current.name)
/// let outcome = try await store.sync(through: folder)
/// ```
public struct SyncFolder: Sendable {
  /// The shared folder.
  public let url: URL
  /// This device's identity in the folder: its file is `<deviceID>.forager.json`. Minted
  /// once per device (`HouseholdStore.deviceID`), so that two devices with one display name
  /// never share a file.
  public let deviceID: DeviceID
  /// This device's name, for people. Builds before device ids named the device's file by it:
  /// such a file (``formerFileName``) is merged, and removed once this device's own file holds
  /// it (see ``FolderSyncOutcome/retired``).
  public let deviceName: String
  /// How files are read and written while a service may be changing them.
  public let coordination: any FileCoordinating
  /// The largest peer file read (``ReplicaStore/maximumFileSize``).
  public var maximumFileSize = ReplicaStore.defaultMaximumFileSize

  /// - Parameters:
  ///   - deviceID: This device's id; `HouseholdStore.deviceID` for a store's replica.
  ///   - deviceName: This device's name for people, such as `UIDevice.current.name`; any text.
  ///   - coordination: ``FileCoordination/system`` by default: `NSFileCoordinator` on Apple
  ///     platforms.
  public init(
    url: URL, deviceID: DeviceID, deviceName: String,
    coordination: any FileCoordinating = FileCoordination.system
  ) {
    self.url = url
    self.deviceID = deviceID
    self.deviceName = deviceName
    self.coordination = coordination
  }

  /// This device's file in the folder.
  public var ownFileName: String { deviceID.rawValue + Self.fileSuffix }

  /// The name a build before device ids gave this device's file: `<deviceName>.forager.json`,
  /// or `nil` when the name is not a plain file name, or is this device's file's name.
  public var formerFileName: String? {
    let name = deviceName + Self.fileSuffix
    return Self.isPlainName(deviceName) && name != ownFileName ? name : nil
  }

  /// What every device's file in the folder ends with.
  public static let fileSuffix = ".forager.json"
}

// MARK: - Syncing

/// What one sync through a folder did.
public struct FolderSyncOutcome: Equatable, Sendable {
  /// The peer files merged, by name.
  public var merged: [String] = []
  /// Of ``merged``, the files whose snapshot was read whole: a peer not read before in this
  /// launch, or one that wrote a new snapshot since. The others were read by the lines their
  /// journals gained.
  public var readWhole: [String] = []
  /// The entries not merged, each with why. Skipping loses nothing: the next sync reads them
  /// again.
  public var skipped: [SyncFolder.Skip] = []
  /// Merged files that a sync service made as conflicted copies: safe, since merging is a
  /// join, and worth telling because a service that makes them may be misconfigured.
  public var conflictedCopies: [String] = []
  /// Peers' journals read only up to a damaged line, or not at all (a folder or FIFO in a
  /// journal's place): each peer's snapshot and the lines before were merged (the peer is in
  /// ``merged``), and the rest comes with the peer's next snapshot, which a peer of this build
  /// writes at its next sync when its journal is not as it left it.
  public var damagedJournals: [StoreError] = []
  /// This device's file in the folder, written at the end.
  public var wrote = ""
  /// How this device's changes went into the folder: a journal line, a snapshot, or `nil`
  /// when nothing had changed since the last sync.
  public var published: JournalWrite?
  /// Files not downloaded yet (iCloud placeholders) whose download this sync asked for, by
  /// the name they will have: a later sync merges them once they are there.
  public var downloadsRequested: [String] = []
  /// Conflict versions of this device's own files that a sync service kept (iCloud's
  /// `NSFileVersion`s) and this sync merged, then marked resolved once the merge was published.
  public var conflictVersionsMerged = 0
  /// The file a build before device ids wrote for this device, named by its display name
  /// (``SyncFolder/formerFileName``), when this sync merged it and then removed it: this
  /// device's own file holds all of it by then. It is removed only if no one changed it since
  /// it was read, so a device of an earlier build with the same name loses nothing: its next
  /// sync writes the file again.
  public var retired: String?

  public init() {}
}

extension SyncFolder {
  /// Merges every readable replica file of `household` in the folder with `merge`, in name
  /// order, skipping this device's own file and every entry that is not one to merge now: each
  /// peer's snapshot and journal, read whole. Each peer's changes come as read, with the
  /// greatest timestamp found while reading them, so that a merge does not scan them again.
  ///
  /// - Throws: ``SyncFolderError/notAFolder(_:)`` when the folder is missing or a file.
  public func mergePeerFiles(
    of household: HouseholdID,
    with merge: (HouseholdState.AsRead) throws(HouseholdError) -> Void
  ) throws(SyncFolderError) -> FolderSyncOutcome {
    var progress = FolderProgress()
    return try mergePeerFiles(of: household, progress: &progress, with: merge)
  }

  /// ``mergePeerFiles(of:with:)`` from where `progress` stands: a peer whose journal still
  /// follows the snapshot merged before is read by the lines it gained since; any other by its
  /// snapshot and journal. Each peer's new changes are merged with one call of `merge`.
  public func mergePeerFiles(
    of household: HouseholdID, progress: inout FolderProgress,
    with merge: (HouseholdState.AsRead) throws(HouseholdError) -> Void
  ) throws(SyncFolderError) -> FolderSyncOutcome {
    apply(try readPeers(progress: progress), to: household, progress: &progress) {
      state, greatest throws(HouseholdError) in
      // Not found while reading only in a format-1 snapshot (a draft no release wrote).
      try merge(
        HouseholdState.AsRead(state: state, greatestTimestamp: greatest ?? state.greatestTimestamp))
    }
  }

  /// What the folder's entries hold for a replica at `progress`, read through the
  /// coordination and nothing merged: the part of a sync that waits on the service (a
  /// download, a coordinated writer), which a store runs off its actor. A placeholder's
  /// download is requested.
  ///
  /// - Throws: ``SyncFolderError/notAFolder(_:)`` when the folder is missing or a file.
  package func readPeers(progress: FolderProgress) throws(SyncFolderError) -> PeerReading {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder),
      isFolder.boolValue
    else { throw .notAFolder(url) }
    var reading = PeerReading()
    let entries = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    for entry in entries where entry != ownFileName && entry.contains(".forager") {
      // A save or download in progress, ours or the service's: not a skip worth telling.
      if Self.isTemporary(entry) { continue }
      // A journal is read with its replica file.
      if entry.hasSuffix(Self.fileSuffix + ReplicaJournal.fileSuffix) { continue }
      if let reason = Skip.Reason(entry: entry) {
        if reason == .notDownloaded, let name = Self.downloadedName(ofPlaceholder: entry),
          (try? coordination.requestDownload(of: url.appendingPathComponent(name))) != nil
        {
          reading.downloadsRequested.append(name)
        }
        reading.items.append(.skipped(Skip(entry: entry, reason: reason)))
        continue
      }
      do {
        reading.items.append(.read(entry, try read(entry, after: progress.peers[entry])))
      } catch {
        reading.items.append(.skipped(Skip(entry: entry, reason: .unreadable(error))))
      }
    }
    return reading
  }

  /// Merges what `reading` found with `merge`, in name order, moving each merged peer's
  /// cursor in `progress`; the part of a sync that changes the replica. `merge` is given each
  /// peer's changes and their greatest timestamp as found while reading them (`nil` when not
  /// known), which a merge checks without scanning the changes again (ADR 0027).
  package func apply(
    _ reading: PeerReading, to household: HouseholdID, progress: inout FolderProgress,
    with merge: (HouseholdState, HybridTimestamp??) throws(HouseholdError) -> Void
  ) -> FolderSyncOutcome {
    var outcome = FolderSyncOutcome()
    outcome.downloadsRequested = reading.downloadsRequested
    for item in reading.items {
      guard case .read(let entry, let news) = item else {
        if case .skipped(let skip) = item { outcome.skipped.append(skip) }
        continue
      }
      guard news.changes.householdID == household else {
        outcome.skipped.append(
          Skip(entry: entry, reason: .otherHousehold(news.changes.householdID)))
        continue
      }
      do {
        try merge(news.changes, news.greatestTimestamp)
      } catch {
        // Read whole next time: what was merged of it before stays merged.
        progress.peers[entry] = nil
        outcome.skipped.append(Skip(entry: entry, reason: .refused(error)))
        continue
      }
      progress.peers[entry] = news.cursor
      outcome.merged.append(entry)
      if let problem = news.journalProblem { outcome.damagedJournals.append(problem) }
      if news.readWhole { outcome.readWhole.append(entry) }
      if entry.lowercased().contains("conflict") { outcome.conflictedCopies.append(entry) }
    }
    return outcome
  }

  /// The folder's entries as read for one sync, in name order.
  package struct PeerReading: Sendable {
    package enum Item: Sendable {
      case read(String, PeerNews)
      case skipped(Skip)
    }
    package var items: [Item] = []
    package var downloadsRequested: [String] = []
  }

  /// The name of the file an iCloud placeholder `.<name>.icloud` stands for.
  static func downloadedName(ofPlaceholder entry: String) -> String? {
    guard entry.hasPrefix("."), entry.hasSuffix(".icloud"), entry.count > ".icloud".count + 1
    else { return nil }
    return String(entry.dropFirst().dropLast(".icloud".count))
  }

  /// What a peer's files hold that a replica at `cursor` has not merged.
  package struct PeerNews: Sendable {
    /// The snapshot joined with its journal's lines, or the journal's new lines joined.
    package var changes: HouseholdState
    /// The greatest timestamp of `changes`, found while reading its parts.
    package var greatestTimestamp: HybridTimestamp??
    var cursor: FolderProgress.PeerCursor
    package var readWhole: Bool
    /// Why the journal was read only up to a line, or not at all.
    var journalProblem: StoreError?
  }

  /// Reads a peer's files through the coordination: only its journal's new lines when the
  /// journal still follows the snapshot `cursor` merged, else its snapshot and journal.
  ///
  /// A journal is read up to its first damaged line, and one that cannot be read at all (a
  /// folder or a FIFO in its place) is left out: the snapshot and the lines before stand on
  /// their own, and the peer's next snapshot brings the rest. Only the snapshot itself can
  /// make the peer unreadable.
  private func read(_ entry: String, after cursor: FolderProgress.PeerCursor?)
    throws(StoreError) -> PeerNews
  {
    let file = url.appendingPathComponent(entry)
    let journalFile = ReplicaJournal.url(of: file)
    var journal: [UInt8]?
    var journalProblem: StoreError?
    // A journal past ``peerJournalLimit(snapshotLength:)`` is not read.
    let snapshotLength =
      (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
    do {
      journal = try coordinated(reading: journalFile) { journal throws(StoreError) in
        // The store of the file whose journal the coordinator named.
        var store = store(
          of: URL(
            fileURLWithPath: String(journal.path.dropLast(ReplicaJournal.fileSuffix.count)),
            isDirectory: false))
        store.maximumFileSize = min(
          store.maximumFileSize, Self.peerJournalLimit(snapshotLength: snapshotLength))
        return try store.journalBytes()
      }
    } catch {
      journalProblem = error
    }
    if let cursor, let journal, ReplicaJournal.startsLine(at: cursor.journalOffset, in: journal),
      let first = try? ReplicaJournal.firstEntry(of: journal, file: journalFile),
      first.replica == cursor.snapshotReplica, first.sequence == cursor.snapshotSequence + 1
    {
      let lines = try ReplicaJournal.decode(
        journal, file: journalFile, from: cursor.journalOffset, stoppingAtDamage: true)
      let (changes, greatest) = Self.joined(lines.entries, like: first.delta)
      var moved = cursor
      moved.journalOffset = lines.validLength
      return PeerNews(
        changes: changes, greatestTimestamp: greatest, cursor: moved, readWhole: false,
        journalProblem: lines.damage)
    }
    guard
      let snapshot = try coordinated(
        reading: file,
        { file throws(StoreError) in try store(of: file).read() })
    else {
      throw StoreError(file: file, problem: .unreadable("it was removed while the folder was read"))
    }
    var changes = (snapshot.state, greatestTimestamp: snapshot.greatestTimestampRead)
    var offset = 0
    if let journal {
      let lines = try ReplicaJournal.decode(journal, file: journalFile, stoppingAtDamage: true)
      Self.join(
        lines.entries.filter { $0.sequence > snapshot.journalSequence }, into: &changes)
      offset = lines.validLength
      journalProblem = lines.damage
    }
    return PeerNews(
      changes: changes.0, greatestTimestamp: changes.greatestTimestamp,
      cursor: FolderProgress.PeerCursor(
        snapshotReplica: snapshot.replica, snapshotSequence: snapshot.journalSequence,
        journalOffset: offset),
      readWhole: true, journalProblem: journalProblem)
  }

  /// The most bytes of a peer's journal read beside a snapshot of `snapshotLength` bytes:
  /// twice what a publisher of this build lets it grow to (``JournalCompaction/default``), so
  /// that reading a peer costs its snapshot and at most half as much again.
  static func peerJournalLimit(snapshotLength: Int) -> Int {
    2 * JournalCompaction.default.limit(snapshotLength: snapshotLength)
  }

  /// A store of a peer's `file`, reading within ``maximumFileSize``.
  private func store(of file: URL) -> ReplicaStore {
    var store = ReplicaStore(fileURL: file)
    store.maximumFileSize = maximumFileSize
    return store
  }

  /// Runs `body` with `file` (a peer's file or journal) read through the coordination.
  private func coordinated<Result>(
    reading file: URL, _ body: (URL) throws(StoreError) -> Result
  ) throws(StoreError) -> Result {
    do {
      return try coordination.coordinateReading(file) { coordinated in try body(coordinated) }
    } catch let error as StoreError {
      throw error
    } catch {
      throw StoreError(file: file, problem: .unreadable(error.localizedDescription))
    }
  }

  /// Writes `replica` as this device's file in the folder, atomically, through the
  /// coordination: a snapshot, its journal emptied.
  ///
  /// - Throws: ``StoreError`` naming the folder's file; the previous file stays.
  public func publish(_ replica: HouseholdReplica) throws(StoreError) {
    try publish(replica, like: ReplicaStore(fileURL: url.appendingPathComponent(ownFileName)))
  }

  /// ``publish(_:)`` writing the envelope fields `store` carries (those of a file a newer
  /// build wrote) beside the replica.
  package func publish(_ replica: HouseholdReplica, like store: ReplicaStore) throws(StoreError) {
    var target = store
    try writingOwnFiles { file throws(StoreError) in
      target = target.relocated(to: file)
      target.isShared = true
      // Temporary files of this device's saves that were killed midway.
      target.removeLeftovers()
      try target.save(replica)
    }
  }

  /// Publishes what `replica` changed since `progress` last published it, as one line
  /// appended to this device's journal in the folder (fsynced), so that a sync service moves
  /// what changed. A snapshot is written instead when this incarnation has published nothing
  /// yet, when its change log no longer holds everything since (a full state merged, see
  /// `SyncSession`), or when the journal is due for compaction; a line follows
  /// it at once, so that readers know their journal belongs to it.
  ///
  /// A line is a join of writes, which any replica may merge whatever it has seen: readers
  /// need no more than the lines they read.
  ///
  /// - Returns: What was written, or `nil` when nothing changed since the last publication.
  /// - Throws: ``StoreError`` naming the folder's file or journal; what was published before
  ///   stays, and the next publication writes a snapshot.
  /// - Complexity: O(size of the changes) for a line; O(size of the state) for a snapshot.
  @discardableResult
  public func publish(_ replica: inout HouseholdReplica, progress: inout FolderProgress)
    throws(StoreError) -> JournalWrite?
  {
    try write(preparePublication(of: &replica, progress: progress), progress: &progress)
  }

  /// What a publication writes, decided from the replica; written by ``write(_:progress:)``,
  /// which a store runs off its actor.
  package enum PendingPublication: Sendable {
    /// Nothing changed since the last publication, which now reaches `through`.
    case nothing(through: UInt64)
    /// The changes since the last publication, as a line of `replica`'s.
    case line(HouseholdState, of: HouseholdReplica)
    /// A snapshot of `replica`.
    case snapshot(HouseholdReplica)
  }

  /// Seals `replica`'s change log and decides what publishing it writes after `progress`.
  package func preparePublication(
    of replica: inout HouseholdReplica, progress: FolderProgress
  ) -> PendingPublication {
    replica.changes.log.seal(recordCount: replica.state.recordCount)
    guard let published = progress.publication, published.incarnation == replica.replicaID,
      let changes = replica.changes.log.delta(
        after: published.through, for: nil, of: replica.state)
    else { return .snapshot(replica) }
    guard changes != HouseholdState(emptyDeltaLike: replica.state) else {
      return .nothing(through: replica.changes.log.sequence)
    }
    return .line(changes, of: replica)
  }

  /// Writes `pending` as this device's files in the folder, through the coordination of both
  /// the snapshot and the journal, and notes it in `progress`.
  package func write(_ pending: PendingPublication, progress: inout FolderProgress)
    throws(StoreError) -> JournalWrite?
  {
    let replica: HouseholdReplica
    switch pending {
    case .nothing(let through):
      progress.publication?.through = through
      return nil
    case .line(_, let of), .snapshot(let of): replica = of
    }
    let ownFile = url.appendingPathComponent(ownFileName)
    let published = progress.publication
    // Until this publication is done, the next starts with a snapshot.
    progress.publication = nil
    var store = published?.store ?? ReplicaStore(fileURL: ownFile)
    if published == nil, let last = progress.publishedSequence { store.numberPast(last) }
    store.isShared = true
    store.faults = progress.faults
    defer {
      progress.faults = store.faults
      progress.publishedSequence = max(progress.publishedSequence ?? 0, store.journalSequence)
    }
    var write: JournalWrite?
    try writingOwnFiles { file throws(StoreError) in
      var target = store.reached(at: file)
      defer { store = target.reached(at: ownFile) }
      if case .line(let changes, _) = pending {
        write = try target.append(changes, of: replica)
      } else {
        // Temporary files of this device's saves that were killed midway.
        target.removeLeftovers()
        try target.save(replica)
        write = .snapshot
      }
      if write == .snapshot {
        try target.append(HouseholdState(emptyDeltaLike: replica.state), of: replica)
      }
    }
    progress.publication = FolderProgress.Publication(
      incarnation: replica.replicaID, through: replica.changes.log.sequence, store: store)
    return write
  }

  /// Runs `body` with this device's file in the folder, inside one coordination of writing
  /// both it and its journal: a publication appends to the journal, or empties or removes it.
  private func writingOwnFiles(_ body: (URL) throws(StoreError) -> Void) throws(StoreError) {
    let file = url.appendingPathComponent(ownFileName)
    do {
      try coordination.coordinateWriting(
        file, ReplicaJournal.url(of: file), deleting: false
      ) { coordinated, _ in try body(coordinated) }
    } catch let error as StoreError {
      throw error
    } catch {
      throw StoreError(file: file, problem: .writeFailed(error.localizedDescription))
    }
  }

  /// Merges the folder's peer files into `replica`, then publishes it, whole.
  public func sync(_ replica: inout HouseholdReplica) throws(SyncFolderError) -> FolderSyncOutcome {
    var progress = FolderProgress()
    return try sync(&replica, progress: &progress)
  }

  /// Merges what the folder's peer files gained since `progress` into `replica`, then
  /// publishes what changed.
  public func sync(_ replica: inout HouseholdReplica, progress: inout FolderProgress)
    throws(SyncFolderError) -> FolderSyncOutcome
  {
    try sync(household: replica.householdID, progress: &progress) {
      state, greatest throws(HouseholdError) in
      try replica.merge(state, from: nil, greatestTimestamp: greatest)
    } publish: { progress throws(StoreError) in
      try publish(&replica, progress: &progress)
    }
  }

  /// One sync from where `progress` stands: merges what the peer files of `household` gained
  /// with `merge` (given each peer's changes and their greatest timestamp as read, as
  /// ``apply(_:to:progress:with:)`` gives them), then publishes with `publish`. The simulator
  /// syncs through it too, to read each merge's report.
  package func sync(
    household: HouseholdID, progress: inout FolderProgress,
    merge: (HouseholdState, HybridTimestamp??) throws(HouseholdError) -> Void,
    publish: (inout FolderProgress) throws(StoreError) -> JournalWrite?
  ) throws(SyncFolderError) -> FolderSyncOutcome {
    let former = formerFileIdentity()
    var outcome = apply(
      try readPeers(progress: progress), to: household, progress: &progress, with: merge)
    let conflicts = apply(
      readOwnConflictVersions(), to: household, outcome: &outcome, with: merge)
    do {
      outcome.published = try publish(&progress)
    } catch {
      throw .publishFailed(error)
    }
    outcome.wrote = ownFileName
    resolve(conflicts)
    retireFormerFile(seen: former, outcome: &outcome)
    return outcome
  }

  /// What this device's former file (``formerFileName``) is before a sync reads it; `nil` when
  /// there is none.
  package func formerFileIdentity() -> ReplicaFilesIdentity? {
    guard let formerFileName else { return nil }
    let identity = ReplicaStore(fileURL: url.appendingPathComponent(formerFileName))
      .filesIdentity()
    return identity.fileExists ? identity : nil
  }

  /// Removes this device's former file after a sync that merged it and published this
  /// device's own file, if it is still what it was before the sync read it (`seen`). A file
  /// that could not be removed stays, and is merged again next time: it only costs a read.
  package func retireFormerFile(seen: ReplicaFilesIdentity?, outcome: inout FolderSyncOutcome) {
    guard let seen, let formerFileName, outcome.merged.contains(formerFileName) else { return }
    let file = url.appendingPathComponent(formerFileName)
    let removed = try? coordination.coordinateWriting(
      file, ReplicaJournal.url(of: file), deleting: true
    ) { coordinated, _ in try ReplicaStore(fileURL: coordinated).remove(ifStill: seen) }
    if removed == true { outcome.retired = formerFileName }
  }
}

// MARK: - Entries

extension SyncFolder {
  /// An entry of the folder that a sync did not merge, and why.
  public struct Skip: Equatable, Sendable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
      /// An iCloud placeholder (`.name.icloud`): the file is not downloaded yet.
      case notDownloaded
      /// A partial download (`.part`, `.partial`, `.crdownload`, `.download`, `.tmp`, `~`).
      case partialDownload
      /// A name with `.forager` that is not a replica file (`.json`).
      case notAReplicaFile
      /// The file cannot be read as a replica file: damaged, newer, too large, unsound.
      case unreadable(StoreError)
      /// A replica of another household.
      case otherHousehold(HouseholdID)
      /// The merge refused it (a forged or skewed state, a mass removal).
      case refused(HouseholdError)

      /// Why an entry that is not a temporary file is not to be read, judged by its name
      /// alone; `nil` to read it. The hidden files left are iCloud placeholders.
      init?(entry: String) {
        if entry.hasPrefix(".") {
          self = .notDownloaded
          return
        }
        for partial in [".part", ".partial", ".crdownload", ".download", ".tmp", "~"]
        where entry.hasSuffix(partial) {
          self = .partialDownload
          return
        }
        guard entry.hasSuffix(".json") else {
          self = .notAReplicaFile
          return
        }
        return nil
      }
    }

    /// The entry's name in the folder.
    public let entry: String
    public let reason: Reason

    public var description: String {
      switch reason {
      case .notDownloaded: "\(entry): a placeholder of a file not downloaded yet (skipped)"
      case .partialDownload: "\(entry): a partial download (skipped)"
      case .notAReplicaFile: "\(entry): not a replica file (.json) (skipped)"
      case .unreadable(let error): "\(error.description) (skipped)"
      case .otherHousehold(let household):
        "\(entry): a replica of household \(household), not this one (skipped)"
      case .refused(let error): "\(entry): \(error) (skipped)"
      }
    }
  }

  /// Whether `entry` is a hidden file other than an iCloud placeholder: a temporary file of a
  /// save or download in progress, ours or the service's.
  static func isTemporary(_ entry: String) -> Bool {
    entry.hasPrefix(".") && !entry.hasSuffix(".icloud")
  }

  /// Whether `name` names a file in the folder and nothing else: a name with a path component
  /// would write outside it.
  public static func isPlainName(_ name: String) -> Bool {
    !name.isEmpty && !name.hasPrefix(".") && !name.contains("/") && !name.contains("\\")
      && !name.contains("\0")
  }
}

/// Why a sync through a folder stopped. What it merged before stays merged.
public enum SyncFolderError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The folder is missing, or a file.
  case notAFolder(URL)
  /// This device's file could not be written into the folder.
  case publishFailed(StoreError)

  public var description: String {
    switch self {
    case .notAFolder(let url): "\(url.path) is not a folder"
    case .publishFailed(let error): error.description
    }
  }
}

// MARK: - Conflict versions of this device's files

extension SyncFolder {
  /// A conflict version of this device's snapshot or journal, and the household it holds.
  package struct ConflictFound: Sendable {
    package let version: FileConflictVersion
    package let changes: HouseholdState
    /// The greatest timestamp of `changes`, found while reading them.
    package let greatestTimestamp: HybridTimestamp??
  }

  /// The unresolved conflict versions a sync service kept of this device's own snapshot and
  /// journal (iCloud's `NSFileVersion`s), each read within ``maximumFileSize``: a snapshot's
  /// state, or a journal's lines up to the first damaged one, joined. One that cannot be read
  /// is left unresolved and unread.
  package func readOwnConflictVersions() -> [ConflictFound] {
    let file = url.appendingPathComponent(ownFileName)
    let reader = store(of: file)
    var found: [ConflictFound] = []
    for version in (try? coordination.unresolvedConflictVersions(of: file)) ?? [] {
      guard let contents = try? reader.relocated(to: version.url).read() else { continue }
      found.append(
        ConflictFound(
          version: version, changes: contents.state,
          greatestTimestamp: contents.greatestTimestampRead))
    }
    let journal = ReplicaJournal.url(of: file)
    for version in (try? coordination.unresolvedConflictVersions(of: journal)) ?? [] {
      guard let bytes = try? reader.bytes(of: version.url),
        let lines = try? ReplicaJournal.decode(
          bytes, file: version.url, stoppingAtDamage: true),
        let first = lines.entries.first
      else { continue }
      let (changes, greatest) = Self.joined(lines.entries, like: first.delta)
      found.append(ConflictFound(version: version, changes: changes, greatestTimestamp: greatest))
    }
    return found
  }

  /// Merges the conflict versions of `household` with `merge`; the versions merged, to
  /// resolve once a publication holds them (``resolve(_:)``).
  package func apply(
    _ conflicts: [ConflictFound], to household: HouseholdID, outcome: inout FolderSyncOutcome,
    with merge: (HouseholdState, HybridTimestamp??) throws(HouseholdError) -> Void
  ) -> [FileConflictVersion] {
    var merged: [FileConflictVersion] = []
    for conflict in conflicts where conflict.changes.householdID == household {
      guard (try? merge(conflict.changes, conflict.greatestTimestamp)) != nil else { continue }
      merged.append(conflict.version)
    }
    outcome.conflictVersionsMerged = merged.count
    return merged
  }

  /// Journal lines joined into one delta of `state`'s household, with their greatest
  /// timestamp as found while reading them.
  static func joined(_ lines: [JournalEntry], like state: HouseholdState) -> (
    HouseholdState, greatestTimestamp: HybridTimestamp??
  ) {
    var changes: (HouseholdState, greatestTimestamp: HybridTimestamp??) = (
      HouseholdState(emptyDeltaLike: state), .some(nil)
    )
    join(lines, into: &changes)
    return changes
  }

  /// Merges journal lines into `changes`, raising its greatest timestamp to theirs as found
  /// while reading them: not known (`nil`) once any part's is not.
  static func join(
    _ lines: [JournalEntry],
    into changes: inout (HouseholdState, greatestTimestamp: HybridTimestamp??)
  ) {
    for line in lines {
      changes.0.merge(line.delta)
      guard var greatest = changes.greatestTimestamp, let found = line.greatestTimestampRead
      else {
        changes.greatestTimestamp = nil
        continue
      }
      if let found { greatest.raise(to: found) }
      changes.greatestTimestamp = greatest
    }
  }

  /// Marks merged conflict versions resolved. One that fails stays listed by the service and
  /// is merged again at the next sync, which a join makes harmless.
  package func resolve(_ versions: [FileConflictVersion]) {
    for version in versions { try? version.resolve() }
  }
}
