import ForagerSync
import ForagerTestSupport
import Foundation
import Testing

@testable import ForagerPersistence

/// Each write is flushed as far as what it risks asks (ADR 0033): a snapshot, which replaces
/// what it compacts, and the folder entry naming it reach the medium; a journal's appends are
/// ordered, so that a power loss costs the last lines and never one without those before it.
@Suite struct DurabilityTests {
  @Test func eachDurabilityMakesItsCallOnEachPlatform() {
    #expect(FileIO.flushCall(for: .full, isApple: true) == .fullSync)
    #expect(FileIO.flushCall(for: .ordered, isApple: true) == .barrierSync)
    // Linux is unchanged: fsync reaches the medium there.
    #expect(FileIO.flushCall(for: .full, isApple: false) == .fsync)
    #expect(FileIO.flushCall(for: .ordered, isApple: false) == .fsync)
  }

  @Test func snapshotsAreFlushedFullyAndAppendsInOrder() throws {
    let folder = TemporaryFolder()
    var store = ReplicaStore(fileURL: folder.file("household.json"))
    var replica = try store.open(household: HouseholdID(), member: MemberID())
    store.faults.flushes = []
    try store.save(replica)
    let snapshot = try #require(store.faults.flushes)
    // The snapshot's file and its folder entry, both to the medium, before anything else.
    #expect(Array(snapshot.prefix(2)) == [.full, .full], "\(snapshot)")

    for name in ["Produce", "Dairy", "Bakery"] {
      store.faults.flushes = []
      _ = try replica.getOrCreateCategory(displayName: name)
      let change = replica.takeLocalDelta()
      #expect(try store.append(#require(change), of: replica) == .line)
      let append = try #require(store.faults.flushes)
      #expect(!append.isEmpty && append.allSatisfy { $0 == .ordered }, "\(name): \(append)")
    }
  }
}
