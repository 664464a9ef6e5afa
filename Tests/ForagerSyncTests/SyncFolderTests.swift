import ForagerSync
import ForagerTestSupport
import Foundation
import Testing

@Suite struct SyncFolderTests {
  /// Records every coordinated access, to show the transport goes through the hook.
  final class RecordingCoordination: FileCoordinating, @unchecked Sendable {
    private let lock = NSLock()
    private var accesses: [String] = []

    var log: [String] { lock.withLock { accesses } }

    func coordinateReading<Value>(_ url: URL, _ body: (URL) throws -> Value) throws -> Value {
      lock.withLock { accesses.append("read \(url.lastPathComponent)") }
      return try body(url)
    }

    func coordinateWriting<Value>(_ url: URL, _ body: (URL) throws -> Value) throws -> Value {
      lock.withLock { accesses.append("write \(url.lastPathComponent)") }
      return try body(url)
    }
  }

  @Test func twoStoresConvergeThroughAFolderAndEveryOddEntryIsSkippedWithItsReason() async throws {
    let root = TemporaryFolder()
    let shared = root.url.appendingPathComponent("shared")
    try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
    let phone = try await HouseholdStore(
      fileURL: root.file("phone/household.json"), firstLaunch: .createHousehold(ownerName: "Sam"))
    let tablet = try await HouseholdStore(
      fileURL: root.file("tablet/household.json"),
      firstLaunch: .join(phone.householdID, member: MemberID()))
    let coordination = RecordingCoordination()
    let phoneFolder = try SyncFolder(url: shared, deviceName: "phone", coordination: coordination)
    let tabletFolder = try SyncFolder(url: shared, deviceName: "tablet", coordination: coordination)

    try await phone.edit { _ = try $0.getOrCreateCategory(displayName: "Produce") }
    try await tablet.edit { _ = try $0.getOrCreateCategory(displayName: " produce") }
    try await tablet.edit { _ = try $0.getOrCreateCategory(displayName: "Dairy") }
    // What a folder holds besides the devices' files.
    let stranger = HouseholdReplica.create(owner: MemberID(), ownerName: "Kim")
    try ReplicaStore.save(to: shared.appendingPathComponent("kim.forager.json"), stranger)
    for (name, text) in [
      (".laptop.forager.json.icloud", ""), ("laptop.forager.json.part", "{"),
      ("junk.forager.json", "{\"format\":2"), ("notes.forager.txt", "hello"),
      (".phone.forager.json.tmp-123", ""),
    ] {
      try Data(text.utf8).write(to: shared.appendingPathComponent(name))
    }

    var tabletChanges = await tablet.changes().makeAsyncIterator()
    let first = try await phone.sync(through: phoneFolder)
    #expect(first.merged.isEmpty && first.wrote == "phone.forager.json")
    let reasons = Dictionary(uniqueKeysWithValues: first.skipped.map { ($0.entry, $0.reason) })
    #expect(reasons[".laptop.forager.json.icloud"] == .notDownloaded)
    #expect(reasons["laptop.forager.json.part"] == .partialDownload)
    #expect(reasons["notes.forager.txt"] == .notAReplicaFile)
    #expect(reasons["kim.forager.json"] == .otherHousehold(stranger.householdID))
    guard case .unreadable(let error) = reasons["junk.forager.json"],
      case .malformed = error.problem
    else {
      Issue.record("junk.forager.json: \(String(describing: reasons["junk.forager.json"]))")
      return
    }
    #expect(reasons[".phone.forager.json.tmp-123"] == nil, "a temporary file is skipped silently")

    let second = try await tablet.sync(through: tabletFolder)
    #expect(second.merged == ["phone.forager.json"])
    let merged = try #require(await tabletChanges.next())
    #expect(merged.origin == .peer)
    _ = try await phone.sync(through: phoneFolder)
    let phoneCategories = await phone.replica.categories().map(\.key)
    let tabletCategories = await tablet.replica.categories().map(\.key)
    #expect(phoneCategories == tabletCategories)
    // Which spelling of "produce" wins depends on the clocks; the keys do not.
    #expect(Set(phoneCategories.map(\.rawValue)) == ["dairy", "produce"])
    #expect(coordination.log.contains("write phone.forager.json"))
    #expect(coordination.log.contains("read tablet.forager.json"))
    #expect(coordination.log.contains("read junk.forager.json"))
    #expect(!coordination.log.contains { $0.contains(".icloud") || $0.contains(".part") })
  }

  @Test func aDeviceNameThatIsNotAPlainFileNameAndAMissingFolderAreRefused() async throws {
    let root = TemporaryFolder()
    for name in ["", ".hidden", "../escape", "a/b", "a\\b", "nul\0"] {
      #expect(throws: SyncFolderError.notAPlainName(name)) {
        try SyncFolder(url: root.url, deviceName: name)
      }
    }
    let missing = root.url.appendingPathComponent("missing")
    var replica = HouseholdReplica.create(owner: MemberID(), ownerName: "Sam")
    #expect(throws: SyncFolderError.notAFolder(missing)) {
      try SyncFolder(url: missing, deviceName: "phone").sync(&replica)
    }
  }
}
