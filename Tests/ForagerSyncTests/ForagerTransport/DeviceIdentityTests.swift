import ForagerSync
import ForagerTestSupport
import Foundation
import Testing

/// A device's files in a shared folder are named by an id minted once per device, not by its
/// display name: two iPhones both named "iPhone", or "Phone" and "phone" on a case-insensitive
/// file system, sync like any two devices, and a folder an earlier build wrote by names
/// migrates.
@Suite struct DeviceIdentityTests {
  @Test func anIDIsLowercaseLettersDigitsAndDashesAndAMintedOneIsNew() {
    for refused in [
      "", ".hidden", "../escape", "a/b", "a\\b", "nul\0", "Phone", "iPhone", "-x", "a b",
      "é", String(repeating: "a", count: 65),
    ] {
      #expect(DeviceID(refused) == nil, "\(refused.debugDescription)")
    }
    for accepted in ["phone", "device-1", "0", String(repeating: "a", count: 64)] {
      #expect(DeviceID(accepted)?.rawValue == accepted)
    }
    let minted = (0..<100).map { _ in DeviceID.random() }
    #expect(Set(minted).count == 100)
    for id in minted {
      #expect(id.rawValue.count == 32 && DeviceID(id.rawValue) == id, "\(id)")
    }
  }

  @Test func theIDIsKeptBesideTheReplicaAndADamagedOneIsReplaced() async throws {
    let root = TemporaryFolder()
    let replicaFile = root.file("household.json")
    var store: HouseholdStore? = try await HouseholdStore(
      fileURL: replicaFile, firstLaunch: .createHousehold(ownerName: "Sam"))
    let first = try #require(store?.deviceID)
    let kept = DeviceID.fileURL(besideReplica: replicaFile)
    #expect(try String(contentsOf: kept, encoding: .utf8) == first.rawValue + "\n")
    #expect(try DeviceID.stored(besideReplica: replicaFile) == first)
    // The id is the device's, not the launch's.
    try await store?.flush()
    store = nil
    let reopened = try await HouseholdStore(
      fileURL: replicaFile, firstLaunch: .createHousehold(ownerName: "Sam"))
    #expect(reopened.deviceID == first)
    // Not an id, too long, not text: a new id, kept from then on.
    for damage in ["Not An Id\n", String(repeating: "a", count: 200), "\u{0}\u{1}"] {
      try Data(damage.utf8).write(to: kept)
      let replaced = try DeviceID.stored(besideReplica: replicaFile)
      #expect(replaced != first && DeviceID(replaced.rawValue) == replaced)
      #expect(try DeviceID.stored(besideReplica: replicaFile) == replaced)
    }
  }

  /// Three devices, each named "iPhone" or a spelling of it that a case-insensitive file
  /// system takes for the same name: each has its own file, and every edit reaches every
  /// device. With files named by display names, all three wrote one file and each skipped it
  /// as its own.
  @Test(arguments: [
    ["iPhone", "iPhone"], ["iPhone", "iPhone", "iPhone"], ["Phone", "phone", "PHONE"],
  ])
  func devicesWithOneNameSyncLikeAnyDevices(_ names: [String]) async throws {
    let root = TemporaryFolder()
    let shared = root.file("shared")
    try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
    let owner = try await HouseholdStore(
      fileURL: root.file("device-0/household.json"),
      firstLaunch: .createHousehold(ownerName: "Sam"))
    var stores = [owner]
    for index in 1..<names.count {
      stores.append(
        try await HouseholdStore(
          fileURL: root.file("device-\(index)/household.json"),
          firstLaunch: .join(owner.householdID, member: MemberID())))
    }
    let folders = zip(stores, names).map { store, name in
      store.folder(at: shared, deviceName: name, coordination: FileCoordination.none)
    }
    // Distinct on a case-insensitive file system too (APFS as formatted, iCloud Drive).
    #expect(Set(folders.map { $0.ownFileName.lowercased() }).count == names.count)
    for (index, store) in stores.enumerated() {
      _ = try await store.edit { try $0.getOrCreateCategory(displayName: "Aisle \(index)") }
    }
    // Two rounds: the joiners need the owner's household first.
    for _ in 1...2 {
      for (store, folder) in zip(stores, folders) { _ = try await store.sync(through: folder) }
    }
    let entries = try FileManager.default.contentsOfDirectory(atPath: shared.path)
    #expect(
      Set(entries.filter { $0.hasSuffix(SyncFolder.fileSuffix) })
        == Set(folders.map(\.ownFileName)))
    let first = await stores[0].replica.state
    for (index, store) in stores.enumerated() {
      let replica = await store.replica
      let converged = replica.state == first
      #expect(converged, "device \(index)")
      for aisle in names.indices {
        #expect(replica.category(named: "Aisle \(aisle)") != nil, "device \(index), aisle \(aisle)")
      }
    }
  }

  /// What a build before device ids left for a device named "iPhone": its snapshot and a
  /// journal line, named by the display name.
  static func formerFiles(in folder: URL, of replica: inout HouseholdReplica) throws -> URL {
    let file = folder.appendingPathComponent("iPhone" + SyncFolder.fileSuffix)
    var store = ReplicaStore(fileURL: file)
    try store.save(replica)
    _ = try replica.getOrCreateCategory(displayName: "Written Before The Upgrade")
    let change = replica.takeLocalDelta()
    try store.append(#require(change), of: replica)
    return file
  }

  /// A folder written by the build before: the upgraded device merges its former file (the
  /// journal line too), publishes its own, and removes the former one; a second upgraded
  /// device named "iPhone" gets everything from the first device's new file.
  @Test func aFolderOfAnEarlierBuildMigrates() throws {
    let root = TemporaryFolder()
    var old = HouseholdReplica.create(owner: MemberID(), ownerName: "Sam", replica: "old-1")
    let former = try Self.formerFiles(in: root.url, of: &old)
    let journal = ReplicaJournal.url(of: former)
    #expect(FileManager.default.fileExists(atPath: journal.path))

    var upgraded = HouseholdReplica(
      joining: old.householdID, member: MemberID(), replica: "new-1")
    let folder = try SyncFolder(
      url: root.url, deviceID: #require(DeviceID("a1")), deviceName: "iPhone",
      coordination: FileCoordination.none)
    #expect(folder.formerFileName == "iPhone.forager.json")
    let outcome = try folder.sync(&upgraded)
    #expect(outcome.merged == ["iPhone.forager.json"])
    #expect(outcome.retired == "iPhone.forager.json" && outcome.wrote == "a1.forager.json")
    #expect(upgraded.category(named: "Written Before The Upgrade") != nil)
    #expect(!FileManager.default.fileExists(atPath: former.path))
    #expect(!FileManager.default.fileExists(atPath: journal.path))

    var second = HouseholdReplica(joining: old.householdID, member: MemberID(), replica: "new-2")
    let other = try SyncFolder(
      url: root.url, deviceID: #require(DeviceID("b2")), deviceName: "iPhone",
      coordination: FileCoordination.none
    )
    .sync(&second)
    #expect(other.merged == ["a1.forager.json"] && other.retired == nil)
    let converged = second.state == upgraded.state
    #expect(converged)
  }

  /// A device of the earlier build, named like the upgraded one, writes its file again
  /// between the read and the removal: the file stays, and its new line is merged next time.
  @Test func aFormerFileChangedSinceItWasReadStays() throws {
    let root = TemporaryFolder()
    var old = HouseholdReplica.create(owner: MemberID(), ownerName: "Sam", replica: "old-1")
    let former = try Self.formerFiles(in: root.url, of: &old)
    var oldStore = ReplicaStore(fileURL: former)
    _ = try oldStore.open(household: old.householdID, member: old.member)

    var upgraded = HouseholdReplica(
      joining: old.householdID, member: MemberID(), replica: "new-1")
    let folder = try SyncFolder(
      url: root.url, deviceID: #require(DeviceID("a1")), deviceName: "iPhone",
      coordination: FileCoordination.none)
    var progress = FolderProgress()
    let outcome = try folder.sync(household: upgraded.householdID, progress: &progress) {
      state, _ throws(HouseholdError) in
      try upgraded.merge(state)
      // The old build's device writes meanwhile.
      _ = try? old.getOrCreateCategory(displayName: "Written During The Sync")
      if let change = old.takeLocalDelta() { _ = try? oldStore.append(change, of: old) }
    } publish: { progress throws(StoreError) in
      try folder.publish(&upgraded, progress: &progress)
    }
    #expect(outcome.merged == ["iPhone.forager.json"] && outcome.retired == nil)
    #expect(FileManager.default.fileExists(atPath: former.path))
    #expect(upgraded.category(named: "Written During The Sync") == nil)

    let next = try folder.sync(&upgraded, progress: &progress)
    #expect(next.retired == "iPhone.forager.json")
    #expect(upgraded.category(named: "Written During The Sync") != nil)
  }
}
