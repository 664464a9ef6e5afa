import ForagerSync
import ForagerTestSupport
import Foundation
import Observation
import SemanticCRDT
import Testing

@testable import ForagerPersistence

@Suite struct HouseholdStoreTests {
  static let owner = MemberID(uuid: UUID(uuidString: "5A0E0000-0000-4000-8000-000000000001")!)

  static func categoryNames(in file: URL) throws -> Set<String> {
    guard let state = try ReplicaStore.storedState(at: file) else { return [] }
    return Set(state.categories.values.map(\.displayName))
  }

  // MARK: Launch

  @Test func theFirstLaunchCreatesTheFolderAndTheHouseholdAndARelaunchFindsThem() async throws {
    let folder = TemporaryFolder()
    let file = folder.url.appendingPathComponent("not/there/yet/household.json")
    var store: HouseholdStore? = try await HouseholdStore(
      fileURL: file, firstLaunch: .createHousehold(ownerName: "Sam", owner: Self.owner))
    let household = store!.householdID
    let firstIncarnation = store!.replicaID
    #expect(store!.isFirstLaunch)
    // Saved before the initializer returned: a relaunch after a crash here finds it.
    let created = try #require(try ReplicaStore(fileURL: file).read())
    #expect(created.state.householdID == household)
    #expect(created.state.owner.value == Self.owner)
    // The owner can do what owners do at once.
    try await store!.edit { try $0.addMember(MemberID(), name: "Alex") }
    try await store!.edit { _ = try $0.getOrCreateCategory(displayName: "Produce") }
    try await store!.flush()
    store = nil

    // The relaunch passes the same first-launch choice: the file decides.
    let reopened = try await HouseholdStore(
      fileURL: file, firstLaunch: .createHousehold(ownerName: "Someone else"))
    #expect(!reopened.isFirstLaunch)
    #expect(reopened.householdID == household)
    #expect(reopened.member == Self.owner)
    #expect(reopened.replicaID != firstIncarnation)
    let replica = await reopened.replica
    #expect(replica.category(named: "produce") != nil)
    #expect(replica.members().map(\.displayName).sorted() == ["Alex", "Sam"])
  }

  @Test func joiningMakesAnEmptyReplicaAndRefusesAFileOfAnotherHousehold() async throws {
    let folder = TemporaryFolder()
    let file = folder.file("tablet.json")
    let household = HouseholdID()
    var store: HouseholdStore? = try await HouseholdStore(
      fileURL: file, firstLaunch: .join(household, member: Self.owner))
    #expect(store!.householdID == household)
    #expect(await store!.replica.state.recordCount == 0)
    store = nil
    let before = try Data(contentsOf: file)
    let other = HouseholdID()
    await #expect(
      throws: StoreError(
        file: file, problem: .differentHousehold(expected: other, found: household))
    ) {
      _ = try await HouseholdStore(fileURL: file, firstLaunch: .join(other, member: Self.owner))
    }
    #expect(try Data(contentsOf: file) == before)
  }

  @Test func aSecondStoreOfTheFileIsRefused() async throws {
    let folder = TemporaryFolder()
    let file = folder.file("phone.json")
    let store = try await HouseholdStore(
      fileURL: file, firstLaunch: .createHousehold(ownerName: "Sam"))
    await #expect(throws: StoreError(file: file, problem: .locked)) {
      _ = try await HouseholdStore(fileURL: file, firstLaunch: .createHousehold(ownerName: "Sam"))
    }
    withExtendedLifetime(store) {}
  }

  // MARK: Saving

  /// Edits from many tasks at once: the file never goes back to an older state while they are
  /// saved (one save at a time, each of the latest state), the saves are fewer than the edits,
  /// and a flush leaves every edit in the file.
  @Test func savesRunOneAtATimeInOrderAndCoalesceABurst() async throws {
    let folder = TemporaryFolder()
    let file = folder.file("phone.json")
    let store = try await HouseholdStore(
      fileURL: file, firstLaunch: .createHousehold(ownerName: "Sam"))
    let edits = 300
    let watcher = Task.detached { () -> [Int] in
      var counts: [Int] = []
      while !Task.isCancelled {
        if let count = try? Self.categoryNames(in: file).count { counts.append(count) }
        try? await Task.sleep(for: .microseconds(200))
      }
      return counts
    }
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<edits {
        group.addTask {
          try! await store.edit { _ = try $0.getOrCreateCategory(displayName: "Aisle \(index)") }
        }
      }
    }
    try await store.flush()
    watcher.cancel()
    let counts = await watcher.value
    #expect(try Self.categoryNames(in: file).count == edits)
    #expect(await !store.hasUnsavedChanges)
    #expect(
      zip(counts, counts.dropFirst()).allSatisfy { $0 <= $1 }, "the file went back: \(counts)")
    let saves = await store.savesWritten
    #expect(saves >= 1 && saves < edits, "\(saves) saves for \(edits) edits")
  }

  /// What merges and sync messages bring is saved like an edit: journaled with the edits
  /// around it, and found by a relaunch.
  @Test func mergedChangesAreSavedAndARelaunchFindsThem() async throws {
    let folder = TemporaryFolder()
    let file = folder.file("phone.json")
    var store: HouseholdStore? = try await HouseholdStore(
      fileURL: file, firstLaunch: .createHousehold(ownerName: "Sam", owner: Self.owner))
    let household = store!.householdID
    var tablet = HouseholdReplica(joining: household, member: Self.owner)
    try tablet.merge(await store!.replica.state)
    _ = try tablet.getOrCreateCategory(displayName: "Dairy")
    try await store!.edit { _ = try $0.getOrCreateCategory(displayName: "Produce") }
    try await store!.merge(tablet.state)
    try await store!.flush()
    #expect(try #require(try ReplicaStore.storedState(at: file)).categories.count == 2)
    _ = try tablet.getOrCreateCategory(displayName: "Bakery")
    var session = SyncSession()
    try await store!.receive(session.message(from: &tablet), fromPeer: "tablet")
    try await store!.edit { _ = try $0.getOrCreateCategory(displayName: "Frozen") }
    try await store!.flush()
    #expect(try #require(try ReplicaStore(fileURL: file).readJournal()).entries.count >= 1)
    let expected = await store!.replica.state
    store = nil

    store = try await HouseholdStore(
      fileURL: file, firstLaunch: .join(household, member: Self.owner))
    #expect(await store!.replica.state == expected)
    #expect(
      Set(await store!.replica.categories().map(\.displayName))
        == ["Bakery", "Dairy", "Frozen", "Produce"])
  }

  /// A store told to announce opens each new session with its version, and two announcing
  /// sides converge on deltas alone (ADR 0043).
  @Test func aStoreThatAnnouncesSyncsWithoutAFullState() async throws {
    let folder = TemporaryFolder()
    let store = try await HouseholdStore(
      fileURL: folder.file("phone.json"),
      firstLaunch: .createHousehold(ownerName: "Sam", owner: Self.owner))
    #expect(await !store.announcesVersions)
    await store.announceVersions()
    try await store.edit { _ = try $0.getOrCreateCategory(displayName: "Produce") }
    var tablet = HouseholdReplica(joining: store.householdID, member: Self.owner)
    _ = try tablet.getOrCreateCategory(displayName: "Bakery")
    var session = SyncSession(announcingVersions: true)
    var messages: [SyncMessage] = []
    for _ in 0..<3 {
      let fromStore = await store.syncMessage(forPeer: "tablet")
      try session.receive(fromStore, into: &tablet)
      let fromTablet = session.message(from: &tablet)
      try await store.receive(fromTablet, fromPeer: "tablet")
      messages += [fromStore, fromTablet]
    }
    #expect(messages.first?.isAnnouncement == true)
    #expect(messages.allSatisfy { $0.isDelta || $0.isAnnouncement })
    #expect(await store.replica.state == tablet.state)
    #expect(tablet.category(named: "Produce") != nil)
  }

  /// A merge that answers a forged claim on this device's writes writes records again
  /// (``MergeReport/reissuedRecords``): those writes are changes like any other, and a flush
  /// returns once the files hold them. The store once saved only the merged delta and left the
  /// rewrites for the next edit, so a relaunch after the flush opened the records under the
  /// claimed incarnation: not the household the app had shown and sent its peers.
  @Test func theRewritesThatAnswerAForgedClaimAreSavedWithTheMerge() async throws {
    let folder = TemporaryFolder()
    let file = folder.file("phone.json")
    var store: HouseholdStore? = try await HouseholdStore(
      fileURL: file, firstLaunch: .createHousehold(ownerName: "Sam", owner: Self.owner))
    let household = store!.householdID
    try await store!.edit {
      for name in ["Produce", "Dairy", "Bakery", "Frozen", "Snacks"] {
        _ = try $0.getOrCreateCategory(displayName: name)
      }
    }
    try await store!.flush()
    // A delta claiming a write of this incarnation it never made: one that makes a category
    // and removes it again, which names the write in its context and holds no record.
    var claim = await store!.replica
    _ = claim.takeLocalDelta()
    let spices = try claim.getOrCreateCategory(displayName: "Spices").category.key
    try claim.deleteCategory(spices)
    let taken = claim.takeLocalDelta()
    let forged = try #require(taken)
    let report = try await store!.merge(forged)
    #expect(report.forgedClaims == [store!.replicaID] && report.reissuedRecords >= 1)
    try await store!.flush()
    let expected = await store!.replica.state
    #expect(expected.categories.count == 5)
    store = nil

    store = try await HouseholdStore(
      fileURL: file, firstLaunch: .join(household, member: Self.owner))
    let same = await store!.replica.state == expected
    #expect(same, "the relaunch opened another household than the store held")
  }

  @Test func aFailedSaveIsReportedByFlushAndTheNextFlushWritesIt() async throws {
    let folder = TemporaryFolder()
    let file = folder.file("phone.json")
    let store = try await HouseholdStore(
      fileURL: file, firstLaunch: .createHousehold(ownerName: "Sam"))
    // A folder where the journal goes: appending to it fails, for root too.
    let journal = ReplicaJournal.url(of: file)
    try FileManager.default.createDirectory(
      at: journal.appendingPathComponent("in-the-way"), withIntermediateDirectories: true)
    try await store.edit { _ = try $0.getOrCreateCategory(displayName: "Produce") }
    await #expect {
      try await store.flush()
    } throws: { error in
      guard let error = error as? StoreError, case .writeFailed = error.problem else {
        return false
      }
      return error.file == journal
    }
    #expect(await store.lastSaveError != nil)
    #expect(await store.hasUnsavedChanges)

    try FileManager.default.removeItem(at: journal)
    try await store.flush()
    #expect(await store.lastSaveError == nil)
    #expect(try Self.categoryNames(in: file) == ["Produce"])
  }

  // MARK: Change events

  @Test func everyStreamHearsLocalEditsAndMergesInOrder() async throws {
    let folder = TemporaryFolder()
    let store = try await HouseholdStore(
      fileURL: folder.file("phone.json"), firstLaunch: .createHousehold(ownerName: "Sam"))
    let streams = [await store.changes(), await store.changes()]

    let produce = try await store.edit {
      try $0.getOrCreateCategory(displayName: "Produce").category
    }
    var peer = HouseholdReplica(joining: store.householdID, member: Self.owner, replica: "tablet")
    let dairy = try peer.getOrCreateCategory(displayName: "Dairy").category
    try await store.merge(peer.state)
    // An edit that changes nothing says nothing.
    try await store.edit { _ = try $0.getOrCreateCategory(displayName: "produce") }
    try await store.edit { try $0.renameCategory(produce.key, to: "Fruit & Veg") }

    for stream in streams {
      var iterator = stream.makeAsyncIterator()
      let local = try #require(await iterator.next())
      #expect(local.origin == .local && local.added == [.category(produce.key)])
      let merged = try #require(await iterator.next())
      #expect(merged.origin == .peer && merged.added == [.category(dairy.key)])
      let renamed = try #require(await iterator.next())
      #expect(renamed.origin == .local && renamed.removed == [.category(produce.key)])
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
  @MainActor @Test func anObservedHouseholdFollowsTheStore() async throws {
    let folder = TemporaryFolder()
    let store = try await HouseholdStore(
      fileURL: folder.file("phone.json"), firstLaunch: .createHousehold(ownerName: "Sam"))
    let observed = await ObservedHousehold(store)
    #expect(observed.replica.categories().isEmpty)
    let (redrawn, redraw) = AsyncStream.makeStream(of: Void.self)
    withObservationTracking {
      _ = observed.replica
    } onChange: {
      redraw.yield()
    }
    try await store.edit { _ = try $0.getOrCreateCategory(displayName: "Produce") }
    var redraws = redrawn.makeAsyncIterator()
    #expect(await redraws.next() != nil)
    // The change is applied right after the observers are told.
    while observed.lastChange == nil { await Task.yield() }
    #expect(observed.replica.categories().map(\.displayName) == ["Produce"])
    #expect(observed.lastChange?.origin == .local)
  }
}
