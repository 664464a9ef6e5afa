import SemanticCRDT
import Testing

/// The README's example, line for line, so the README cannot drift from the code.
@Test func readmeExampleConverges() throws {
  var phoneClock = HybridClock(replica: "phone", wallClock: .fixed(1_000))
  var tabletClock = HybridClock(replica: "tablet", wallClock: .fixed(1_000))
  var phone = ORMap<String, LWWRegister<String>>()
  var tablet = ORMap<String, LWWRegister<String>>()

  phone.set("produce", to: LWWRegister("Produce", at: phoneClock.tick()), by: "phone")
  tablet.set("produce", to: LWWRegister("Produce ", at: tabletClock.tick()), by: "tablet")

  let delta = try #require(phone.delta(since: tablet.version))
  tablet.merge(delta)
  phone.merge(tablet)

  #expect(phone == tablet)
  #expect(phone.count == 1)
  // Equal wall time and counter: the greater replica id ("tablet") wins.
  #expect(phone["produce"]!.value == "Produce ")
}
