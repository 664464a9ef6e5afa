import ForagerSync
import ForagerTestSupport
import Foundation
import Testing

@testable import ForagerSyncTool

/// `forager-sync sync` names a device's file in the folder by the id kept beside its replica:
/// devices that share a name (by default every replica file called `household.json`) sync like
/// any, and a folder the build before wrote by names migrates.
@Suite struct SyncCommandDeviceTests {
  /// Replica files of one household, one per device, each `household.json` in its own folder.
  static func devices(_ count: Int, in root: TemporaryFolder) throws -> [URL] {
    let owner = HouseholdReplica.create(owner: MemberID(), ownerName: "Sam", replica: "owner")
    return try (0..<count).map { index in
      let file = root.file("device-\(index)/household.json")
      try FileManager.default.createDirectory(
        at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
      var replica =
        index == 0
        ? owner
        : HouseholdReplica(
          joining: owner.householdID, member: MemberID(), replica: ReplicaID("joiner\(index)"))
      _ = try replica.getOrCreateCategory(displayName: "Aisle \(index)")
      try ReplicaStore.save(to: file, replica)
      return file
    }
  }

  @Test(arguments: [
    [nil, nil], [nil, nil, nil], ["iPhone", "iPhone", "iPhone"], ["Phone", "phone"],
  ])
  func devicesWithOneNameSyncLikeAnyDevices(_ names: [String?]) throws {
    let root = TemporaryFolder("forager-names")
    let shared = root.file("shared")
    try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
    let replicas = try Self.devices(names.count, in: root)
    for _ in 1...2 {
      for (replica, name) in zip(replicas, names) {
        let result = SyncTool.run(
          ["sync", shared.path, "--replica", replica.path] + (name.map { ["--name", $0] } ?? []))
        #expect(result.status == 0, "\(result)")
      }
    }
    let ids = try replicas.map { try DeviceID.stored(besideReplica: $0) }
    #expect(Set(ids).count == names.count)
    #expect(Set(snapshot(of: shared).keys) == Set(ids.map { "\($0).forager.json" }))
    let states = try replicas.map { try #require(try ReplicaStore(fileURL: $0).read()).state }
    #expect(states.allSatisfy { $0 == states[0] }, "\(names)")
    #expect(
      Set(states[0].categories.values.map(\.displayName))
        == Set(names.indices.map { "Aisle \($0)" }))
  }

  /// The build before wrote `<name>.forager.json` (by default the replica file's name): the
  /// upgraded device merges it, writes its own file, and removes the former one.
  @Test func aFolderOfAnEarlierBuildMigrates() throws {
    let root = TemporaryFolder("forager-migrate")
    let shared = root.file("shared")
    try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
    let replicas = try Self.devices(2, in: root)
    // What the earlier build's `sync` left: each device's state under the replica file's name,
    // here both "household" — the first device's file, overwritten by the second's.
    try FileManager.default.copyItem(
      at: replicas[1], to: shared.appendingPathComponent("household.forager.json"))

    let first = SyncTool.run(["sync", shared.path, "--replica", replicas[0].path])
    #expect(first.status == 0, "\(first)")
    #expect(first.output.contains("merged 1 file (household.forager.json)"), "\(first)")
    #expect(first.output.contains("removed household.forager.json"), "\(first)")
    let firstID = try DeviceID.stored(besideReplica: replicas[0])
    #expect(Array(snapshot(of: shared).keys) == ["\(firstID).forager.json"])

    let second = SyncTool.run(["sync", shared.path, "--replica", replicas[1].path])
    #expect(second.output.contains("merged 1 file (\(firstID).forager.json)"), "\(second)")
    #expect(!second.output.contains("removed"))
    let states = try replicas.map { try #require(try ReplicaStore(fileURL: $0).read()).state }
    #expect(states[0] == states[1])
  }
}

/// `forager-sync sync` goes through the coordination as the library does: peers read, its
/// own files written and placeholders asked for through it (`NSFileCoordinator` on Apple
/// platforms; here iCloud's stand-in).
@Suite struct SyncCommandCoordinationTests {
  @Test func syncCoordinatesEveryReadAndWriteAndAsksForPlaceholders() throws {
    let root = TemporaryFolder("forager-coordinated")
    let shared = root.file("shared")
    try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
    let replicas = try SyncCommandDeviceTests.devices(2, in: root)
    let icloud = SimulatedICloud(stash: root.file("stash"))
    _ = try FolderSync.sync(folder: shared, replicaFile: replicas[1], coordination: icloud)
    let peer = "\(try DeviceID.stored(besideReplica: replicas[1])).forager.json"
    try icloud.evict(peer, in: shared)

    let outcome = try FolderSync.sync(
      folder: shared, replicaFile: replicas[0], coordination: icloud)
    let own = "\(try DeviceID.stored(besideReplica: replicas[0])).forager.json"
    #expect(outcome.downloadsRequested == [peer] && icloud.downloadsRequested == [peer])
    #expect(outcome.warnings.contains("\(peer): not downloaded yet; its download was requested"))
    #expect(Set(icloud.writesCoordinated).isSuperset(of: [own, own + ".journal"]))
    try icloud.completeDownloads()
    let merged = try FolderSync.sync(folder: shared, replicaFile: replicas[0], coordination: icloud)
    #expect(merged.merged == [peer])
    #expect(icloud.readsCoordinated.contains(peer))
  }
}
