import ForagerSync
import ForagerTestSupport
import Foundation
import Testing

@testable import ForagerPersistence

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A store lets go of its file's lock while the app is in the background, and takes in what
/// another process (a widget, an extension) saved meanwhile; one writer at a time still holds.
/// A volume without locks opens with that said (ADR 0034).
@Suite struct StoreSuspensionTests {
  static func open(_ file: URL) async throws -> HouseholdStore {
    try await HouseholdStore(fileURL: file, firstLaunch: .createHousehold(ownerName: "Sam"))
  }

  static func categories(_ store: HouseholdStore) async -> Set<String> {
    Set(await store.replica.categories().map(\.displayName))
  }

  @Test func aSuspendedStoreHoldsNoLockAndTakesInWhatAnotherProcessSaved() async throws {
    let folder = TemporaryFolder()
    let file = folder.file("household.json")
    let app = try await Self.open(file)
    try await app.edit { _ = try $0.getOrCreateCategory(displayName: "Produce") }
    // While it runs, the file is the app's alone.
    await #expect(throws: StoreError(file: file, problem: .locked)) {
      _ = try await Self.open(file)
    }

    try await app.suspend()
    #expect(await app.isSuspended)
    // The widget opens the file, sees what the app saved, edits and closes.
    var widget: HouseholdStore? = try await Self.open(file)
    #expect(await Self.categories(widget!) == ["Produce"])
    try await widget!.edit { _ = try $0.getOrCreateCategory(displayName: "Dairy") }
    try await widget!.flush()
    // The app edits in the background too: kept in memory, not saved while suspended.
    try await app.edit { _ = try $0.getOrCreateCategory(displayName: "Bakery") }
    await #expect(throws: StoreError(file: file, problem: .suspended)) { try await app.flush() }
    // One writer at a time: no resume while the widget holds the file.
    await #expect(throws: StoreError(file: file, problem: .locked)) { try await app.resume() }
    #expect(await app.isSuspended)
    widget = nil

    let changes = await app.changes()
    try await app.resume()
    #expect(await !app.isSuspended)
    #expect(await Self.categories(app) == ["Produce", "Dairy", "Bakery"])
    var iterator = changes.makeAsyncIterator()
    #expect(await iterator.next()?.origin == .peer, "the widget's edit is announced")
    try await app.flush()
    await #expect(throws: StoreError(file: file, problem: .locked)) {
      _ = try await Self.open(file)
    }

    // Everything either saved is in the file.
    let saved = try #require(try ReplicaStore(fileURL: file).read())
    var reader = ReplicaStore(fileURL: file)
    let reopened = try reader.open(household: saved.state.householdID, member: saved.member)
    #expect(Set(reopened.categories().map(\.displayName)) == ["Produce", "Dairy", "Bakery"])
  }

  @Test func aStoreNobodyTouchedWhileSuspendedResumesAsItWas() async throws {
    let folder = TemporaryFolder()
    let file = folder.file("household.json")
    let app = try await Self.open(file)
    try await app.suspend()
    try await app.suspend()  // twice is once
    let before = try Data(contentsOf: file)
    try await app.resume()
    try await app.resume()
    #expect(try Data(contentsOf: file) == before)
    try await app.edit { _ = try $0.getOrCreateCategory(displayName: "Produce") }
    try await app.flush()
    #expect(await app.savesWritten == 1)
  }

  /// A volume without locks (some SMB, NFS and FUSE mounts) opens, and says it holds no lock;
  /// any other failure to lock is still refused.
  @Test func aVolumeWithoutLocksOpensUnenforcedAndSaysSo() async throws {
    let folder = TemporaryFolder()
    for code in [ENOTSUP, ENOLCK] {
      let file = folder.file("household-\(code).json")
      let store = try await ReplicaFileLock.$volumeRefusal.withValue(code) {
        try await Self.open(file)
      }
      #expect(store.lockGuarantee == .unenforced(reason: String(cString: strerror(code))))
      try await store.edit { _ = try $0.getOrCreateCategory(displayName: "Produce") }
      try await store.flush()
    }
    let file = folder.file("household.json")
    let store = try await Self.open(file)
    #expect(store.lockGuarantee == .exclusive)
    await #expect(throws: StoreError(file: folder.file("other.json"), problem: .locked)) {
      try await ReplicaFileLock.$volumeRefusal.withValue(EWOULDBLOCK) {
        _ = try await Self.open(folder.file("other.json"))
      }
    }
    #expect(throws: StoreError.self) {
      _ = try ReplicaFileLock(replicaFile: folder.file("x.json"), locking: { _ in EIO })
    }
  }
}
