import CRDTTestSupport
import ForagerSync
import ForagerTestSupport
import Foundation
import SemanticCRDT
import SemanticCRDTJSON
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The journal beside the snapshot: what an append writes, what opening replays, what a torn,
/// damaged, forged or newer line does, and when a save compacts.
@Suite struct JournalTests {
  static let household = RandomHousehold.household
  static let member = RandomHousehold.owner

  /// A store of `file` that opened it (a first launch when there is none), with the replica.
  static func opened(_ file: URL, compaction: JournalCompaction = .default) throws -> (
    ReplicaStore, HouseholdReplica
  ) {
    var store = ReplicaStore(fileURL: file, compaction: compaction)
    let replica = try store.open(household: household, member: member)
    return (store, replica)
  }

  /// Adds category `name` and appends the edit's delta.
  @discardableResult
  static func add(
    _ name: String, to replica: inout HouseholdReplica, in store: inout ReplicaStore
  ) throws -> JournalWrite {
    _ = try replica.getOrCreateCategory(displayName: name)
    let taken = replica.takeLocalDelta()
    let change = try #require(taken)
    return try store.append(change, of: replica)
  }

  /// A store of `folder`'s "phone.json" that added `names`: the first in its snapshot, each
  /// other as a journal line, numbered from 1.
  static func journaled(
    in folder: TemporaryFolder, names: [String] = ["Produce", "Dairy", "Bakery"]
  ) throws -> (file: URL, store: ReplicaStore, replica: HouseholdReplica) {
    let file = folder.file("phone.json")
    var (store, replica) = try opened(file)
    for name in names { try add(name, to: &replica, in: &store) }
    return (file, store, replica)
  }

  /// Writes `lines` as `store`'s journal, each ending in a newline.
  static func write(_ lines: [String], asJournalOf store: ReplicaStore) throws {
    try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: store.journalURL)
  }

  /// Expects opening `file` to throw a `StoreError` naming `named`, whose problem `matches`.
  static func expectOpening(
    _ file: URL, refusedNaming named: URL, where matches: (StoreError.Problem) -> Bool
  ) {
    #expect {
      _ = try opened(file)
    } throws: { error in
      guard let error = error as? StoreError, error.file == named else { return false }
      return matches(error.problem)
    }
  }

  static func lines(of file: URL) throws -> [Substring] {
    let data = try Data(contentsOf: ReplicaJournal.url(of: file))
    return String(decoding: data, as: UTF8.self).split(
      separator: "\n", omittingEmptySubsequences: false)
  }

  // MARK: Appending and replaying

  @Test func anAppendWritesOneLineAndAReopenReplaysIt() throws {
    let folder = TemporaryFolder()
    let file = folder.file("phone.json")
    var (store, replica) = try Self.opened(file)
    #expect(try Self.add("Produce", to: &replica, in: &store) == .snapshot, "no snapshot yet")
    let snapshot = try Data(contentsOf: file)
    for name in ["Dairy", "Bakery", "Frozen"] {
      #expect(try Self.add(name, to: &replica, in: &store) == .line)
    }
    #expect(try Data(contentsOf: file) == snapshot, "an append rewrote the snapshot")
    let lines = try Self.lines(of: file)
    #expect(lines.count == 4 && lines.last == "", "three lines, each ending in a newline")
    #expect(
      lines.dropLast().allSatisfy {
        $0.hasPrefix(#"{"format":\#(ReplicaJournal.current),"checksum":"crc32:"#)
      })
    #expect(store.journalLength == (try Data(contentsOf: store.journalURL)).count)

    let (_, reopened) = try Self.opened(file)
    #expect(reopened.state == replica.state)
    #expect(reopened.clock.latest.map(\.wallMilliseconds) == replica.clock.latest?.wallMilliseconds)
  }

  /// What one edit appends does not grow with the household: an edit of a household of 2,000
  /// records writes a line a few kilobytes long, not the 800 KB snapshot.
  @Test func aLineHoldsTheChangeNotTheHousehold() throws {
    let folder = TemporaryFolder()
    let file = folder.file("phone.json")
    var (store, replica) = try Self.opened(file)
    for index in 0..<2_000 { _ = try replica.getOrCreateCategory(displayName: "Aisle \(index)") }
    _ = replica.takeLocalDelta()
    try store.save(replica)
    let snapshot = try Data(contentsOf: file).count
    try replica.renameCategory(CategoryKey(normalizing: "Aisle 7"), to: "Spices")
    let taken = replica.takeLocalDelta()
    let change = try #require(taken)
    try store.append(change, of: replica)
    let line = try Data(contentsOf: store.journalURL).count
    #expect(snapshot > 500_000)
    #expect(line < 4_000, "a rename appended \(line) bytes")
    let (_, reopened) = try Self.opened(file)
    #expect(reopened.state == replica.state)
  }

  @Test func aTornLastLineIsDroppedAndCutBeforeTheNextAppend() throws {
    let folder = TemporaryFolder()
    let (file, store, replica) = try Self.journaled(in: folder, names: ["Produce", "Dairy"])
    let acknowledged = replica.state
    // A save killed in the middle of its write: part of a line, no newline.
    var torn = replica
    _ = try torn.getOrCreateCategory(displayName: "Bakery")
    let line = ReplicaJournal.encode(
      JournalEntry(sequence: 99, replica: torn.replicaID, clock: nil, delta: torn.takeLocalDelta()!)
    )
    let handle = try FileHandle(forWritingTo: store.journalURL)
    try handle.seekToEnd()
    try handle.write(contentsOf: line.prefix(line.count / 2))
    try handle.close()

    let contents = try #require(try store.readJournal())
    #expect(contents.droppedTornLine && contents.entries.count == 1)
    var (reopenedStore, reopened) = try Self.opened(file)
    #expect(reopened.state == acknowledged)
    try Self.add("Frozen", to: &reopened, in: &reopenedStore)
    let after = try #require(try reopenedStore.readJournal())
    #expect(!after.droppedTornLine && after.entries.count == 2, "the torn part was not cut")
    #expect(try Self.opened(file).1.state == reopened.state)
  }

  // MARK: Compaction

  @Test func anAppendPastTheLimitCompactsAndTheJournalStaysBounded() throws {
    let folder = TemporaryFolder()
    let file = folder.file("phone.json")
    let compaction = JournalCompaction(fractionOfSnapshot: 0, minimumBytes: 6_000)
    var (store, replica) = try Self.opened(file, compaction: compaction)
    var writes: [JournalWrite] = []
    for index in 0..<60 {
      writes.append(try Self.add("Aisle \(index)", to: &replica, in: &store))
      #expect(store.journalLength <= 6_000)
    }
    #expect(writes.filter { $0 == .snapshot }.count >= 3, "\(writes)")
    #expect(writes.filter { $0 == .line }.count >= 30, "\(writes)")
    let snapshot = try #require(try store.read())
    #expect(snapshot.format == ReplicaFileFormat.current)
    let journal = try #require(try store.readJournal())
    #expect(journal.entries.first.map { $0.sequence == snapshot.journalSequence + 1 } ?? true)
    #expect(try Self.opened(file).1.state == replica.state)
  }

  /// A compaction killed between writing the snapshot and emptying the journal leaves entries
  /// the snapshot holds: opening skips them by sequence (replaying them would be a join of what
  /// the state holds already), gives the same household, and numbers the next entry after
  /// them, so the journal stays in order.
  @Test func entriesTheSnapshotHoldsAreSkipped() throws {
    let folder = TemporaryFolder()
    var (file, store, replica) = try Self.journaled(in: folder, names: ["Produce", "Dairy"])
    let journal = try Data(contentsOf: store.journalURL)
    try store.save(replica)
    #expect(try Data(contentsOf: store.journalURL).isEmpty)
    try journal.write(to: store.journalURL)
    #expect(try #require(try store.read()).journalSequence == 1)
    var (reopenedStore, reopened) = try Self.opened(file)
    #expect(reopened.state == replica.state)
    try Self.add("Bakery", to: &reopened, in: &reopenedStore)
    #expect(try #require(try reopenedStore.readJournal()).entries.map(\.sequence) == [1, 2])
    #expect(try Self.opened(file).1.state == reopened.state)
  }

  // MARK: Formats

  /// A file written by a build that knew no journal opens, and the first save writes a
  /// snapshot of the current format: a build that reads only format 2 then refuses the file
  /// rather than miss the journal.
  @Test func aFormat2FileOpensAndTheFirstSaveMigratesIt() throws {
    let fixture = try #require(
      Bundle.module.url(
        forResource: "replica-format2", withExtension: "json", subdirectory: "Fixtures"))
    let expected = try FormatFixtures.state("seed11-state")
    let folder = TemporaryFolder()
    let file = folder.file("old.json")
    try FileManager.default.copyItem(at: fixture, to: file)
    var store = ReplicaStore(fileURL: file)
    let old = try #require(try store.read())
    #expect(old.format == 2 && old.journalSequence == 0)
    #expect(old.state == expected)
    var replica = try store.open(household: Self.household, member: old.member)
    #expect(try Self.add("Migrated", to: &replica, in: &store) == .snapshot)
    #expect(try #require(try store.read()).format == ReplicaFileFormat.current)
    #expect(try Self.add("Appended", to: &replica, in: &store) == .line)
    #expect(try Self.opened(file).1.state == replica.state)
  }

  // MARK: Hostile journals

  /// A damaged, forged or newer line (here the first of two) is refused with a typed
  /// error naming the journal, and opening changes neither file.
  @Test(arguments: [
    JournalDamage.flippedByte, .newerFormat, .unknownKey, .nullDelta, .outOfOrder,
    .otherHousehold, .farFuture, .garbage,
  ])
  func aBadLineIsRefusedAndNothingChanges(_ damage: JournalDamage) throws {
    let folder = TemporaryFolder()
    let (file, store, _) = try Self.journaled(in: folder)
    var lines = try Self.lines(of: file).dropLast().map(String.init)
    lines[0] = damage.apply(to: lines[0], household: Self.household)
    try Self.write(lines, asJournalOf: store)
    let (snapshotBefore, journalBefore) = (
      try Data(contentsOf: file), try Data(contentsOf: store.journalURL)
    )
    Self.expectOpening(file, refusedNaming: store.journalURL, where: damage.accepts)
    #expect(try Data(contentsOf: file) == snapshotBefore)
    #expect(try Data(contentsOf: store.journalURL) == journalBefore)
  }

  /// The last line, or the snapshot, numbered past the bound: refused, where a store that
  /// opened it trapped on its next save, numbering the next entry one higher. The journal's
  /// structure fuzzer found it once it aimed at the entry's own members (seed
  /// 7366651149468369290 with FORAGER_PROPERTY_ITERATIONS=90000).
  @Test(arguments: [UInt64.max, ReplicaJournal.maximumSequence + 1])
  func aSequencePastTheBoundIsRefused(_ sequence: UInt64) throws {
    let folder = TemporaryFolder()
    let (file, store, _) = try Self.journaled(in: folder)
    var lines = try Self.lines(of: file).dropLast().map(String.init)
    let journal = try Data(contentsOf: store.journalURL)
    lines[lines.count - 1] = JournalDamage.restamped(lines[lines.count - 1]) {
      $0.replacingFirst(#""sequence":2"#, #""sequence":\#(sequence)"#)
    }
    try Self.write(lines, asJournalOf: store)
    Self.expectOpening(file, refusedNaming: store.journalURL) {
      if case .invalidContent = $0 { true } else { false }
    }

    try journal.write(to: store.journalURL)
    let snapshot = try Data(contentsOf: file)
    let content = ReplicaFileBytes.content(of: Array(snapshot))
    let forged = String(decoding: content, as: UTF8.self)
      .replacingFirst(#""journal":0,"#, #""journal":\#(sequence),"#)
    try Data(ReplicaFileBytes.file(content: Array(forged.utf8))).write(to: file)
    Self.expectOpening(file, refusedNaming: file) {
      if case .invalidContent = $0 { true } else { false }
    }
  }

  /// A FIFO put where the journal goes, after the store opened: the next save and the next
  /// compaction fail with an error instead of waiting forever for a reader. (Ten minutes, not
  /// one: see `HostileFileTests.aFIFOIsRefusedWithoutBlocking`.)
  /// A FIFO, a link or a folder at the journal's name: an append never blocks and never
  /// writes through it. The FIFO and the link are replaced by a snapshot (the link's target
  /// is untouched); a folder is refused with a reason that says to remove it.
  @Test(.timeLimit(.minutes(10))) func whatIsNotTheJournalIsReplacedOrRefusedWithoutBlocking()
    throws
  {
    for intruder in ["fifo", "link", "folder"] {
      let folder = TemporaryFolder()
      var (file, store, replica) = try Self.journaled(in: folder)
      try FileManager.default.removeItem(at: store.journalURL)
      let outside = folder.file("outside.txt")
      try Data("keep me".utf8).write(to: outside)
      switch intruder {
      case "fifo": #expect(mkfifo(store.journalURL.path, 0o600) == 0)
      case "link":
        try FileManager.default.createSymbolicLink(
          at: store.journalURL, withDestinationURL: outside)
      default:
        try FileManager.default.createDirectory(
          at: store.journalURL, withIntermediateDirectories: false)
      }
      _ = try replica.getOrCreateCategory(displayName: "Frozen")
      let taken = replica.takeLocalDelta()
      let change = try #require(taken)
      if intruder == "folder" {
        #expect {
          _ = try store.append(change, of: replica)
        } throws: { error in
          (error as? StoreError)?.file == store.journalURL
            && "\(error)".contains("is a folder, where this device's journal belongs: remove it")
        }
        continue
      }
      #expect(try store.append(change, of: replica) == .snapshot, "\(intruder)")
      #expect(try Data(contentsOf: outside) == Data("keep me".utf8), "\(intruder)")
      #expect(try Self.opened(file).1.category(named: "Frozen") != nil, "\(intruder)")
      _ = try replica.getOrCreateCategory(displayName: "After")
      let takenAfter = replica.takeLocalDelta()
      let after = try #require(takenAfter)
      #expect(try store.append(after, of: replica) == .line)
      #expect(try Self.opened(file).1.category(named: "After") != nil, "\(intruder)")
    }
  }

  @Test func aJournalWithoutItsSnapshotIsRefused() throws {
    let folder = TemporaryFolder()
    let (file, store, _) = try Self.journaled(in: folder)
    try FileManager.default.removeItem(at: file)
    #expect(throws: StoreError(file: store.journalURL, problem: .journalWithoutSnapshot)) {
      _ = try Self.opened(file)
    }
  }
}

/// One way to break the first line of a journal.
enum JournalDamage: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case flippedByte, newerFormat, unknownKey, nullDelta, outOfOrder, otherHousehold, farFuture
  case garbage

  var testDescription: String { rawValue }

  func apply(to line: String, household: HouseholdID) -> String {
    switch self {
    case .flippedByte: return line.replacingOccurrences(of: "Dairy", with: "Dairx")
    case .newerFormat:
      return line.replacingOccurrences(
        of: #"{"format":\#(ReplicaJournal.current),"#,
        with: #"{"format":\#(ReplicaJournal.current + 1),"#)
    case .unknownKey:
      return line.replacingOccurrences(
        of: #"{"format":\#(ReplicaJournal.current),"#,
        with: #"{"format":\#(ReplicaJournal.current),"x":0,"#)
    case .nullDelta:
      return Self.restamped(line) { $0.replacingFirst(#""delta":{"#, #""delta":null,"x":{"#) }
    case .outOfOrder:
      return Self.restamped(line) { $0.replacingFirst(#""sequence":1"#, #""sequence":9"#) }
    case .otherHousehold:
      let other = HouseholdID(uuid: UUID(uuidString: "0BADF00D-0000-4000-8000-000000000001")!)
      return Self.restamped(line) {
        $0.replacingOccurrences(of: household.description, with: other.description)
      }
    case .farFuture:
      // Nine centuries ahead of the device's clock.
      return Self.restamped(line) { $0.replacingFirst(#""clock":["#, #""clock":[9"#) }
    case .garbage: return "not json at all"
    }
  }

  func accepts(_ problem: StoreError.Problem) -> Bool {
    switch (self, problem) {
    case (.flippedByte, .checksumMismatch), (.unknownKey, .malformed), (.garbage, .malformed),
      (.nullDelta, .invalidContent), (.outOfOrder, .invalidContent),
      (.otherHousehold, .differentHousehold), (.farFuture, .clockSkew):
      return true
    case (.newerFormat, .newerFormat(let found, let supported)):
      return found == ReplicaJournal.current + 1 && supported == ReplicaJournal.current
    default: return false
    }
  }

  /// The line with its entry changed by `edit` under a checksum that matches: a forgery, or a
  /// build with a bug, rather than damage.
  static func restamped(_ line: String, _ edit: (String) -> String) -> String {
    let entry = edit(String(decoding: JournalLineBytes.entry(of: Array(line.utf8)), as: UTF8.self))
    return String(decoding: JournalLineBytes.line(entry: Array(entry.utf8)), as: UTF8.self)
  }
}

extension String {
  fileprivate func replacingFirst(_ target: String, _ replacement: String) -> String {
    guard let range = range(of: target) else { preconditionFailure("\(target) not in \(self)") }
    return replacingCharacters(in: range, with: replacement)
  }
}
