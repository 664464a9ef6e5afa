import ForagerSync
import SemanticCRDT
import Testing

/// A planned meal's assignment is a dot store nested in the household's map of meals: clearing
/// a slot and assigning it again must not reuse a dot a peer has seen (ADR 0011).
@Suite("Nested dot stores")
struct NestedDotTests {
  @Test func clearedAndReassignedSlotKeepsAConcurrentAssignment() throws {
    let home = HouseholdID()
    let sam = MemberID()
    var phone = HouseholdReplica.create(
      household: home, owner: sam, ownerName: "Sam", replica: "phone")
    var tablet = HouseholdReplica(joining: home, member: sam, replica: "tablet")
    let pancakes = try phone.addRecipe(title: "Pancakes").recipe.id
    let waffles = try phone.addRecipe(title: "Waffles").recipe.id
    let omelette = try phone.addRecipe(title: "Omelette").recipe.id
    let slot = SlotKey(
      day: try #require(CalendarDay(year: 2026, month: 11, day: 24)), mealType: .breakfast)
    try phone.assignRecipe(pancakes, to: slot)
    try tablet.merge(phone.state)

    // Offline: the phone clears the slot and assigns waffles; the tablet, which saw the
    // pancakes, replaces them with an omelette.
    try phone.clearSlot(slot)
    try phone.assignRecipe(waffles, to: slot)
    try tablet.assignRecipe(omelette, to: slot, replacing: true)

    let reportOnPhone = try phone.merge(tablet.state)
    let reportOnTablet = try tablet.merge(phone.state)
    #expect(phone.state == tablet.state)
    let meal = try #require(phone.plannedMeal(slot))
    #expect(Set([meal.recipe].compactMap { $0 } + meal.conflictingRecipes) == [waffles, omelette])
    #expect(reportOnPhone.newConflicts == [slot])
    #expect(reportOnTablet.newConflicts == [slot])
  }

  /// A value written outside the map and then set still gets dots of the map's own: the
  /// register below holds dot 1 of "phone" before `set`, the number the first write had.
  @Test func aValueWrittenOutsideTheMapGetsFreshDots() {
    var clock = HybridClock(replica: "phone")
    var tabletClock = HybridClock(replica: "tablet")
    var phone = ORMap<String, MVRegister<String>>()
    phone.update("dinner", by: "phone", default: MVRegister()) {
      $0.write("soup", at: clock.tick())
    }
    var tablet = phone
    phone.remove("dinner")
    var fresh = MVRegister<String>()
    fresh.write("pasta", at: clock.tick())
    phone.set("dinner", to: fresh, by: "phone")
    tablet.update("dinner", by: "tablet", default: MVRegister()) {
      $0.write("stew", at: tabletClock.tick())
    }

    let merged = phone.merging(tablet)
    #expect(merged == tablet.merging(phone))
    #expect(Set(merged["dinner"]?.writes.map(\.value) ?? []) == ["pasta", "stew"])
  }

  /// A write supersedes everything its writer had seen under the key: an element the phone
  /// removed with the key stays removed when the phone creates the key again, while the
  /// tablet's concurrent insert survives.
  @Test func recreatingAKeySupersedesWhatTheWriterHadSeen() {
    var phone = ORMap<String, ORSet<String>>()
    phone.update("pantry", by: "phone", default: ORSet()) { $0.insert("flour", by: "phone") }
    var tablet = phone
    phone.remove("pantry")
    phone.update("pantry", by: "phone", default: ORSet()) { $0.insert("sugar", by: "phone") }
    tablet.update("pantry", by: "tablet", default: ORSet()) { $0.insert("salt", by: "tablet") }

    let merged = phone.merging(tablet)
    #expect(merged == tablet.merging(phone))
    #expect(merged["pantry"]?.elements == ["sugar", "salt"])
  }
}
