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

/// A write can fail at any byte: a full disk, a file-size limit, an I/O error. Whatever the
/// failure, the files open with every edit acknowledged before it, and the next save repairs
/// or replaces the fragment. Driven through the file layer's fault seam (``FileFaults``).
@Suite struct FileFaultTests {
  static let acknowledged = ["Produce", "Dairy", "Bakery"]

  /// The names the replica at `file` opens with.
  static func namesOpened(_ file: URL) throws -> Set<String> {
    Set(try JournalTests.opened(file).1.categories().map(\.displayName))
  }

  /// One fault met by the append of edit "Failed": the append reports it; the files open with
  /// the acknowledged edits; the next append (of "Failed" and "Next" together, as a store puts
  /// back what a failed save took) succeeds and the files open with all of them.
  /// - Returns: Whether the fault was met (a write fault past the line's end is not).
  static func appendMeets(_ fault: FileFaults.Fault) throws -> Bool {
    let folder = TemporaryFolder()
    var (file, store, replica) = try JournalTests.journaled(in: folder, names: acknowledged)
    store.faults = FileFaults([fault])
    _ = try replica.getOrCreateCategory(displayName: "Failed")
    let failedChange = replica.takeLocalDelta()!
    do {
      try store.append(failedChange, of: replica)
      #expect(store.faults.pending.isEmpty, "\(fault) was neither met nor used up")
      return false
    } catch {
      #expect(error.file == store.journalURL, "\(fault)")
      guard case .writeFailed = error.problem else {
        Issue.record("\(fault): \(error)")
        return true
      }
    }
    let afterFault = try namesOpened(file)
    #expect(
      afterFault.isSuperset(of: acknowledged) && afterFault.isSubset(of: acknowledged + ["Failed"]),
      "\(fault): \(afterFault.sorted())")
    _ = try replica.getOrCreateCategory(displayName: "Next")
    var change = failedChange
    change.merge(replica.takeLocalDelta()!)
    try store.append(change, of: replica)
    #expect(
      try namesOpened(file) == Set(acknowledged + ["Failed", "Next"]),
      "\(fault): the next save did not repair the journal")
    return true
  }

  /// Every byte of a line: the write stops after 0, 1, …, length − 1 bytes of it.
  @Test func anAppendThatStopsAtAnyByteLosesNothingAcknowledged() throws {
    var met = 0
    while try Self.appendMeets(.write(stoppingAfter: met)) {
      met += 1
      try #require(met < 1 << 16, "a line of a few hundred bytes never completed")
    }
    #expect(met > 100, "the sweep covered a whole line of \(met) bytes")
    for code in [ENOSPC, EFBIG, EIO] {
      #expect(try Self.appendMeets(.write(stoppingAfter: met / 2, code: code)))
    }
  }

  @Test func anAppendWhoseFlushFailsLosesNothingAcknowledged() throws {
    #expect(try Self.appendMeets(.flush()))
  }

  /// A snapshot (a compaction) that fails: the temporary file stops at a byte, its flush
  /// fails, the rename fails, the folder's flush or the journal's emptying fails. The files
  /// open with every acknowledged edit, and the next save writes a snapshot that opens.
  @Test func aSnapshotThatFailsAnywhereLosesNothingAcknowledged() throws {
    let length = try {
      let folder = TemporaryFolder()
      let (file, _, _) = try JournalTests.journaled(in: folder, names: Self.acknowledged)
      return try Data(contentsOf: file).count
    }()
    var faults: [FileFaults.Fault] = [0, 1, length / 2, length - 1].map {
      .write(stoppingAfter: $0)
    }
    // The temporary file's flush, the folder's after the rename, the emptied journal's.
    faults += (0...2).map { .flush(passing: $0) } + [.rename()]
    for fault in faults {
      let folder = TemporaryFolder()
      var (file, store, replica) = try JournalTests.journaled(in: folder, names: Self.acknowledged)
      let before = try Data(contentsOf: file)
      store.faults = FileFaults([fault])
      _ = try replica.getOrCreateCategory(displayName: "Failed")
      var change = replica.takeLocalDelta()!
      #expect(throws: StoreError.self, "\(fault)") { try store.save(replica) }
      let opened = try Self.namesOpened(file)
      #expect(opened.isSuperset(of: Self.acknowledged), "\(fault): \(opened.sorted())")
      if case .write = fault { #expect(try Data(contentsOf: file) == before, "\(fault)") }
      if case .rename = fault { #expect(try Data(contentsOf: file) == before, "\(fault)") }
      _ = try replica.getOrCreateCategory(displayName: "Next")
      // What the failed save took is saved with the next change, as an app's store does.
      change.merge(replica.takeLocalDelta()!)
      try store.append(change, of: replica)
      #expect(
        try Self.namesOpened(file) == Set(Self.acknowledged + ["Failed", "Next"]), "\(fault)")
      let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        .filter { $0.hasSuffix(".tmp") }
      #expect(leftovers.isEmpty, "\(fault): \(leftovers)")
    }
  }

  /// The same through the app's store: a flush that meets a fault reports it, a relaunch opens
  /// every edit flushed before, and the next flush writes everything.
  @Test func anAppsStoreReportsAFailedSaveAndTheNextRepairsIt() async throws {
    let faults: [FileFaults.Fault] = [
      .write(stoppingAfter: 0), .write(stoppingAfter: 1), .write(stoppingAfter: 120),
      .write(stoppingAfter: 120, code: EIO), .flush(),
    ]
    for fault in faults {
      let folder = TemporaryFolder()
      let file = folder.file("household.json")
      var household: HouseholdID
      do {
        let store = try await HouseholdStore(
          fileURL: file, firstLaunch: .createHousehold(ownerName: "Sam"))
        household = store.householdID
        for name in Self.acknowledged {
          try await store.edit { _ = try $0.getOrCreateCategory(displayName: name) }
        }
        try await store.flush()
        await store.injectFileFaults(FileFaults([fault]))
        try await store.edit { _ = try $0.getOrCreateCategory(displayName: "Failed") }
        await #expect(throws: StoreError.self, "\(fault)") { try await store.flush() }
        let failure = await store.lastSaveError
        let unsaved = await store.hasUnsavedChanges
        #expect(failure != nil && unsaved, "\(fault)")
        try await store.edit { _ = try $0.getOrCreateCategory(displayName: "Next") }
        try await store.flush()
        #expect(await store.lastSaveError == nil)
      }
      let relaunched = try await HouseholdStore(
        fileURL: file, firstLaunch: .join(household, member: MemberID()))
      let names = Set(await relaunched.replica.categories().map(\.displayName))
      #expect(names.isSuperset(of: Self.acknowledged + ["Failed", "Next"]), "\(fault)")
    }
  }

  /// A journal sequence at the bound: the next change is saved as a snapshot, never as a line
  /// numbered past the bound, and the replica still opens.
  @Test func aJournalSequenceAtTheBoundIsFollowedByASnapshot() throws {
    let folder = TemporaryFolder()
    var (file, store, replica) = try JournalTests.journaled(
      in: folder, names: ["Produce", "Dairy"])
    var lines = try Data(contentsOf: store.journalURL)
    let entry = try #require(try store.readJournal()?.entries.last)
    let atBound = JournalEntry(
      sequence: ReplicaJournal.maximumSequence, replica: entry.replica, clock: entry.clock,
      delta: entry.delta)
    lines.append(contentsOf: ReplicaJournal.encode(atBound))
    try lines.write(to: store.journalURL)
    (store, replica) = try JournalTests.opened(file)
    _ = try replica.getOrCreateCategory(displayName: "Past the bound")
    let change = replica.takeLocalDelta()!
    #expect(try store.append(change, of: replica) == .snapshot)
    #expect(try Self.namesOpened(file).contains("Past the bound"))
    _ = try replica.getOrCreateCategory(displayName: "Again")
    let again = replica.takeLocalDelta()!
    try store.append(again, of: replica)
    #expect(try Self.namesOpened(file).contains("Again"))
  }
}
