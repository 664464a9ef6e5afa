import CRDTTestSupport
import ForagerSync
import ForagerTestSupport
import Foundation
import SemanticCRDT
import SharedSupport
import Testing

@testable import ForagerPersistence

/// Whatever a store takes in (its own edits, a peer's full states, deltas and sync messages,
/// deltas that claim this device's own writes), once ``HouseholdStore/flush()`` returns a
/// relaunch opens the household the store held: the store's promise that a crash loses at
/// most the changes not yet flushed. A seed replays the same operations; the store's clock and
/// incarnations are the system's, as in an app, so not the same ids.
@Suite struct StoreRelaunchPropertyTests {
  static let names = ["Produce", "produce ", "Café", "Dairy", "日本の食材", "Snacks", "Bakery"]

  @Test func aRelaunchAfterAFlushOpensTheHouseholdTheStoreHeld() async throws {
    for seed in 0..<UInt64(PropertyEnvironment.iterations(default: 30)) {
      try await Self.relaunchAfterRandomChanges(seed: 8_100 + seed)
    }
  }

  static func relaunchAfterRandomChanges(seed: UInt64) async throws {
    var random = SplitMix64(seed: seed)
    let folder = TemporaryFolder()
    let file = folder.file("phone.json")
    var store: HouseholdStore? = try await HouseholdStore(
      fileURL: file, firstLaunch: .createHousehold(ownerName: "Ana", owner: RandomHousehold.owner))
    let household = store!.householdID
    var peer = HouseholdReplica(joining: household, member: RandomHousehold.owner, replica: "peer")
    try peer.merge(await store!.replica.state)
    var peerSession = SyncSession()
    for _ in 0..<24 {
      switch random.int(in: 0..<6) {
      case 0:
        let operation = random.int(in: 0..<RandomHousehold.operationCount - 1)
        let name = random.pick(names)
        let edits = random.next()
        await store!.edit { replica in
          var random = SplitMix64(seed: edits)
          RandomHousehold.apply(
            operation: operation, name: name, random: &random, to: &replica, peers: [])
        }
      case 1:
        RandomHousehold.apply(
          operation: random.int(in: 0..<RandomHousehold.operationCount - 1),
          name: random.pick(names), random: &random, to: &peer, peers: [])
        // A full state, or the delta of the peer's edits since it last gave one.
        let sent = random.chance(0.5) ? peer.takeLocalDelta() ?? peer.state : peer.state
        _ = try? await store!.merge(sent)
      case 2:
        let message = peerSession.message(from: &peer)
        _ = try? await store!.receive(message, fromPeer: "peer")
        _ = try? peerSession.receive(await store!.syncMessage(forPeer: "peer"), into: &peer)
      case 3:
        // A delta that claims a write of the store's incarnation it never made.
        var claim = await store!.replica
        _ = claim.takeLocalDelta()
        let name = "Claimed \(random.int(in: 0..<1_000))"
        if let key = try? claim.getOrCreateCategory(displayName: name).category.key {
          try claim.deleteCategory(key)
          if let forged = claim.takeLocalDelta() { _ = try? await store!.merge(forged) }
        }
      case 4:
        _ = try? peer.merge(await store!.replica.state)
      default:
        try await store!.flush()
      }
    }
    try await store!.flush()
    let held = await store!.replica.state
    store = nil
    let relaunched = try await HouseholdStore(
      fileURL: file, firstLaunch: .join(household, member: RandomHousehold.owner))
    let opened = await relaunched.replica.state == held
    #expect(opened, "seed \(seed): the relaunch opened another household than the store held")
  }
}
