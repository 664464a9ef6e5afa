import ForagerModel
import Foundation
import SemanticCRDT

/// A household replica for an app: it opens (or on first launch creates) the device's replica
/// file, applies edits and merges one at a time, tells who listens what changed, and saves in
/// the background: in order, one save at a time, a burst of edits in one save.
///
/// - **Opening reads the household from the file.** On first launch, when there is no file,
///   ``FirstLaunch`` says whether this device creates the household (its member the owner) or
///   joins one; the new replica is saved before the initializer returns, so a relaunch finds
///   the same household. Every open is a fresh incarnation (see ``ReplicaStore``). The folder
///   is created if missing, and the store holds the file's lock (``ReplicaFileLock``) for as
///   long as it lives, except while suspended (``suspend()``, for an app in the background): a
///   second store of the file, in this process or another, is refused with
///   ``StoreError/Problem/locked``.
/// - **Edits** go through ``edit(_:)``, merges through
///   ``merge(_:policy:)-(HouseholdState,_)`` or a peer's sync messages
///   (``receive(_:fromPeer:policy:)``). Each one that changes records is announced on every
///   stream from ``changes()``, local edits as ``HouseholdChange/Origin/local``, merges as
///   ``HouseholdChange/Origin/peer``.
/// - **Saving** starts as soon as something changed, off the store's executor, and appends the
///   changes to the replica's journal as one line: it costs what the changes cost, not what the
///   household holds (``ReplicaStore/append(_:of:)``, which compacts the journal into a new
///   snapshot now and then). While a save runs, later changes wait and are written together by
///   the next one, so saves never overlap and the files only move forward. ``flush()`` waits
///   until the files hold every change made before it was called. A crash loses at most the
///   changes not yet flushed; what opens is always a state that was saved.
///
/// ```swift
/// let store = try await HouseholdStore(
///   fileURL: appSupport.appending(path: "household.forager.json"),
///   firstLaunch: .createHousehold(ownerName: "Sam"))
/// let produce = try await store.edit { try $0.getOrCreateCategory(displayName: "Produce") }
/// for await change in await store.changes() { … }     // in a view model's task
/// try await store.flush()                            // before the app is suspended
/// ```
public actor HouseholdStore {
  /// What to do when the replica file does not exist yet.
  public enum FirstLaunch: Sendable {
    /// Create a new household with this device's member, `owner`, as its owner.
    case createHousehold(ownerName: String, owner: MemberID = MemberID())
    /// Join an existing household as `member`: the replica is empty until it merges a peer.
    /// An existing file of another household is refused with
    /// ``StoreError/Problem/differentHousehold(expected:found:)``.
    case join(HouseholdID, member: MemberID)
  }

  /// The replica file.
  public nonisolated let fileURL: URL
  /// The household the file holds.
  public nonisolated let householdID: HouseholdID
  /// This device's member.
  public nonisolated let member: MemberID
  /// The replica id (incarnation) this store opened with. The replica moves to a fresh one if
  /// a peer's state claims writes of it beyond those it made (docs/decisions/0029): then
  /// ``replica``'s `replicaID` is the one its writes carry.
  public nonisolated let replicaID: ReplicaID
  /// Whether this open found no file and made one (``FirstLaunch``).
  public nonisolated let isFirstLaunch: Bool
  /// This device's identity in shared folders (`SyncFolder`), kept beside the replica file
  /// and minted by the first open that found none (``DeviceID/stored(besideReplica:)``).
  public nonisolated let deviceID: DeviceID

  /// The replica as it is now. Reading it copies a value whose storage is shared until one of
  /// them changes.
  public internal(set) var replica: HouseholdReplica
  /// Why the last save failed, or `nil` once a later one succeeded. The changes it would have
  /// written are in memory and the next change or ``flush()`` tries again.
  public private(set) var lastSaveError: StoreError?

  var file: ReplicaStore
  /// The changes made since the last save began.
  private var unsaved = UnsavedChanges()
  /// The file's lock while the store holds it: from opening to ``suspend()``, and again from
  /// ``resume()``.
  var lock: ReplicaFileLock?
  /// What the store's hold on its file guarantees: ``ReplicaFileLock/Guarantee/exclusive``, or
  /// unenforced on a volume without locks (``ReplicaFileLock``).
  public nonisolated let lockGuarantee: ReplicaFileLock.Guarantee
  /// Whether the store is suspended (``suspend()``): it holds no lock and saves nothing.
  public internal(set) var isSuspended = false
  /// The files as the store left them when it suspended, to tell at ``resume()`` whether
  /// another process wrote them meanwhile.
  var filesAtSuspension: ReplicaFilesIdentity?
  /// The last of the replica's numbered changes (``ChangeLog/sequence``) the file holds: the
  /// store's one cursor into the replica's record of what changed.
  private var savedThrough: UInt64
  private var isSaving = false
  /// How many saves have written the file since the store opened: for tests of coalescing.
  package private(set) var savesWritten = 0
  private var flushes: [(through: UInt64, continuation: CheckedContinuation<StoreError?, Never>)] =
    []
  private var listeners: [Int: AsyncStream<HouseholdChange>.Continuation] = [:]
  private var nextListener = 0
  private var sessions: [String: SyncSession] = [:]
  /// Whether the sessions made from now on announce this replica's version rather than send
  /// its whole state first (``SyncSession/init(announcingVersions:)``); off until
  /// ``announceVersions(_:)``.
  public private(set) var announcesVersions = false
  /// Where the replica stands in each shared folder it synced through, by the folder's path.
  var folderProgress: [String: FolderProgress] = [:]
  /// The folders a sync runs through now, and the syncs waiting for each.
  var foldersSyncing: Set<String> = []
  var folderSyncsWaiting: [String: [CheckedContinuation<Void, Never>]] = [:]

  /// Opens the replica file at `fileURL`, or creates it as `firstLaunch` says when there is
  /// none. Runs off the caller's executor.
  ///
  /// - Parameters:
  ///   - fileURL: The device's replica file; its journal and device id are kept beside it.
  ///   - firstLaunch: What to do when there is no file: create a household or join one.
  ///   - wallClock: The clock for new timestamps (see ``ReplicaStore/open(household:member:wallClock:incarnation:)``).
  ///   - maximumFileSize: The largest file read (``ReplicaStore/maximumFileSize``).
  ///   - compaction: When the journal is folded into a new snapshot.
  ///   - platform: The limits of the platform the app runs on; a test passes another's.
  /// - Throws: ``StoreError``: the file is damaged, newer, another household's, locked, or the
  ///   folder, the first save or the device's id cannot be written; or there is no file,
  ///   `firstLaunch` creates a household, and the platform creates none
  ///   (``PlatformLimits/createsHouseholds``). A replica file that exists is never modified by
  ///   opening.
  public init(
    fileURL: URL, firstLaunch: FirstLaunch, wallClock: WallClock = .system,
    maximumFileSize: Int = ReplicaStore.defaultMaximumFileSize,
    compaction: JournalCompaction = .default, platform: PlatformLimits = .current
  ) async throws(StoreError) {
    let folder = fileURL.deletingLastPathComponent()
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    } catch {
      throw StoreError(
        file: fileURL,
        problem: .writeFailed(
          "its folder \(folder.path) cannot be created: \(error.localizedDescription)"))
    }
    var file = ReplicaStore(
      fileURL: fileURL, maximumFileSize: maximumFileSize, compaction: compaction)
    let lock = try file.lock()
    var stored = try file.read(checkingModel: false)
    let journal = try file.readJournal()
    let deviceID = try DeviceID.stored(besideReplica: fileURL)
    file.removeLeftovers()
    let isFirstLaunch = stored == nil
    var replica: HouseholdReplica
    if let (found, member) = stored.map({ ($0.state.householdID, $0.member) }) {
      // A device that joins expects its household; otherwise the file says which it is.
      var household = found
      if case .join(let joined, _) = firstLaunch { household = joined }
      replica = try file.open(
        stored.take(), journal: journal, file: fileURL, household: household, member: member,
        wallClock: wallClock, incarnation: .random())
    } else {
      try file.requireSnapshot(for: journal)
      switch firstLaunch {
      case .createHousehold(let ownerName, let owner):
        guard platform.createsHouseholds else {
          throw StoreError(file: fileURL, problem: .householdNotCreatedOnCache(platform.platform))
        }
        replica = .create(owner: owner, ownerName: ownerName, wallClock: wallClock)
      case .join(let household, let member):
        replica = HouseholdReplica(joining: household, member: member, wallClock: wallClock)
      }
      _ = replica.takeLocalEdit()
      try file.save(replica)
    }
    self.fileURL = fileURL
    self.householdID = replica.householdID
    self.member = replica.member
    self.replicaID = replica.replicaID
    self.isFirstLaunch = isFirstLaunch
    self.deviceID = deviceID
    self.replica = replica
    self.file = file
    self.lock = lock
    self.lockGuarantee = lock.guarantee
    self.savedThrough = replica.changes.log.sequence
  }

  deinit {
    for listener in listeners.values { listener.finish() }
  }
}

// MARK: - Changing the replica

extension HouseholdStore {
  /// Runs `body` on the replica: one edit or a batch. What it changed is announced as one
  /// local change and saved.
  ///
  /// Each of the replica's edits checks its arguments before it changes anything; when `body`
  /// throws, the edits it made before are kept, announced and saved, as separate calls would
  /// be.
  ///
  /// - Returns: What `body` returns.
  @discardableResult
  public func edit<Result: Sendable, Failure: Error>(
    _ body: @Sendable (inout HouseholdReplica) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    defer { keepLocalEdit() }
    return try body(&replica)
  }

  /// Merges a peer's full state or delta
  /// (``HouseholdReplica/merge(_:policy:)-(HouseholdState,_)``), announces what it changed and
  /// saves.
  ///
  /// A delta must have been computed for this incarnation (``replicaID``); a peer that syncs
  /// by messages should go through ``receive(_:fromPeer:policy:)``, which checks that.
  ///
  /// - Throws: ``HouseholdError``; nothing is applied when it throws.
  @discardableResult
  public func merge(_ state: HouseholdState, policy: MergePolicy = .default)
    throws(HouseholdError) -> MergeReport
  {
    try merge(state, policy: policy, greatestTimestamp: nil)
  }

  /// ``merge(_:policy:)-(HouseholdState,_)`` of a state as read from bytes, whose greatest
  /// timestamp its reader found: checked against the skew bound without a second pass over its
  /// records.
  ///
  /// - Throws: ``HouseholdError``; nothing is applied when it throws.
  @discardableResult
  public func merge(_ state: HouseholdState.AsRead, policy: MergePolicy = .default)
    throws(HouseholdError) -> MergeReport
  {
    try merge(state.state, policy: policy, greatestTimestamp: .some(state.greatestTimestamp))
  }

  /// ``merge(_:policy:)-(HouseholdState,_)`` of a state whose greatest timestamp its reader found
  /// (``HouseholdReplica/merge(_:policy:from:greatestTimestamp:)``).
  @discardableResult
  func merge(
    _ state: HouseholdState, policy: MergePolicy = .default, greatestTimestamp: HybridTimestamp??
  ) throws(HouseholdError) -> MergeReport {
    let report = try replica.merge(
      state, policy: policy, from: nil, greatestTimestamp: greatestTimestamp)
    merged(state, report: report)
    return report
  }

  /// Takes what the replica's own edits changed (``HouseholdReplica/takeLocalEdit()``) and
  /// keeps it: its records announced, its delta saved.
  private func keepLocalEdit() {
    let edit = replica.takeLocalEdit()
    if let delta = edit.delta { unsaved.note(delta) }
    announce(edit.change)
    saveIfIdle()
  }

  /// Keeps what merging `state` did: its records announced, `state` saved with the next
  /// changes, and the writes the merge made here (its answers to forged claims) taken as an
  /// edit.
  private func merged(_ state: HouseholdState, report: MergeReport) {
    unsaved.note(state)
    announce(report.changes)
    keepLocalEdit()
  }

  /// Tells every listener of `change`, unless it changed no record.
  private func announce(_ change: HouseholdChange) {
    guard !change.isEmpty else { return }
    for listener in listeners.values { listener.yield(change) }
  }
}

// MARK: - Sync sessions

extension HouseholdStore {
  /// The message to send `peer` now (``SyncSession/message(from:)``): a delta since what its
  /// current incarnation has seen, or the full state while none has been heard from.
  ///
  /// - Parameter peer: The app's name for the peer (its device or connection); one session is
  ///   kept per name for the store's life.
  public func syncMessage(forPeer peer: String) -> SyncMessage {
    sessions[peer, default: SyncSession(announcingVersions: announcesVersions)].message(
      from: &replica)
  }

  /// Makes the sessions with peers not messaged yet announce this replica's version, or stop
  /// announcing it: turn it on once every device of the household runs a build that reads
  /// format 4 messages (this one or later; an older build refuses them and receives nothing).
  /// Two sessions that announce exchange what each lacks and never a full state
  /// (docs/decisions/0043), and write compactly (format 5) to each other from the first answer
  /// on (docs/decisions/0044). Sessions already made keep what they do.
  public func announceVersions(_ announcing: Bool = true) {
    announcesVersions = announcing
  }

  /// Merges a message from `peer` (``SyncSession/receive(_:into:policy:)``): a delta addressed
  /// to another incarnation of this replica is discarded; what the peer has seen is learned.
  ///
  /// - Returns: What the merge did, or `nil` when the message was discarded.
  /// - Throws: ``HouseholdError``; nothing is applied or learned when it throws.
  @discardableResult
  public func receive(
    _ message: SyncMessage, fromPeer peer: String, policy: MergePolicy = .default
  ) throws(HouseholdError) -> MergeReport? {
    var session = sessions[peer] ?? SyncSession(announcingVersions: announcesVersions)
    let report = try session.receive(message, into: &replica, policy: policy)
    sessions[peer] = session
    if let report, let state = message.state { merged(state, report: report) }
    return report
  }
}

// MARK: - Change events

extension HouseholdStore {
  /// A stream of every change from now on, in order: local edits and merges, one element per
  /// ``edit(_:)``, merge or received message that changed records. It ends when the store is
  /// released. Each call gives a new stream; a stream no one iterates buffers what it misses.
  public func changes() -> AsyncStream<HouseholdChange> {
    let id = nextListener
    nextListener += 1
    return AsyncStream { continuation in
      listeners[id] = continuation
      continuation.onTermination = { [weak self] _ in
        Task { await self?.stopListening(id) }
      }
    }
  }

  private func stopListening(_ id: Int) {
    listeners[id] = nil
  }
}

// MARK: - Saving

extension HouseholdStore {
  /// Waits until the file holds every change made before this call.
  ///
  /// - Throws: The ``StoreError`` of the save that should have written them; the changes stay
  ///   in memory, and a later change or flush tries again.
  public func flush() async throws(StoreError) {
    let target = replica.changes.log.sequence
    guard savedThrough < target else { return }
    guard !isSuspended else { throw StoreError(file: fileURL, problem: .suspended) }
    saveIfIdle()
    let failure = await withCheckedContinuation { continuation in
      flushes.append((target, continuation))
    }
    if let failure { throw failure }
  }

  /// Whether every change is in the file.
  public var hasUnsavedChanges: Bool { savedThrough < replica.changes.log.sequence }

  /// Makes the next file operations of this store's saves meet `faults`: for tests of what a
  /// failing disk leaves. Call it when no save runs (after ``flush()``): a running save would
  /// put back the faults it started with.
  package func injectFileFaults(_ faults: FileFaults) {
    file.faults = faults
  }

  /// Starts a save of the changes since the last one, unless one is running: that one's end
  /// starts the next, so saves never overlap and each writes what came after the last.
  func saveIfIdle() {
    let target = replica.changes.log.sequence
    guard !isSaving, !isSuspended, savedThrough < target else { return }
    isSaving = true
    let change = unsaved.take()
    let snapshot = replica
    let file = file
    Task.detached {
      var file = file
      let failure = Self.save(change, of: snapshot, with: &file)
      await self.finishSave(of: target, change: change, failure: failure, file: file)
    }
  }

  /// Appends `change` to the journal (a snapshot when the journal is due a compaction), or
  /// writes a snapshot when there is no delta to append.
  private static func save(
    _ change: HouseholdState?, of replica: HouseholdReplica, with file: inout ReplicaStore
  ) -> StoreError? {
    do {
      if let change { try file.append(change, of: replica) } else { try file.save(replica) }
      return nil
    } catch {
      return error
    }
  }

  private func finishSave(
    of target: UInt64, change: HouseholdState?, failure: StoreError?, file: ReplicaStore
  ) {
    isSaving = false
    self.file = file
    lastSaveError = failure
    // What failed to be written is written with the next save.
    if failure != nil, let change { unsaved.restore(change) }
    if failure == nil {
      savedThrough = target
      savesWritten += 1
    }
    var waiting: [(through: UInt64, continuation: CheckedContinuation<StoreError?, Never>)] = []
    for flush in flushes {
      if flush.through <= savedThrough {
        flush.continuation.resume(returning: nil)
      } else if let failure {
        flush.continuation.resume(returning: failure)
      } else {
        waiting.append(flush)
      }
    }
    flushes = waiting
    // After a failure, the next change or flush tries again rather than a loop here.
    if failure == nil { saveIfIdle() }
  }
}

/// The changes a store made since its last save began, as one delta: the join of the deltas of
/// its edits and of the states it merged.
private struct UnsavedChanges {
  private var delta: HouseholdState?

  mutating func note(_ change: HouseholdState) {
    if delta == nil { delta = change } else { delta!.merge(change) }
  }

  mutating func take() -> HouseholdState? {
    defer { delta = nil }
    return delta
  }

  /// Puts back what a failed save took, under what came since.
  mutating func restore(_ taken: HouseholdState) {
    guard let later = delta else { return delta = taken }
    delta = taken
    delta!.merge(later)
  }
}
