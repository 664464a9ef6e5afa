import ForagerSync
import Foundation
import SemanticCRDT

/// One simulated device: a replica of its household, the file it saves to, an older backup of
/// that file, and (for `--baseline`) the same device under the old design.
///
/// The device saves after every change, as an app with a durable store does, so what is
/// acknowledged is on its disk. The "disk" keeps the saved replica as a value; a restart turns
/// it into the file's bytes with ``ReplicaFileFormat`` and opens them as ``ReplicaStore`` does,
/// under a fresh incarnation id. Atomic replacement of the file on a real file system is
/// covered by the store's crash test, with real processes killed mid-save.
struct Device: Sendable {
  let index: Int
  let household: Int
  let householdID: HouseholdID
  let member: MemberID
  /// The file's name, used in errors.
  let file: URL
  let wallClock: WallClock
  /// The running replica; `nil` while the device is down.
  var replica: HouseholdReplica?
  /// What the file holds: the last completed save.
  var disk: HouseholdReplica?
  /// An older copy of the file, restored on amnesia.
  var backup: HouseholdReplica?
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

  var isUp: Bool { replica != nil }

  func isOnline(at step: Int) -> Bool { isUp && step >= offlineUntil }

  /// Completes a save: the file now holds the running replica.
  mutating func save() {
    disk = replica
    legacyDisk = legacy
  }

  /// Starts the device from its file, or from its backup (amnesia), under `incarnation`;
  /// `incarnationSeed` names the fresh incarnations it may move to.
  mutating func restart(
    fromBackup: Bool, incarnation: ReplicaID, incarnationSeed: UInt64, fault: SimulationFault?
  ) throws(StoreError) {
    if fromBackup {
      disk = backup
      legacyDisk = legacyBackup
    }
    var contents: ReplicaFileContents?
    if let disk {
      var bytes = ReplicaFileFormat.encode(ReplicaFileContents(disk))
      if fault == .damagesFileOnRestart { bytes[bytes.count / 2] ^= 0x01 }
      contents = try ReplicaFileFormat.decode(bytes, file: file)
    }
    var store = ReplicaStore(fileURL: file)
    replica = try store.open(
      contents, file: file, household: householdID, member: member, wallClock: wallClock,
      incarnation: incarnation)
    replica?.prepareForSimulation(incarnationSeed: incarnationSeed, fault: fault)
    legacy = legacyDisk
    sessions = [:]
    folderProgress = FolderProgress()
    downUntil = nil
  }
}

extension HouseholdReplica {
  /// Makes the replica's fresh incarnations come from the run's generator, and plays the
  /// run's deliberate bug.
  mutating func prepareForSimulation(incarnationSeed: UInt64, fault: SimulationFault?) {
    self.incarnationSeed = incarnationSeed
    checksClaims = fault != .trustsForgedClaims
  }
}
