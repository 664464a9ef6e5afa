import ForagerSync
import ForagerTestSupport
import Foundation
import SemanticCRDT
import Testing

/// A line of a replica's own journal is bytes on a disk that other programs write too: it
/// passes the checks a peer's state meets. A line forged to remove the household is refused
/// on open, where it once wiped the household while `verify` called the file sound; a large
/// deletion this device made still reopens, written as a snapshot.
@Suite struct OwnJournalCheckTests {
  /// A household of `count` categories, saved as a snapshot, and its store.
  static func household(_ folder: TemporaryFolder, categories count: Int) throws -> (
    file: URL, store: ReplicaStore, replica: HouseholdReplica
  ) {
    let file = folder.file("phone.json")
    var (store, replica) = try JournalTests.opened(file)
    for index in 0..<count { _ = try replica.getOrCreateCategory(displayName: "Aisle \(index)") }
    _ = replica.takeLocalDelta()
    try store.save(replica)
    return (file, store, replica)
  }

  @Test func aLineThatRemovesTheHouseholdIsRefusedAndNothingChanges() throws {
    let folder = TemporaryFolder()
    let (file, store, replica) = try Self.household(folder, categories: 20)
    // Every category removed: what the line's context has seen and its entries lack.
    var forged = replica.state
    for key in forged.categories.keys { forged.categories.remove(key) }
    let line = ReplicaJournal.encode(
      JournalEntry(sequence: 1, replica: replica.replicaID, clock: nil, delta: forged))
    try Data(line).write(to: store.journalURL)
    let (snapshotBefore, journalBefore) = (
      try Data(contentsOf: file), try Data(contentsOf: store.journalURL)
    )
    JournalTests.expectOpening(file, refusedNaming: store.journalURL) { problem in
      guard case .refusedLine(sequence: 1, .massRemoval(removed: 20, live: _)) = problem else {
        return false
      }
      return true
    }
    #expect(try Data(contentsOf: file) == snapshotBefore)
    #expect(try Data(contentsOf: store.journalURL) == journalBefore)
  }

  @Test func aLargeDeletionOfThisDeviceIsSavedAsASnapshotAndReopens() throws {
    let folder = TemporaryFolder()
    let household = try Self.household(folder, categories: 4)
    let file = household.file
    var (store, replica) = (household.store, household.replica)
    let list = try replica.createWeeklyList(name: "Party").id
    for index in 0..<30 { _ = try replica.addItem("thing \(index)", to: list) }
    _ = replica.takeLocalDelta()
    try store.save(replica)
    // Deleting the list removes its 30 items too: more than half the household.
    try replica.deleteWeeklyList(list)
    let taken = replica.takeLocalDelta()
    let change = try #require(taken)
    #expect(try store.append(change, of: replica) == .snapshot)
    let (_, reopened) = try JournalTests.opened(file)
    #expect(reopened.state.lists.isEmpty && reopened.state.items.isEmpty)
    #expect(reopened.state == replica.state)
    // A small deletion is still a line, replayed on open.
    _ = try replica.getOrCreateCategory(displayName: "Frozen")
    try replica.deleteCategory(try #require(replica.category(named: "Aisle 0")).key)
    let takenSmall = replica.takeLocalDelta()
    let small = try #require(takenSmall)
    #expect(try store.append(small, of: replica) == .line)
    #expect(try JournalTests.opened(file).1.state == replica.state)
  }
}
