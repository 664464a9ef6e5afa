import ForagerSync
import ForagerTestSupport
import Foundation
import Testing

/// The folder transport in an iCloud Drive folder, played by ``SimulatedICloud``: placeholders
/// are downloaded on request and never taken for damage, every change in the folder is
/// coordinated, conflict versions of the device's own files are merged and resolved, and a
/// coordination that waits never holds up the store.
@Suite struct ICloudFolderTests {
  struct Household {
    let root = TemporaryFolder()
    let icloud: SimulatedICloud
    let shared: URL
    let phone: HouseholdStore
    let tablet: HouseholdStore
    let phoneFolder: SyncFolder
    let tabletFolder: SyncFolder

    init() async throws {
      icloud = SimulatedICloud(stash: root.file("stash"))
      shared = root.file("shared")
      try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
      phone = try await HouseholdStore(
        fileURL: root.file("phone/household.json"),
        firstLaunch: .createHousehold(ownerName: "Sam"))
      tablet = try await HouseholdStore(
        fileURL: root.file("tablet/household.json"),
        firstLaunch: .join(phone.householdID, member: MemberID()))
      phoneFolder = phone.folder(at: shared, deviceName: "iPhone", coordination: icloud)
      tabletFolder = tablet.folder(at: shared, deviceName: "iPad", coordination: icloud)
    }
  }

  @Test func aPlaceholderIsDownloadedOnRequestAndNeverTakenForDamage() async throws {
    let home = try await Household()
    try await home.phone.edit { _ = try $0.getOrCreateCategory(displayName: "Produce") }
    _ = try await home.phone.sync(through: home.phoneFolder)
    let snapshot = home.phoneFolder.ownFileName
    let journal = snapshot + ReplicaJournal.fileSuffix
    try home.icloud.evict(snapshot, in: home.shared)
    try home.icloud.evict(journal, in: home.shared)

    let waiting = try await home.tablet.sync(through: home.tabletFolder)
    #expect(waiting.merged.isEmpty && waiting.damagedJournals.isEmpty)
    #expect(
      Set(waiting.skipped.map(\.entry)) == [".\(snapshot).icloud", ".\(journal).icloud"])
    #expect(waiting.skipped.allSatisfy { $0.reason == .notDownloaded })
    #expect(Set(waiting.downloadsRequested) == [snapshot, journal])
    #expect(home.icloud.downloadsRequested == [snapshot, journal])

    try home.icloud.completeDownloads()
    let downloaded = try await home.tablet.sync(through: home.tabletFolder)
    #expect(downloaded.merged == [snapshot] && downloaded.skipped.isEmpty)
    #expect(await home.tablet.replica.category(named: "Produce") != nil)
  }

  /// Every name in the folder that a sync created, changed or removed was coordinated for
  /// writing during that sync: snapshots, journal lines, and a former file's removal.
  @Test func everyChangeInTheFolderIsCoordinated() async throws {
    let home = try await Household()
    // A file the build before device ids wrote for the phone, to be merged and removed.
    var old = HouseholdReplica(
      joining: home.phone.householdID, member: MemberID(), replica: "old-1")
    var former = ReplicaStore(fileURL: home.shared.appendingPathComponent("iPhone.forager.json"))
    try former.save(old)
    _ = try old.getOrCreateCategory(displayName: "Written Before")
    let change = old.takeLocalDelta()
    try former.append(#require(change), of: old)

    func entries() -> [String: Data] {
      snapshot(of: home.shared).filter { !$0.key.hasPrefix(".") }
    }
    var steps = 0
    for round in 1...4 {
      for (store, folder) in [(home.phone, home.phoneFolder), (home.tablet, home.tabletFolder)] {
        try await store.edit { _ = try $0.getOrCreateCategory(displayName: "Aisle \(round)") }
        let before = entries()
        let coordinated = home.icloud.writesCoordinated.count
        let outcome = try await store.sync(through: folder)
        let after = entries()
        let changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }
        let written = Set(home.icloud.writesCoordinated.dropFirst(coordinated))
        #expect(changed.isSubset(of: written), "round \(round): \(changed) vs \(written)")
        #expect(!changed.isEmpty, "round \(round): \(String(describing: outcome.published))")
        steps += 1
      }
    }
    #expect(steps == 8)
    #expect(
      !FileManager.default.fileExists(
        atPath: home.shared.appendingPathComponent("iPhone.forager.json").path))
    #expect(await home.tablet.replica.category(named: "Written Before") != nil)
    // Peers were read through the coordination too.
    #expect(home.icloud.readsCoordinated.contains(home.phoneFolder.ownFileName))
  }

  /// iCloud keeps the loser of two writes of the device's own file as a conflict version:
  /// merged (a join), then resolved once published.
  @Test func conflictVersionsOfTheDevicesOwnFilesAreMergedAndResolved() async throws {
    let home = try await Household()
    _ = try await home.phone.sync(through: home.phoneFolder)
    let own = home.shared.appendingPathComponent(home.phoneFolder.ownFileName)

    // Another copy of the phone's file, as a restored backup on a second device wrote it.
    var other = HouseholdReplica(
      joining: home.phone.householdID, member: home.phone.member, replica: "copy")
    _ = try other.getOrCreateCategory(displayName: "From The Snapshot Version")
    let copy = home.root.file("copy.json")
    var copyStore = ReplicaStore(fileURL: copy)
    try copyStore.save(other)
    try home.icloud.addConflictVersion(of: own, contents: Data(contentsOf: copy))
    _ = try other.getOrCreateCategory(displayName: "From The Journal Version")
    let line = other.takeLocalDelta()
    try copyStore.append(#require(line), of: other)
    try home.icloud.addConflictVersion(
      of: ReplicaJournal.url(of: own), contents: Data(contentsOf: ReplicaJournal.url(of: copy)))
    // One that is not a replica file stays unresolved.
    try home.icloud.addConflictVersion(of: own, contents: Data("not a replica".utf8))

    let outcome = try await home.phone.sync(through: home.phoneFolder)
    #expect(outcome.conflictVersionsMerged == 2)
    let replica = await home.phone.replica
    #expect(replica.category(named: "From The Snapshot Version") != nil)
    #expect(replica.category(named: "From The Journal Version") != nil)
    #expect(home.icloud.unresolvedCount(of: own) == 1)
    #expect(home.icloud.unresolvedCount(of: ReplicaJournal.url(of: own)) == 0)
    let tablet = try await home.tablet.sync(through: home.tabletFolder)
    #expect(tablet.merged == [home.phoneFolder.ownFileName])
    #expect(await home.tablet.replica.category(named: "From The Journal Version") != nil)
  }

  /// A coordinated read that waits (a download in progress) holds up the sync, never the
  /// store: an edit and a flush finish while it waits.
  @Test func aWaitingCoordinationNeverHoldsUpAnEditOrAFlush() async throws {
    let home = try await Household()
    _ = try await home.tablet.sync(through: home.tabletFolder)
    home.icloud.blocksReads = true
    let syncing = Task { try await home.phone.sync(through: home.phoneFolder) }
    var waited = 0
    while home.icloud.readsWaiting == 0 && waited < 1_000 {
      try await Task.sleep(for: .milliseconds(10))
      waited += 1
    }
    #expect(home.icloud.readsWaiting > 0, "the sync reached the coordinated read")

    let done = Flag()
    let edited = Task {
      try await home.phone.edit { _ = try $0.getOrCreateCategory(displayName: "Meanwhile") }
      try await home.phone.flush()
      done.raise()
    }
    // Ten seconds for the edit and its flush, watched without asking the store: a store held
    // up by the read would run neither until the read goes on.
    for _ in 0..<1_000 where !done.isRaised { try await Task.sleep(for: .milliseconds(10)) }
    let finishedWhileWaiting = done.isRaised
    home.icloud.unblock()
    #expect(finishedWhileWaiting, "the edit and its flush finished while the read waited")
    try await edited.value
    let outcome = try await syncing.value
    #expect(outcome.merged == [home.tabletFolder.ownFileName])
  }
}

/// A flag one task raises and another watches without awaiting anything.
final class Flag: @unchecked Sendable {
  private let lock = NSLock()
  private var raised = false

  func raise() { lock.withLock { raised = true } }
  var isRaised: Bool { lock.withLock { raised } }
}
