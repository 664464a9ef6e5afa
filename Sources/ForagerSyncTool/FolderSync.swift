import ForagerSync
import Foundation

/// `forager-sync sync`: the folder transport (``SyncFolder``) for a replica file.
enum FolderSync {
  /// Merges every readable replica file of the household in `folder` into the replica at
  /// `replicaFile`, saves it, and writes its state into the folder as `<id>.forager.json`, by
  /// the device id kept beside the replica file (``DeviceID/stored(besideReplica:)``, minted
  /// on the first sync).
  ///
  /// Several devices may run this on one folder at the same time: each replaces only its own
  /// file, atomically, and a file being replaced is read whole, old or new. One process at a
  /// time may use a given replica file.
  ///
  /// - Parameters:
  ///   - name: This device's name for people, and the name an earlier build gave its file in
  ///     the folder (``SyncFolder/formerFileName``); by default the replica file's name
  ///     without `.json` and `.forager`, as those builds did.
  ///   - coordination: `NSFileCoordinator` on Apple platforms; a test passes a double.
  static func sync(
    folder url: URL, replicaFile: URL, name: String? = nil,
    coordination: any FileCoordinating = FileCoordination.system
  ) throws(ToolError) -> FolderSyncOutcome {
    // Held to the end: another process syncing this replica now would overwrite what this one
    // saves, or this one what it saved.
    let lock: ReplicaFileLock
    do {
      lock = try ReplicaStore(fileURL: replicaFile).lock()
    } catch {
      throw .refused(error.description)
    }
    defer { withExtendedLifetime(lock) {} }
    let own = try ReplicaFile.read(replicaFile)
    var (store, opened) = try own.open(savingTo: replicaFile)
    var replica = opened
    // Temporary files of this device's saves that were killed midway.
    store.removeLeftovers()
    let deviceID: DeviceID
    do {
      deviceID = try DeviceID.stored(besideReplica: replicaFile)
    } catch {
      throw .refused(error.description)
    }
    // NSFileCoordinator on Apple platforms (an iCloud Drive folder), nothing elsewhere.
    let folder = SyncFolder(
      url: url, deviceID: deviceID, deviceName: name ?? deviceName(of: replicaFile),
      coordination: coordination)
    // One launch: whole states read and written, the replica saved before its copy in the
    // folder.
    var progress = FolderProgress()
    do {
      return try folder.sync(household: replica.householdID, progress: &progress) {
        state, greatest throws(HouseholdError) in
        try replica.merge(state, from: nil, greatestTimestamp: greatest)
      } publish: { _ throws(StoreError) in
        try store.save(replica)
        try folder.publish(replica, like: store)
        return .snapshot
      }
    } catch {
      throw .refused(error.description)
    }
  }

  /// `phone.forager.json` → `phone`.
  static func deviceName(of file: URL) -> String {
    var name = file.lastPathComponent
    for suffix in [".json", ".forager"] where name.hasSuffix(suffix) {
      name.removeLast(suffix.count)
    }
    return name
  }
}

extension FolderSyncOutcome {
  /// The lines `forager-sync sync` prints as warnings: each skipped entry, then each merged
  /// conflicted copy.
  var warnings: [String] {
    skipped.map(\.description)
      + damagedJournals.map {
        "\($0.description) (read up to there; the rest waits for its next snapshot)"
      }
      + conflictedCopies.map {
        "\($0): a sync service's conflicted copy, merged (safe: merging is a join)"
      }
      + downloadsRequested.map { "\($0): not downloaded yet; its download was requested" }
      + (conflictVersionsMerged == 0
        ? [] : ["merged \(conflictVersionsMerged) conflict version(s) of this device's file"])
  }
}
