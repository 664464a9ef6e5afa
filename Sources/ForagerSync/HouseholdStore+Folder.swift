import ForagerModel
import ForagerPersistence
import ForagerTransport
import Foundation

// The store's side of the folder transport: the store calls the folder, and keeps one
// `FolderProgress` per folder for its life.

extension HouseholdStore {
  /// The shared folder at `url` as this store's device sees it: its file named by
  /// ``deviceID``, its name for people `deviceName`.
  public nonisolated func folder(
    at url: URL, deviceName: String, coordination: any FileCoordinating = FileCoordination.system
  ) -> SyncFolder {
    SyncFolder(url: url, deviceID: deviceID, deviceName: deviceName, coordination: coordination)
  }
}

extension HouseholdStore {
  /// Merges what the folder's peer files gained into this store's replica (each peer's
  /// changes announced and saved as ``merge(_:policy:)-(HouseholdState,_)`` does), then
  /// publishes what changed as this device's file there. The store keeps its progress in each
  /// folder for its life, so that each sync reads and writes what changed.
  ///
  /// The folder is read and written off the store's actor: a coordinated read that waits for
  /// a download, or a coordinated write that waits for the service, never holds up an edit, a
  /// merge or a flush. Only merging what was read and deciding what to publish run on the
  /// store. Syncs through one folder run one at a time, in the order they were called.
  public func sync(through folder: SyncFolder) async throws(SyncFolderError)
    -> FolderSyncOutcome
  {
    let path = Self.progressKey(of: folder)
    await beginFolderSync(path)
    defer { endFolderSync(path) }
    var progress = folderProgress[path] ?? FolderProgress()
    defer { folderProgress[path] = progress }
    let household = householdID
    let reading = await Self.offActor { [progress] () throws(SyncFolderError) in
      (
        former: folder.formerFileIdentity(), peers: try folder.readPeers(progress: progress),
        conflicts: folder.readOwnConflictVersions()
      )
    }
    let read = try reading.get()
    var outcome = folder.apply(read.peers, to: household, progress: &progress) {
      state, greatest throws(HouseholdError) in try merge(state, greatestTimestamp: greatest)
    }
    let conflicts = folder.apply(read.conflicts, to: household, outcome: &outcome) {
      state, greatest throws(HouseholdError) in try merge(state, greatestTimestamp: greatest)
    }
    let pending = folder.preparePublication(of: &replica, progress: progress)
    // The progress comes back whatever happened: a failed write moves it too (the next
    // publication starts with a snapshot numbered past what this one wrote).
    let (written, moved) = await Self.offActor { [progress] () throws(Never) in
      var progress = progress
      let written = Result { () throws(StoreError) in
        try folder.write(pending, progress: &progress)
      }
      return (written, progress)
    }.get()
    progress = moved
    switch written {
    case .success(let published): outcome.published = published
    case .failure(let error): throw .publishFailed(error)
    }
    outcome.wrote = folder.ownFileName
    outcome = await Self.offActor { [outcome] () throws(Never) in
      var outcome = outcome
      folder.resolve(conflicts)
      folder.retireFormerFile(seen: read.former, outcome: &outcome)
      return outcome
    }.get()
    return outcome
  }

  /// Makes this store's next publications into `folder` meet `faults`: for tests of what a
  /// failing disk leaves.
  package func injectFolderFaults(_ faults: FileFaults, in folder: SyncFolder) {
    folderProgress[Self.progressKey(of: folder), default: FolderProgress()].faults = faults
  }

  /// Waits until no other sync runs through the folder at `path`, then marks one running:
  /// syncs through one folder share its progress, so they run one at a time, in call order.
  private func beginFolderSync(_ path: String) async {
    if foldersSyncing.insert(path).inserted { return }
    await withCheckedContinuation { folderSyncsWaiting[path, default: []].append($0) }
  }

  /// Ends the sync through the folder at `path`, handing the folder to the next one waiting.
  private func endFolderSync(_ path: String) {
    guard var waiting = folderSyncsWaiting[path], !waiting.isEmpty else {
      foldersSyncing.remove(path)
      return
    }
    let next = waiting.removeFirst()
    folderSyncsWaiting[path] = waiting.isEmpty ? nil : waiting
    next.resume()
  }

  /// The key of `folder`'s progress and of the syncs running through it: its standardized path.
  private static func progressKey(of folder: SyncFolder) -> String {
    folder.url.standardizedFileURL.path
  }

  /// Runs `body` on another thread, off the store's actor.
  private static func offActor<Value: Sendable, Failure: Error>(
    _ body: @escaping @Sendable () throws(Failure) -> Value
  ) async -> Result<Value, Failure> {
    await Task.detached { Result { () throws(Failure) in try body() } }.value
  }
}
