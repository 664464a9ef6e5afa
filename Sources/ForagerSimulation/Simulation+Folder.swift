import ForagerSync
import Foundation
import SemanticCRDT

// The folder transport, as apps use it: each household shares a real folder on this machine's
// disk, where each device publishes its replica (a snapshot and its journal) and reads its
// peers' with `SyncFolder`. A sync service's delays and partial copies are not modelled here
// (the Syncthing pair test runs a real one); what a service or a member can leave in the
// folder, the hostile peer plays (`Simulation+Hostile.swift`).

extension Simulation {
  /// Makes the run's temporary folder when it uses real files: with the folder transport a
  /// shared folder for each household, and beside them a file no sync may write (where the
  /// hostile peer points its links); with files storage a folder for each device's replica.
  mutating func setUpFolders() {
    guard configuration.transport == .folder || configuration.storage == .files else { return }
    let root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "forager-sim-\(UUID().uuidString)", isDirectory: true)
    folderRoot = root
    if configuration.storage == .files {
      for device in 0..<configuration.devices {
        do {
          try FileManager.default.createDirectory(
            at: root.appendingPathComponent("device-\(device + 1)", isDirectory: true),
            withIntermediateDirectories: true)
        } catch {
          unexpectedFailures.append("the folder of device \(device + 1): \(error)")
        }
      }
    }
    guard configuration.transport == .folder else { return }
    for household in 0..<configuration.households {
      do {
        try FileManager.default.createDirectory(
          at: folder(of: household), withIntermediateDirectories: true)
        try Data(Self.outsideContents(of: household)).write(to: outsideFile(of: household))
      } catch {
        unexpectedFailures.append("the shared folder of household \(household + 1): \(error)")
      }
    }
  }

  /// Removes the run's folders.
  func removeFolders() {
    if let folderRoot { try? FileManager.default.removeItem(at: folderRoot) }
  }

  /// The device's replica file: a name for errors with memory storage, a real file in its own
  /// folder with files storage.
  func replicaFile(of device: Int, in household: Int) -> URL {
    guard configuration.storage == .files, let folderRoot else {
      return URL(fileURLWithPath: "household-\(household + 1)/device-\(device + 1).forager.json")
    }
    return folderRoot.appendingPathComponent("device-\(device + 1)/household.forager.json")
  }

  func folder(of household: Int) -> URL {
    folderRoot!.appendingPathComponent("household-\(household + 1)", isDirectory: true)
  }

  /// A file outside the household's folder that links in the folder point at.
  func outsideFile(of household: Int) -> URL {
    folderRoot!.appendingPathComponent("outside-\(household + 1).txt")
  }

  static func outsideContents(of household: Int) -> [UInt8] {
    Array("A file outside the shared folder of household \(household + 1).\n".utf8)
  }

  /// The device's id in its household's folder: its file is `<id>.forager.json`.
  static func folderID(of device: Int) -> DeviceID { DeviceID("device-\(device + 1)")! }

  /// `text` with the run's folder left out, so that the report reads the same on every machine.
  func withoutFolderRoot(_ text: String) -> String {
    guard let folderRoot else { return text }
    return text.replacingOccurrences(of: folderRoot.path + "/", with: "")
  }

  /// The device syncs through its household's folder with `SyncFolder`'s own sync: merges what
  /// each peer's files gained (each through the replica's merge, whose report it reads), then
  /// publishes what changed, and saves.
  ///
  /// - Returns: Whether the publication failed, so that the device has changes its peers
  ///   cannot read yet: its next sync publishes them.
  @discardableResult
  mutating func syncThroughFolder(_ index: Int) -> Bool {
    let household = devices[index].household
    let folder = SyncFolder(
      url: folder(of: household), deviceID: Self.folderID(of: index),
      deviceName: "device \(index + 1)", coordination: FileCoordination.none)
    report.folderSyncs += 1
    var replica = devices[index].replica!
    var progress = devices[index].folderProgress
    let before = replica.state.version
    let shelvesBefore = replica.state[carried: Shelf.map].context
    var merged: [MergeReport] = []
    let outcome = Result { () throws(SyncFolderError) in
      try folder.sync(household: replica.householdID, progress: &progress) {
        state, greatest throws(HouseholdError) in
        merged.append(try replica.merge(state, from: nil, greatestTimestamp: greatest))
      } publish: { progress throws(StoreError) in
        let written = try folder.publish(&replica, progress: &progress)
        switch written {
        case .line: report.publishedLines += 1
        case .snapshot: report.publishedSnapshots += 1
        case nil: break
        }
        return written
      }
    }
    devices[index].replica = replica
    devices[index].folderProgress = progress
    switch outcome {
    case .failure(.publishFailed(let error)):
      // What the merges did stays merged; the next sync publishes it.
      report.defences.failedPublications += 1
      record(
        "\(name(index)) cannot publish to the folder: \(withoutFolderRoot(error.description))",
        device: index)
    case .failure(let error):
      unexpectedFailures.append(
        "step \(step): \(name(index)) syncing through the folder: \(withoutFolderRoot(error.description))"
      )
    case .success(let outcome):
      report.defences.damagedJournals += outcome.damagedJournals.count
      for skip in outcome.skipped {
        if case .refused(.clockSkew) = skip.reason {
          report.refusedClockSkew += 1
        } else if case .refused(.implausibleClaim) = skip.reason {
          report.defences.refusedForgedClaims += 1
        } else {
          report.defences.skippedFolderEntries += 1
        }
        record(
          "\(name(index)) skips \(withoutFolderRoot(skip.description))", device: index)
      }
    }
    for merge in merged { noteDefences(merge, on: index) }
    noteShelvesMerged(into: index, before: shelvesBefore)
    // A merge that only removes records leaves the version as it was.
    if replica.state.version != before || merged.contains(where: { !$0.changes.isEmpty }) {
      checkSoundness(of: index, after: "syncing through the folder")
      noteFailedSave(devices[index].save(merged: true), on: index)
    }
    if case .failure(.publishFailed) = outcome { return true }
    return false
  }

  /// Every household's file outside its folder is as it was made: no link in the folder made a
  /// sync write through it.
  func outsideFilesWritten() -> [Violation] {
    guard configuration.transport == .folder else { return [] }
    return (0..<configuration.households).compactMap { household in
      let bytes = (try? Data(contentsOf: outsideFile(of: household))).map(Array.init)
      guard bytes != Self.outsideContents(of: household) else { return nil }
      return Violation(
        text:
          "household \(household + 1): the file outside the folder that links point at was written (\(bytes?.count ?? 0) bytes)"
      )
    }
  }
}
