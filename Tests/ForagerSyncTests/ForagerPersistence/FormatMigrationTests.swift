import ForagerSync
import ForagerTestSupport
import Foundation
import SemanticCRDT
import SemanticCRDTJSON
import Testing

@testable import ForagerPersistence

/// The golden files of Fixtures/format3, written by the last build of replica-file format 3
/// (commit 55cef6f) through its public API: a replica file with a journal of three lines, two
/// sync messages of format 2 (a full state and a delta), and, for each, the household state
/// that build held, in its encoding. A throwaway test of that build wrote them; they are never
/// regenerated, since no build of this one can write format 3.
enum FormatFixtures {
  static func url(_ name: String) throws -> URL {
    let base = try #require(
      Bundle.module.url(forResource: "Fixtures", withExtension: nil), "the fixtures folder")
    return base.appendingPathComponent("format3").appendingPathComponent(name)
  }

  /// The household state in the file `name.json`.
  static func state(_ name: String) throws -> HouseholdState {
    try JSONReader.decode(
      HouseholdState.self, from: Array(try Data(contentsOf: url(name + ".json"))))
  }
}

@Suite struct FormatMigrationTests {
  /// A format-3 file and its journal open as that build left them; the first save writes a
  /// snapshot of the current format (so that a format-3 build refuses the file as newer rather
  /// than open the snapshot without the journal it cannot read), and the next save a line.
  @Test func aFormat3FileAndJournalOpenAndMigrate() throws {
    let folder = TemporaryFolder()
    let file = folder.file("phone.json")
    try FileManager.default.copyItem(at: FormatFixtures.url("replica-format3.json"), to: file)
    try FileManager.default.copyItem(
      at: FormatFixtures.url("replica-format3.json.journal"), to: ReplicaJournal.url(of: file))
    let expected = try FormatFixtures.state("replica-format3.state")
    var store = ReplicaStore(fileURL: file)
    let read = try #require(try store.read())
    #expect(read.format == 3)
    let old = try #require(expected.ingredients[IngredientKey(normalizing: "okra")])
    #expect(read.state.ingredients[old.key] == nil, "the journal holds the last edits")

    var replica = try store.open(household: expected.householdID, member: read.member)
    #expect(replica.state == expected)
    _ = try replica.getOrCreateCategory(displayName: "Migrated")
    var change = replica.takeLocalDelta()
    #expect(try store.append(#require(change), of: replica) == .snapshot)
    let migrated = try #require(try store.read())
    #expect(migrated.format == ReplicaFileFormat.current)
    #expect(try Data(contentsOf: store.journalURL).isEmpty)
    _ = try replica.getOrCreateCategory(displayName: "Appended")
    change = replica.takeLocalDelta()
    #expect(try store.append(#require(change), of: replica) == .line)
    let line = String(decoding: try Data(contentsOf: store.journalURL), as: UTF8.self)
    #expect(line.hasPrefix(#"{"format":\#(ReplicaJournal.current),"#))

    var reopened = ReplicaStore(fileURL: file)
    #expect(
      try reopened.open(household: expected.householdID, member: read.member).state
        == replica.state)
  }

  /// Messages of format 2 read as that build sent them: their states, merged, hold what the
  /// sender held, the late category the delta carried included.
  @Test func format2MessagesAreRead() throws {
    let full = try SyncMessage(
      decoding: Array(try Data(contentsOf: FormatFixtures.url("message-format2-full.gz"))))
    let delta = try SyncMessage(
      decoding: Array(try Data(contentsOf: FormatFixtures.url("message-format2-delta.gz"))))
    #expect(!full.isDelta && delta.isDelta)
    let sender = try FormatFixtures.state("message-format2.state")
    var received = try #require(full.state)
    received.merge(try #require(delta.state))
    #expect(received.isLessThanOrEqual(to: sender))
    #expect(received.categories[CategoryKey(normalizing: "Late")] != nil)
    #expect(
      SyncMessage.formatWithoutVersion == 3 && SyncMessage.formatWithVersion == 4
        && SyncMessage.currentFormat == 5)
  }
}
