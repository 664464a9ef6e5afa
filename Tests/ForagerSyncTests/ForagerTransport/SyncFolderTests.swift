import ForagerSync
import ForagerTestSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite struct SyncFolderTests {
  /// The phone's and the tablet's view of one shared folder, without file coordination.
  static func phoneAndTabletFolders(in root: TemporaryFolder) throws -> (SyncFolder, SyncFolder) {
    (
      SyncFolder(url: root.url, device: "phone", coordination: FileCoordination.none),
      SyncFolder(url: root.url, device: "tablet", coordination: FileCoordination.none)
    )
  }

  /// A phone that creates a household (incarnation `phone-1`) and a tablet that joins it
  /// (`tab-1`), neither synced yet.
  static func phoneAndTabletReplicas() -> (HouseholdReplica, HouseholdReplica) {
    let phone = HouseholdReplica.create(owner: MemberID(), ownerName: "Sam", replica: "phone-1")
    return (
      phone, HouseholdReplica(joining: phone.householdID, member: MemberID(), replica: "tab-1")
    )
  }

  /// The phone and the tablet of ``phoneAndTabletReplicas()`` on the folder `root`, each
  /// with its progress there, neither synced yet.
  struct PhoneAndTablet {
    let phoneFolder: SyncFolder
    let tabletFolder: SyncFolder
    var phone: HouseholdReplica
    var tablet: HouseholdReplica
    var phoneProgress = FolderProgress()
    var tabletProgress = FolderProgress()

    init(in root: TemporaryFolder) throws {
      (phoneFolder, tabletFolder) = try SyncFolderTests.phoneAndTabletFolders(in: root)
      (phone, tablet) = SyncFolderTests.phoneAndTabletReplicas()
    }

    @discardableResult
    mutating func syncPhone() throws(SyncFolderError) -> FolderSyncOutcome {
      try phoneFolder.sync(&phone, progress: &phoneProgress)
    }

    @discardableResult
    mutating func syncTablet() throws(SyncFolderError) -> FolderSyncOutcome {
      try tabletFolder.sync(&tablet, progress: &tabletProgress)
    }
  }

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

  /// An app's store on a phone that creates a household and one on a tablet that joins it,
  /// each with its view of the folder `shared` (inside `root`, made here).
  static func phoneAndTabletStores(
    in root: TemporaryFolder, coordination: any FileCoordinating = FileCoordination.none
  ) async throws -> (
    shared: URL, phone: HouseholdStore, tablet: HouseholdStore, phoneFolder: SyncFolder,
    tabletFolder: SyncFolder
  ) {
    let shared = root.url.appendingPathComponent("shared")
    try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
    let phone = try await HouseholdStore(
      fileURL: root.file("phone/household.json"), firstLaunch: .createHousehold(ownerName: "Sam"))
    let tablet = try await HouseholdStore(
      fileURL: root.file("tablet/household.json"),
      firstLaunch: .join(phone.householdID, member: MemberID()))
    return (
      shared, phone, tablet,
      SyncFolder(url: shared, device: "phone", coordination: coordination),
      SyncFolder(url: shared, device: "tablet", coordination: coordination)
    )
  }

  @Test func twoStoresConvergeThroughAFolderAndEveryOddEntryIsSkippedWithItsReason() async throws {
    let root = TemporaryFolder()
    let coordination = RecordingCoordination()
    let (shared, phone, tablet, phoneFolder, tabletFolder) = try await Self.phoneAndTabletStores(
      in: root, coordination: coordination)

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

  @Test func aMissingFolderIsRefused() async throws {
    let missing = TemporaryFolder().url.appendingPathComponent("missing")
    var replica = HouseholdReplica.create(owner: MemberID(), ownerName: "Sam")
    #expect(throws: SyncFolderError.notAFolder(missing)) {
      try SyncFolder(url: missing, device: "phone").sync(&replica)
    }
  }

  /// Links at the device's names in the folder (its snapshot, its journal, a temporary file),
  /// placed before each sync of an app's store: nothing is written through them, the files
  /// they name outside the folder stay byte for byte, and the peer still gets every edit.
  @Test func linksAtTheDevicesNamesAreReplacedNeverWrittenThrough() async throws {
    let root = TemporaryFolder()
    let (shared, phone, tablet, phoneFolder, tabletFolder) = try await Self.phoneAndTabletStores(
      in: root)
    let outside = root.file("precious.txt")
    let precious = Data("the syncing user's file\n".utf8)
    try precious.write(to: outside)
    let names = ["phone.forager.json", "phone.forager.json.journal", ".phone.forager.json.x.tmp"]
    for (round, name) in (names + names).enumerated() {
      try await phone.edit { _ = try $0.getOrCreateCategory(displayName: "Round \(round)") }
      let entry = shared.appendingPathComponent(name)
      try? FileManager.default.removeItem(at: entry)
      try FileManager.default.createSymbolicLink(at: entry, withDestinationURL: outside)
      _ = try await phone.sync(through: phoneFolder)
      #expect(try Data(contentsOf: outside) == precious, "round \(round), a link at \(name)")
      _ = try await tablet.sync(through: tabletFolder)
      #expect(
        await tablet.replica.category(named: "Round \(round)") != nil,
        "round \(round), a link at \(name)")
    }
  }

  // MARK: Journals

  /// Two replicas syncing through a folder, each with its progress: after the first sync
  /// (whole snapshots), each sync appends one line to the device's journal and reads of the
  /// peer's journal only the lines it gained.
  /// A sync merges each peer's news checking the greatest timestamp its reading found against
  /// the clock's bound, instead of scanning the news again: it must be the news' own, whether
  /// read whole (a snapshot and its lines) or by the lines gained since.
  @Test func thePeersGreatestTimestampIsFoundWhileReadingIt() throws {
    let root = TemporaryFolder()
    let (phoneFolder, tabletFolder) = try Self.phoneAndTabletFolders(in: root)
    var (phone, tablet) = Self.phoneAndTabletReplicas()
    var phoneProgress = FolderProgress()
    var tabletProgress = FolderProgress()
    var readWhole = 0
    var readByLines = 0
    for round in 1...3 {
      _ = try phone.getOrCreateCategory(displayName: "Phone \(round)")
      try phone.renameCategory(
        phone.category(named: "Phone \(round)")!.normalizedName, to: "Phone \(round)!")
      _ = try phoneFolder.sync(&phone, progress: &phoneProgress)
      let reading = try tabletFolder.readPeers(progress: tabletProgress)
      for case .read(_, let news) in reading.items {
        #expect(news.greatestTimestamp == .some(news.changes.greatestTimestamp), "round \(round)")
        if news.readWhole { readWhole += 1 } else { readByLines += 1 }
      }
      // The public path hands each peer's changes over as read, with the same stamp.
      var handed = 0
      var progress = tabletProgress
      _ = try tabletFolder.mergePeerFiles(of: tablet.householdID, progress: &progress) {
        read throws(HouseholdError) in
        #expect(read.greatestTimestamp == read.state.greatestTimestamp, "round \(round)")
        handed += 1
      }
      #expect(handed == 1, "round \(round)")
      _ = try tabletFolder.sync(&tablet, progress: &tabletProgress)
    }
    #expect(readWhole >= 1 && readByLines >= 1, "both ways of reading a peer were checked")
  }

  @Test func laterSyncsAppendLinesAndReadOnlyTheLinesAPeerGained() throws {
    let root = TemporaryFolder()
    let shared = root.url
    let folders = (
      SyncFolder(url: shared, device: "phone", coordination: FileCoordination.none),
      SyncFolder(url: shared, device: "tablet", coordination: FileCoordination.none)
    )
    var (phone, tablet) = Self.phoneAndTabletReplicas()
    var phoneProgress = FolderProgress()
    var tabletProgress = FolderProgress()
    let snapshot = shared.appendingPathComponent("phone.forager.json")
    let journal = ReplicaJournal.url(of: snapshot)

    let first = try folders.0.sync(&phone, progress: &phoneProgress)
    #expect(first.published == .snapshot)
    let snapshotBytes = try Data(contentsOf: snapshot)
    #expect(try #require(try ReplicaStore(fileURL: snapshot).readJournal()).entries.count == 1)
    let joined = try folders.1.sync(&tablet, progress: &tabletProgress)
    #expect(joined.merged == ["phone.forager.json"] && joined.readWhole == ["phone.forager.json"])

    for round in 1...3 {
      _ = try phone.getOrCreateCategory(displayName: "Phone \(round)")
      _ = try tablet.getOrCreateCategory(displayName: "Tablet \(round)")
      let phoneSync = try folders.0.sync(&phone, progress: &phoneProgress)
      #expect(phoneSync.published == .line, "round \(round)")
      #expect(phoneSync.readWhole == (round == 1 ? ["tablet.forager.json"] : []))
      let tabletSync = try folders.1.sync(&tablet, progress: &tabletProgress)
      #expect(tabletSync.published == .line && tabletSync.readWhole.isEmpty, "round \(round)")
      #expect(tablet.category(named: "Phone \(round)") != nil)
    }
    // The snapshot was written once; the journal grew by a line per sync.
    #expect(try Data(contentsOf: snapshot) == snapshotBytes)
    #expect(try #require(try ReplicaStore(fileURL: snapshot).readJournal()).entries.count == 4)
    _ = try folders.0.sync(&phone, progress: &phoneProgress)
    #expect(phone.state == tablet.state)
    let quiet = try folders.0.sync(&phone, progress: &phoneProgress)
    #expect(quiet.published == nil, "nothing changed, nothing written")
    _ = try Data(contentsOf: journal)

    // A fresh reader (a relaunch) reads the snapshot and every line.
    var laptop = HouseholdReplica(joining: phone.householdID, member: MemberID(), replica: "lap")
    var laptopProgress = FolderProgress()
    let laptopSync = try SyncFolder(
      url: shared, device: "laptop", coordination: FileCoordination.none
    )
    .sync(&laptop, progress: &laptopProgress)
    #expect(Set(laptopSync.readWhole) == ["phone.forager.json", "tablet.forager.json"])
    #expect(laptop.state.categories == phone.state.categories)

    // The phone relaunches: a new incarnation writes a new snapshot, which readers read whole.
    var relaunched = HouseholdReplica(
      state: phone.state, member: phone.member, clock: HybridClock(replica: "phone-2"))
    var relaunchedProgress = FolderProgress()
    _ = try relaunched.getOrCreateCategory(displayName: "After relaunch")
    #expect(try folders.0.sync(&relaunched, progress: &relaunchedProgress).published == .snapshot)
    let afterRelaunch = try folders.1.sync(&tablet, progress: &tabletProgress)
    // (and the laptop's, new to the tablet)
    #expect(afterRelaunch.readWhole == ["laptop.forager.json", "phone.forager.json"])
    #expect(tablet.category(named: "After relaunch") != nil)
  }

  /// What a sync service may do to a peer's journal between two syncs: cut it short (torn),
  /// replace it with an older one, damage it. The reader falls back to the whole files or
  /// skips the peer with a typed reason; it never merges a line it cannot place.
  @Test func aPeerJournalThatNoLongerFollowsWhatWasReadIsReadWholeOrSkipped() throws {
    let root = TemporaryFolder()
    var devices = try PhoneAndTablet(in: root)
    let journal = ReplicaJournal.url(of: root.url.appendingPathComponent("phone.forager.json"))
    try devices.syncPhone()
    try devices.syncTablet()
    let afterSnapshot = try Data(contentsOf: journal)

    _ = try devices.phone.getOrCreateCategory(displayName: "Produce")
    try devices.syncPhone()
    let withLine = try Data(contentsOf: journal)

    // Torn: the line is half there. Nothing of it is merged; the whole line comes later.
    try withLine.prefix(afterSnapshot.count + 40).write(to: journal)
    let torn = try devices.syncTablet()
    #expect(
      torn.merged == ["phone.forager.json"] && devices.tablet.category(named: "Produce") == nil)
    try withLine.write(to: journal)
    try devices.syncTablet()
    #expect(devices.tablet.category(named: "Produce") != nil)

    // An older journal put back: shorter than what was read, so it is read whole.
    try afterSnapshot.write(to: journal)
    #expect(
      try devices.syncTablet().readWhole == ["phone.forager.json"])

    // A damaged line: the snapshot and the lines before it are merged, the journal named.
    try withLine.write(to: journal)
    var damaged = withLine
    damaged[afterSnapshot.count + 60] ^= 0x01
    try damaged.write(to: journal)
    var fresh = HouseholdReplica(
      joining: devices.phone.householdID, member: MemberID(), replica: "fresh")
    var freshProgress = FolderProgress()
    let freshFolder = SyncFolder(
      url: root.url, device: "fresh", coordination: FileCoordination.none)
    let partly = try freshFolder.sync(&fresh, progress: &freshProgress)
    #expect(partly.damagedJournals.map(\.file) == [journal])
    #expect(partly.merged == ["phone.forager.json", "tablet.forager.json"])
    #expect(fresh.state.members == devices.phone.state.members, "the snapshot was merged")
    // The tablet, which merged the line before, brings it: nothing of the damaged line is
    // needed from the phone's journal.
    #expect(fresh.category(named: "Produce") != nil)

    // The phone's next sync finds its journal not as it left it and writes a snapshot, which
    // every reader reads whole.
    _ = try devices.phone.getOrCreateCategory(displayName: "Dairy")
    #expect(try devices.syncPhone().published == .snapshot)
    let repaired = try freshFolder.sync(&fresh, progress: &freshProgress)
    #expect(repaired.damagedJournals.isEmpty && fresh.category(named: "Dairy") != nil)
  }
  /// Three devices; a sync service cuts the phone's journal mid-line, and only the phone edits
  /// afterwards, without relaunching. Within two rounds of syncs every peer has each of its
  /// edits: the phone finds its journal not as it left it and starts a clean one with a
  /// snapshot.
  @Test func aJournalCutMidLineHoldsNoDeviceBackForMoreThanOneSync() throws {
    let root = TemporaryFolder()
    let names = ["phone", "tablet", "laptop"]
    let folders = names.map {
      SyncFolder(url: root.url, device: $0, coordination: FileCoordination.none)
    }
    var replicas = [HouseholdReplica.create(owner: MemberID(), ownerName: "Sam", replica: "p1")]
    for name in names.dropFirst() {
      replicas.append(
        HouseholdReplica(
          joining: replicas[0].householdID, member: MemberID(), replica: ReplicaID(name)))
    }
    var progress = names.map { _ in FolderProgress() }
    func round() throws {
      for device in names.indices {
        _ = try folders[device].sync(&replicas[device], progress: &progress[device])
      }
    }
    try round()
    _ = try replicas[0].getOrCreateCategory(displayName: "Before")
    try round()
    let journal = ReplicaJournal.url(of: root.url.appendingPathComponent("phone.forager.json"))
    for fraction in [0.99, 0.9, 0.5] {
      let lines = try Data(contentsOf: journal)
      let cut = Int(Double(lines.count) * fraction)
      try lines.prefix(cut).write(to: journal)
      let edit = "After a cut at \(cut)"
      _ = try replicas[0].getOrCreateCategory(displayName: edit)
      try round()
      try round()
      for device in names.indices.dropFirst() {
        #expect(replicas[device].category(named: edit) != nil, "\(names[device]), cut at \(cut)")
      }
    }
    #expect(replicas[1].state == replicas[0].state && replicas[2].state == replicas[0].state)
  }

  /// A peer's journal larger than twice what its publisher lets it grow to is not read (it
  /// would cost more than the snapshot it follows): the snapshot is merged and the journal
  /// named as too large, so a peer costs its snapshot and at most half as much again.
  @Test func aPeerJournalPastItsBoundIsNotRead() throws {
    let root = TemporaryFolder()
    let (phoneFolder, tabletFolder) = try Self.phoneAndTabletFolders(in: root)
    var (phone, tablet) = Self.phoneAndTabletReplicas()
    var phoneProgress = FolderProgress()
    var tabletProgress = FolderProgress()
    _ = try phone.getOrCreateCategory(displayName: "Produce")
    _ = try phoneFolder.sync(&phone, progress: &phoneProgress)
    let snapshot = root.url.appendingPathComponent("phone.forager.json")
    let journal = ReplicaJournal.url(of: snapshot)
    let snapshotLength = try Data(contentsOf: snapshot).count
    let bound = 2 * JournalCompaction.default.limit(snapshotLength: snapshotLength)
    try Data(repeating: UInt8(ascii: "x"), count: bound + 1).write(to: journal)
    let read = try tabletFolder.sync(&tablet, progress: &tabletProgress)
    #expect(read.merged.contains("phone.forager.json") && tablet.category(named: "Produce") != nil)
    guard case .tooLarge(let size, let limit)? = read.damagedJournals.first?.problem else {
      Issue.record("the journal was read: \(read)")
      return
    }
    #expect(size == bound + 1 && limit == bound)
  }

  /// A FIFO or a folder at a device's own names in the folder. A FIFO is replaced (the
  /// snapshot lands by rename, the journal is removed); a folder at the snapshot's name stops
  /// that device's publication with a message that says what to remove, and its peers go on
  /// syncing with each other, that entry skipped with its reason.
  @Test func aFIFOOrAFolderAtADevicesNamesIsReplacedOrNamedWithoutStoppingPeers() throws {
    for name in ["phone.forager.json", "phone.forager.json.journal"] {
      let root = TemporaryFolder()
      let (phoneFolder, tabletFolder) = try Self.phoneAndTabletFolders(in: root)
      let laptopFolder = SyncFolder(
        url: root.url, device: "laptop", coordination: FileCoordination.none)
      var phone = HouseholdReplica.create(owner: MemberID(), ownerName: "Sam", replica: "p1")
      var tablet = HouseholdReplica(joining: phone.householdID, member: MemberID(), replica: "t1")
      var laptop = HouseholdReplica(joining: phone.householdID, member: MemberID(), replica: "l1")
      let entry = root.url.appendingPathComponent(name)
      #expect(mkfifo(entry.path, 0o600) == 0)
      _ = try phone.getOrCreateCategory(displayName: "Produce")
      _ = try phoneFolder.sync(&phone)
      _ = try tabletFolder.sync(&tablet)
      #expect(tablet.category(named: "Produce") != nil, "a FIFO at \(name) was replaced")

      try FileManager.default.removeItem(at: entry)
      try FileManager.default.createDirectory(at: entry, withIntermediateDirectories: false)
      _ = try laptop.getOrCreateCategory(displayName: "Dairy")
      if name == "phone.forager.json" {
        #expect {
          _ = try phoneFolder.sync(&phone)
        } throws: { error in
          "\(error)".contains("is a folder, where this file belongs: remove it")
        }
      } else {
        #expect {
          _ = try phoneFolder.sync(&phone)
        } throws: { error in
          "\(error)".contains("is a folder, where this device's journal belongs: remove it")
        }
      }
      _ = try laptopFolder.sync(&laptop)
      let synced = try tabletFolder.sync(&tablet)
      #expect(synced.merged.contains("laptop.forager.json"), "\(name): \(synced)")
      #expect(tablet.category(named: "Dairy") != nil, "\(name)")
    }
  }

  /// A peer that relaunched wrote a new snapshot (with an edit it never published as a line)
  /// and a new journal whose first line is as long as the old one, so that where the reader
  /// stopped is still the start of a line. Only the first line's incarnation and sequence tell
  /// the journals apart: the reader must read the new snapshot, not the new journal's tail.
  @Test func aNewSnapshotIsReadWholeEvenWhenItsJournalLinesUpWithTheOld() throws {
    let root = TemporaryFolder()
    let (phoneFolder, tabletFolder) = try Self.phoneAndTabletFolders(in: root)
    let owner = MemberID()
    var phone = HouseholdReplica.create(
      owner: owner, ownerName: "Sam", replica: "phone-1", wallClock: .fixed(5_000))
    var tablet = HouseholdReplica(
      joining: phone.householdID, member: MemberID(), replica: "tab-1", wallClock: .fixed(5_000))
    var phoneProgress = FolderProgress()
    var tabletProgress = FolderProgress()
    let journal = ReplicaJournal.url(of: root.url.appendingPathComponent("phone.forager.json"))
    _ = try phoneFolder.sync(&phone, progress: &phoneProgress)
    _ = try tabletFolder.sync(&tablet, progress: &tabletProgress)
    let oldJournal = try Data(contentsOf: journal)

    _ = try phone.getOrCreateCategory(displayName: "Offline")  // saved, never published
    var relaunched = HouseholdReplica(
      state: phone.state, member: owner,
      clock: HybridClock(replica: "phone-2", wallClock: .fixed(5_000)))
    var relaunchedProgress = FolderProgress()
    _ = try phoneFolder.sync(&relaunched, progress: &relaunchedProgress)
    _ = try relaunched.getOrCreateCategory(displayName: "After")
    _ = try phoneFolder.sync(&relaunched, progress: &relaunchedProgress)
    let newJournal = try Data(contentsOf: journal)
    try #require(
      newJournal.count > oldJournal.count && newJournal[oldJournal.count - 1] == 0x0A,
      "the scenario needs the new journal to have a line start where the old one ended")

    let read = try tabletFolder.sync(&tablet, progress: &tabletProgress)
    #expect(read.readWhole.contains("phone.forager.json"))
    #expect(tablet.category(named: "Offline") != nil && tablet.category(named: "After") != nil)
  }

  /// A link a peer leaves at a device's snapshot name after the device published: the device's
  /// next publication writes a snapshot over it rather than a line beside it, so that a peer
  /// that reads the device whole (one that joins, or relaunches) is not held off until some
  /// later snapshot. The file the link names stays as it was. Found by the simulator (seed 30
  /// of `HostileSimulationTests.aFolderUnderHeavyHostilityConverges`).
  @Test func aLinkAtTheSnapshotsNameAfterAPublicationIsReplacedByTheNextOne() throws {
    let root = TemporaryFolder()
    var devices = try PhoneAndTablet(in: root)
    try devices.syncPhone()
    try devices.syncTablet()
    let outside = root.file("precious.txt")
    let precious = Data("the syncing user's file\n".utf8)
    try precious.write(to: outside)
    let snapshot = root.url.appendingPathComponent("phone.forager.json")
    try FileManager.default.removeItem(at: snapshot)
    try FileManager.default.createSymbolicLink(at: snapshot, withDestinationURL: outside)

    _ = try devices.phone.getOrCreateCategory(displayName: "After the link")
    let published = try devices.syncPhone().published
    #expect(published == .snapshot)
    #expect(try Data(contentsOf: outside) == precious)
    var laptop = HouseholdReplica(
      joining: devices.phone.householdID, member: MemberID(), replica: "lap-1")
    let laptopFolder = SyncFolder(
      url: root.url, device: "laptop", coordination: FileCoordination.none)
    _ = try laptopFolder.sync(&laptop)
    try devices.syncTablet()
    #expect(laptop.category(named: "After the link") != nil)
    #expect(devices.tablet.category(named: "After the link") != nil)
  }

  /// A publication that a disk fault stops leaves the next to start over with a snapshot,
  /// which must not carry the incarnation and sequence of the snapshot before: a peer that read
  /// that one would take the new journal for the old one's and read none of it. Found by the
  /// simulator (seed 10 of `HostileSimulationTests.aFolderUnderHeavyHostilityConverges`).
  @Test func aSnapshotWrittenAgainAfterAFailedPublicationIsReadAsNew() throws {
    let root = TemporaryFolder()
    var devices = try PhoneAndTablet(in: root)
    try devices.syncPhone()
    try devices.syncTablet()

    _ = try devices.phone.getOrCreateCategory(displayName: "Published on the second try")
    devices.phoneProgress.faults = FileFaults([.write(stoppingAfter: 10)])
    let failed = Result { () throws(SyncFolderError) in
      try devices.syncPhone()
    }
    guard case .failure(.publishFailed) = failed else {
      Issue.record("the disk fault should have stopped the publication: \(failed)")
      return
    }
    let published = try devices.syncPhone().published
    #expect(published == .snapshot)
    let read = try devices.syncTablet()
    #expect(read.readWhole.contains("phone.forager.json"))
    #expect(devices.tablet.category(named: "Published on the second try") != nil)
  }

  /// The same through a store, whose sync writes off its actor on a copy of its progress: the
  /// copy a failed write moved comes back too.
  @Test func aStoresSnapshotWrittenAgainAfterAFailedPublicationIsReadAsNew() async throws {
    let root = TemporaryFolder()
    let (_, phone, tablet, phoneFolder, tabletFolder) = try await Self.phoneAndTabletStores(
      in: root)
    _ = try await phone.sync(through: phoneFolder)
    _ = try await tablet.sync(through: tabletFolder)

    try await phone.edit { _ = try $0.getOrCreateCategory(displayName: "Published Later") }
    await phone.injectFolderFaults(FileFaults([.write(stoppingAfter: 10)]), in: phoneFolder)
    await #expect(throws: SyncFolderError.self) { try await phone.sync(through: phoneFolder) }
    #expect(try await phone.sync(through: phoneFolder).published == .snapshot)
    let read = try await tablet.sync(through: tabletFolder)
    #expect(read.readWhole.contains(phoneFolder.ownFileName))
    #expect(await tablet.replica.category(named: "Published Later") != nil)
  }
}
