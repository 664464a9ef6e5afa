import SemanticCRDT
import Testing

/// The README's example, line for line, so the README cannot drift from the code.
@Test func readmeExampleConverges() throws {
  let phoneID = ReplicaID.random()
  let tabletID = ReplicaID.random()
  var phoneClock = HybridClock(replica: phoneID, wallClock: .fixed(1_000))
  var tabletClock = HybridClock(replica: tabletID, wallClock: .fixed(1_000))
  var phone = ORMap<String, LWWRegister<String>>()
  var tablet = ORMap<String, LWWRegister<String>>()

  phone.set("produce", to: LWWRegister("Produce", at: phoneClock.tick()), by: phoneID)
  tablet.set("produce", to: LWWRegister("Produce ", at: tabletClock.tick()), by: tabletID)

  let delta = try #require(phone.delta(since: tablet.version))
  tablet.merge(delta)
  phone.merge(tablet)

  #expect(phone == tablet)
  #expect(phone.count == 1)
  // Equal wall time and counter: the greater replica id wins, the same on both devices.
  #expect(phone["produce"]!.value == (phoneID > tabletID ? "Produce" : "Produce "))
  #expect(phoneID != tabletID)
}
