import ForagerSync
import Foundation
import SemanticCRDT

/// One simulated device: a replica of its household, the file it saves to, an older backup of
/// that file, and (for `--baseline`) the same device under the old design.
///
/// The device saves after every change, as an app with a durable store does, so what is
/// acknowledged is on its disk. With memory storage the "disk" is what the saved replica's file
/// holds, as a value (while the device is up, read from the running replica: ``disk``); a
/// restart opens it as ``ReplicaStore`` opens a file's contents, under a fresh incarnation
/// id, and the run checks that the file's bytes (``ReplicaFileFormat``) read back as it. With
/// files storage the device saves through a real ``ReplicaStore`` (a journal line of its
/// edits, with those a failed save did not write; a snapshot after a merge) and a restart
/// opens the real file; `disk` then models what the file must hold at least: the replica as
/// of the last save that succeeded.
struct Device: Sendable {
  let index: Int
  let household: Int
  let householdID: HouseholdID
  let member: MemberID
  /// The file's name, used in errors; with files storage, the file itself.
  let file: URL
  /// The store of the device's real file (files storage); `nil` with memory storage.
  var store: ReplicaStore?
  /// Whether the next save writes a snapshot: the first, or a peer's state merged since the
  /// last that succeeded (a line holds edits).
  var needsSnapshot = true
  /// The device's edits since the last save that succeeded, joined: the next line, as an
  /// app's store appends what a failed save did not write with the next.
  var unsavedEdits: HouseholdState?
  let wallClock: WallClock
  /// The running replica; `nil` while the device is down.
  var replica: HouseholdReplica?
  /// What the file holds: the last completed save.
  ///
  /// With memory storage a save cannot fail and every change is saved as it is made, so while
  /// the device is up its file holds the running replica, and that is what this reads: a
  /// second value kept beside it would share the replica's tables, and the next change to a
  /// map would copy the whole map, the save after it free the old one (about a tenth of the
  /// 50-device run's time, docs/benchmarks.md). A copy is kept only while the device is down
  /// (``crash()``), or once a restart opened a new replica and nothing is saved yet; like the
  /// backup, it is what the file holds (``fileContents(of:)``).
  var disk: ReplicaFileContents? {
    get { savedThrough != nil ? replica.map(Self.fileContents(of:)) : lastSaved }
    set {
      lastSaved = newValue
      savedThrough = nil
    }
  }
  // `private(set)`, not `private`: the memberwise initializer the simulation calls stays
  // internal.
  /// The last completed save, while it is not the running replica.
  private(set) var lastSaved: ReplicaFileContents? = nil
  /// While the file is read as the running replica, that replica's last change
  /// (``ChangeLog/sequence``) at the last save: a later one is a change never saved. `nil`
  /// while the file is `lastSaved`.
  private(set) var savedThrough: UInt64? = nil
  /// An older copy of the file, restored on amnesia.
  var backup: ReplicaFileContents?
  var legacy = LegacyStore()
  var legacyDisk = LegacyStore()
  var legacyBackup = LegacyStore()
  /// The library's sync session with each peer it exchanged messages with, by device index:
  /// what each side merged of the other's changes. Held in memory, so a restart starts anew.
  var sessions: [Int: SyncSession] = [:]
  /// Where this device stands in its household's shared folder (the folder transport).
  var folderProgress = FolderProgress()
  /// In airplane mode (a partition) until this step.
  var offlineUntil = -1
  /// Down (crashed) until this step.
  var downUntil: Int?
  /// Whether the device has had its first launch (which seeds the default categories).
  var launched = false
  /// The build of the model the device runs (the mixed-versions scenario).
  var build = ModelBuild.current

  var isUp: Bool { replica != nil }

  func isOnline(at step: Int) -> Bool { isUp && step >= offlineUntil }

  /// Completes a save: the file now holds the running replica. With files storage the save
  /// goes through the store, and may fail (a disk fault): the file then holds what it held,
  /// and the next save writes what this one did not.
  ///
  /// - Parameter merged: Whether the replica merged a peer's state or delta since the last
  ///   save, which a line of its own edits does not hold.
  /// - Returns: The failure, if the save failed.
  @discardableResult
  mutating func save(merged: Bool = false) -> StoreError? {
    legacyDisk = legacy
    guard var store, var replica else {
      lastSaved = nil
      savedThrough = replica?.changes.log.sequence
      return nil
    }
    defer {
      self.store = store
      self.replica = replica
    }
    if let edits = replica.takeLocalDelta() {
      if unsavedEdits == nil { unsavedEdits = edits } else { unsavedEdits!.merge(edits) }
    }
    needsSnapshot = needsSnapshot || merged
    do {
      if needsSnapshot {
        try store.save(replica)
      } else if let unsavedEdits {
        try store.append(unsavedEdits, of: replica)
      }
    } catch {
      return error
    }
    needsSnapshot = false
    unsavedEdits = nil
    disk = Self.fileContents(of: replica)
    return nil
  }

  /// The device stops: its running replica is gone, and its file holds what it held.
  ///
  /// - Returns: `false` when the file was read as the running replica (memory storage) and
  ///   that replica changed after the last save: a change the simulator must always save, and
  ///   which, read so, would have survived the crash.
  @discardableResult
  mutating func crash() -> Bool {
    defer { replica = nil }
    guard let savedThrough else { return true }
    disk = replica.map(Self.fileContents(of:))
    return replica?.changes.log.sequence == savedThrough
  }

  /// What the file of `replica` holds, as a value: its state, without the index of live writes
  /// that opening builds again, its kept removals and incarnations; not its change log, nor
  /// the versions its sessions were sent. Kept as replicas, the 50 devices' backups held those
  /// too, 22 MB of the peak at 100,000 steps (docs/benchmarks.md).
  static func fileContents(of replica: HouseholdReplica) -> ReplicaFileContents {
    var contents = ReplicaFileContents(replica)
    contents.state = contents.state.withoutIndexes
    return contents
  }

  /// Where the backup of the device's real file is kept (files storage).
  private var backupFile: URL {
    file.deletingLastPathComponent().appendingPathComponent("backup.forager.json")
  }

  /// Copies the device's file to its backup: its real files with files storage.
  mutating func takeBackup() {
    backup = disk
    legacyBackup = legacyDisk
    guard store != nil else { return }
    Self.copyReplicaFile(from: file, to: backupFile)
  }

  /// Forgets the backup, once no restart can restore it: its tables, and its real file with
  /// files storage.
  mutating func dropBackup() {
    backup = nil
    legacyBackup = LegacyStore()
    guard store != nil else { return }
    for url in [backupFile, ReplicaJournal.url(of: backupFile)] {
      try? FileManager.default.removeItem(at: url)
    }
  }

  /// Replaces the replica file at `target` (snapshot and journal) with a copy of `source`'s.
  private static func copyReplicaFile(from source: URL, to target: URL) {
    for (from, to) in [
      (source, target), (ReplicaJournal.url(of: source), ReplicaJournal.url(of: target)),
    ] {
      try? FileManager.default.removeItem(at: to)
      try? FileManager.default.copyItem(at: from, to: to)
    }
  }

  /// Starts the device from its file, or from its backup (amnesia), under `incarnation`;
  /// `incarnationSeed` names the fresh incarnations it may move to.
  ///
  /// With memory storage the store opens the saved replica's own values, as the file's bytes
  /// would give them: their records share storage with the replica before the crash and,
  /// through the messages it merged, with its peers, where decoded records would be copies of
  /// their own (at 50 devices, one more copy of the household for each device that restarted).
  /// That the bytes do give them is for the caller to check, with the returned replica
  /// (``SoundnessChecks/readBack(_:file:fault:device:what:)``).
  ///
  /// - Returns: The replica the file must read back as: the saved one, with memory storage;
  ///   `nil` with files storage, whose store opens the file's bytes and checks them against
  ///   `disk`, and when the file is damaged on purpose (``SimulationFault/damagesFileOnRestart``),
  ///   whose bytes are read here, so that the device cannot open them.
  @discardableResult
  mutating func restart(
    fromBackup: Bool, incarnation: ReplicaID, incarnationSeed: UInt64,
    configuration: SimulationConfiguration
  ) throws(StoreError) -> ReplicaFileContents? {
    let fault = configuration.fault
    if fromBackup {
      disk = backup
      legacyDisk = legacyBackup
      if store != nil { Self.copyReplicaFile(from: backupFile, to: file) }
    }
    var toReadBack: ReplicaFileContents?
    if store != nil {
      try openFile(incarnation: incarnation, fault: fault)
    } else {
      var contents: ReplicaFileContents?
      if let disk {
        if fault == .damagesFileOnRestart {
          var bytes = ReplicaFileFormat.encode(disk)
          bytes[bytes.count / 2] ^= 0x01
          contents = try ReplicaFileFormat.decode(bytes, file: file)
        } else {
          contents = disk
          toReadBack = disk
        }
      }
      var store = ReplicaStore(fileURL: file)
      replica = try store.open(
        contents, file: file, household: householdID, member: member, wallClock: wallClock,
        incarnation: incarnation)
    }
    replica?.prepareForSimulation(incarnationSeed: incarnationSeed, configuration: configuration)
    legacy = legacyDisk
    sessions = [:]
    folderProgress = FolderProgress()
    folderProgress.faults = FileFaults(playing: fault)
    downUntil = nil
    return toReadBack
  }
}

extension Device {
  /// Opens the device's real file with a new store, which must hold the replica as of the last
  /// save that succeeded: what a failed or cut-short write left on the disk must neither stop
  /// the file from opening nor take a saved edit away.
  private mutating func openFile(incarnation: ReplicaID, fault: SimulationFault?)
    throws(StoreError)
  {
    if fault == .damagesFileOnRestart, var bytes = try? Data(contentsOf: file), !bytes.isEmpty {
      bytes[bytes.count / 2] ^= 0x01
      try? bytes.write(to: file)
    }
    (replica, store) = try openedFile(incarnation: incarnation, fault: fault)
    needsSnapshot = false
    unsavedEdits = nil
  }

  /// The replica the device's real file opens to, and its store. The file must hold the
  /// replica as of the last save that succeeded, and may hold more: a save whose flush or
  /// rename failed after its bytes reached the disk.
  func openedFile(incarnation: ReplicaID, fault: SimulationFault?) throws(StoreError) -> (
    HouseholdReplica, ReplicaStore
  ) {
    var store = ReplicaStore(fileURL: file)
    store.faults = FileFaults(playing: fault)
    let opened = try store.open(
      household: householdID, member: member, wallClock: wallClock, incarnation: incarnation)
    if let saved = disk?.state, opened.state.merging(saved) != opened.state {
      throw StoreError(
        file: file,
        problem: .unreadable("it opens without edits the device saved in it"))
    }
    return (opened, store)
  }
}

extension HouseholdReplica {
  /// Makes the replica's fresh incarnations come from the run's generator, gives its change
  /// log the run's budget, and plays the run's deliberate bug.
  mutating func prepareForSimulation(
    incarnationSeed: UInt64, configuration: SimulationConfiguration
  ) {
    self.incarnationSeed = incarnationSeed
    checksClaims = configuration.fault != .trustsForgedClaims
    if let budget = configuration.changeLogBudget { changes.log.minimumBudget = budget }
  }
}

extension FileFaults {
  /// No failures pending, and the deliberate append bug when `fault` is it: what a run's
  /// stores and folder publications start with.
  init(playing fault: SimulationFault?) {
    self.init()
    appendsBlindly = fault == .appendsAfterDamagedJournal
  }
}
