import ForagerSync
import Foundation
import SemanticCRDT
import Testing

/// The old design's failures (UUID identity, last writer wins: the baseline of README's "See it
/// work: the simulator"), each replayed on separate replicas that merge in every order:
/// the outcome must be the same, and right, whatever the order.
@Suite("Seed scenarios")
struct SeedScenarioTests {
  let household = HouseholdID()
  let sam = MemberID()
  let alex = MemberID()

  func owner(_ replica: ReplicaID = "phone", at wall: UInt64 = 1_000) -> HouseholdReplica {
    HouseholdReplica.create(
      household: household, owner: sam, ownerName: "Sam", replica: replica, wallClock: .fixed(wall))
  }

  func device(_ replica: ReplicaID, member: MemberID? = nil, at wall: UInt64 = 1_000)
    -> HouseholdReplica
  {
    HouseholdReplica(
      joining: household, member: member ?? sam, replica: replica, wallClock: .fixed(wall))
  }

  /// Every order of merging `replicas`' states into a fresh device, plus each replica merging
  /// all the others by delta. All results must be equal; they are returned for checks.
  func mergedInEveryOrder(_ replicas: [HouseholdReplica]) throws -> [HouseholdReplica] {
    func permutations(_ items: [HouseholdReplica]) -> [[HouseholdReplica]] {
      guard items.count > 1 else { return [items] }
      return items.indices.flatMap { index -> [[HouseholdReplica]] in
        var rest = items
        let first = rest.remove(at: index)
        return permutations(rest).map { [first] + $0 }
      }
    }
    var results: [HouseholdReplica] = []
    for order in permutations(replicas) {
      var fresh = device("observer", member: alex, at: 10_000)
      for replica in order { try fresh.merge(replica.state) }
      results.append(fresh)
    }
    for (index, replica) in replicas.enumerated() {
      var receiver = replica
      for (other, peer) in replicas.enumerated() where other != index {
        if let delta = peer.delta(since: receiver.state.version) { try receiver.merge(delta) }
      }
      results.append(receiver)
    }
    for result in results {
      #expect(result.state == results[0].state, "merge order changed the outcome")
    }
    return results
  }

  @Test func twoDevicesSeedingDefaultsOfflineGiveSevenCategories() throws {
    var phone = owner()
    var tablet = device("tablet")
    #expect(try phone.seedDefaultCategories() == 7)
    #expect(try tablet.seedDefaultCategories() == 7)  // before its first sync: the old app's race
    for merged in try mergedInEveryOrder([phone, tablet]) {
      #expect(merged.categories().count == 7)
      #expect(merged.categories().map(\.displayName) == HouseholdReplica.defaultCategoryNames)
    }
    var synced = try mergedInEveryOrder([phone, tablet])[0]
    #expect(try synced.seedDefaultCategories() == 0)
    #expect(synced.categories().count == 7)
  }

  @Test func oneCategoryFromTwoSpellingsWithADeterministicDisplayName() throws {
    var phone = owner(at: 1_000)
    var tablet = device("tablet", at: 2_000)
    try phone.getOrCreateCategory(displayName: "Test Category")
    try tablet.getOrCreateCategory(displayName: "  test   CATEGORY ")
    for merged in try mergedInEveryOrder([phone, tablet]) {
      #expect(merged.categories().count == 1)
      let category = try #require(merged.category(named: "test category"))
      #expect(category.displayName == "  test   CATEGORY ")  // the later write
      #expect(category.createdAt.replica == "phone")  // the earlier creation
    }
  }

  @Test func usageOfOneTemplateOnTwoDevicesAddsUp() throws {
    var phone = owner()
    var tablet = device("tablet")
    try phone.recordUse(ofIngredient: "Cilantro")
    try tablet.recordUse(ofIngredient: "cilantro")
    for merged in try mergedInEveryOrder([phone, tablet]) {
      #expect(merged.ingredients().count == 1)
      #expect(merged.ingredient(named: "CILANTRO")?.usageCount == 2)
    }
  }

  @Test func pancakesAndWafflesForTuesdayBreakfastMakeOneSlotWithAConflict() throws {
    var phone = owner()
    var tablet = device("tablet")
    try tablet.merge(phone.state)
    let pancakes = try phone.addRecipe(title: "Pancakes").recipe.id
    let waffles = try tablet.addRecipe(title: "Waffles").recipe.id
    let tuesday = SlotKey(
      day: try #require(CalendarDay(year: 2024, month: 12, day: 10)), mealType: .breakfast)
    #expect(try phone.assignRecipe(pancakes, to: tuesday).recipe == pancakes)
    #expect(try tablet.assignRecipe(waffles, to: tuesday).recipe == waffles)
    let frenchToast = try phone.addRecipe(title: "French Toast").recipe.id
    // A bare call cannot overwrite the slot: it throws, naming the recipe in it.
    let before = phone.state
    #expect(throws: HouseholdError.slotOccupied(tuesday, by: pancakes, title: "Pancakes")) {
      try phone.assignRecipe(frenchToast, to: tuesday)
    }
    #expect(phone.state == before)
    #expect(throws: HouseholdError.unknownRecipe(waffles)) {
      try phone.assignRecipe(waffles, to: tuesday)
    }

    var report = MergeReport()
    for merged in try mergedInEveryOrder([phone, tablet]) {
      #expect(merged.plannedMeals().count == 1)
      let meal = try #require(merged.plannedMeal(tuesday))
      #expect(meal.recipe == waffles)  // same wall time: "tablet" > "phone" breaks the tie
      #expect(meal.conflictingRecipes == [pancakes])
      #expect(merged.conflictedSlots() == [tuesday])
    }
    report = try phone.merge(tablet.state)
    #expect(report.newConflicts == [tuesday])
    #expect(try phone.assignRecipe(pancakes, to: tuesday, replacing: true).recipe == pancakes)
    #expect(phone.plannedMeal(tuesday)?.conflictingRecipes == [])
    try tablet.merge(phone.state)
    #expect(tablet.plannedMeal(tuesday)?.recipe == pancakes)
    #expect(tablet.conflictedSlots().isEmpty)
  }

  @Test func twoBananaBreadsAreTwoRecipesEachSimilarToTheOther() throws {
    var phone = owner()
    var tablet = device("tablet")
    let first = try phone.addRecipe(title: "Banana Bread")
    let second = try tablet.addRecipe(title: "banana bread!")
    #expect(first.similar.isEmpty)
    for merged in try mergedInEveryOrder([phone, tablet]) {
      #expect(merged.recipes().count == 2)
      #expect(
        Set(merged.findSimilarRecipes(title: "Banana Bread").map(\.id)) == [
          first.recipe.id, second.recipe.id,
        ])
    }
    var merged = phone
    try merged.merge(tablet.state)
    let third = try merged.addRecipe(title: "BANANA BREAD")
    #expect(third.similar.count == 2)  // informs, never blocks: the third recipe was saved
    #expect(merged.recipes().count == 3)
  }

  @Test func flourFromTwoRecipesAndByHandIsThreeItemsInOneGroup() throws {
    var phone = owner()
    let list = try phone.createWeeklyList(name: "This Week")
    var tablet = device("tablet")
    try tablet.merge(phone.state)
    let bread = try phone.addRecipe(
      title: "Banana Bread", ingredientLines: ["2 cups flour", "3 bananas"]
    ).recipe.id
    let pancakes = try tablet.addRecipe(
      title: "Pancakes", ingredientLines: ["1 cup flour", "2 eggs"]
    ).recipe.id
    try phone.addItems(fromRecipe: bread, to: list.id)
    try tablet.addItems(fromRecipe: pancakes, to: list.id)
    try tablet.addItem("Flour", to: list.id)
    for merged in try mergedInEveryOrder([phone, tablet]) {
      let flour = merged.consolidatedItems(in: list.id).first {
        $0.template == IngredientKey(rawValue: "flour")
      }
      #expect(flour?.items.count == 3)
      #expect(merged.items(in: list.id).count == 5)
      #expect(merged.consolidatedItems(in: list.id).count == 3)
      #expect(merged.ingredient(named: "flour") != nil)
    }
  }

  @Test func aStateOfAnotherHouseholdIsRefusedAndNothingChanges() throws {
    var phone = owner()
    try phone.seedDefaultCategories()
    var stranger = HouseholdReplica.create(
      owner: alex, ownerName: "Alex", replica: "stranger", wallClock: .fixed(1_000))
    try stranger.getOrCreateCategory(displayName: "Snacks")
    let before = phone.state
    let clockBefore = phone.clock.latest!
    #expect(
      throws: HouseholdError.differentHousehold(local: household, remote: stranger.householdID)
    ) {
      try phone.merge(stranger.state)
    }
    #expect(phone.state == before)
    #expect(phone.clock.latest! == clockBefore)
    #expect(
      "\(HouseholdError.differentHousehold(local: household, remote: stranger.householdID))"
        == "Refused a state of household \(stranger.householdID): this replica belongs to household \(household)"
    )
  }

  @Test func aStateFromASkewedClockIsRefusedAndNothingChanges() throws {
    var phone = owner(at: 1_733_788_800_000)
    var future = device("future", at: 1_733_788_800_000 + 3 * 86_400_000)
    try future.getOrCreateCategory(displayName: "From the future")
    let before = phone.state
    #expect(throws: HouseholdError.self) { try phone.merge(future.state) }
    do {
      try phone.merge(future.state)
    } catch {
      guard case .clockSkew(let skew) = error else {
        Issue.record("expected a clock skew error, got \(error)")
        return
      }
      #expect(skew.replica == "future")
      #expect(skew.skewMilliseconds == 3 * 86_400_000)
    }
    #expect(phone.state == before)
  }

  @Test func deletingAListHidesItsItemsEvenOnesAddedConcurrently() throws {
    var phone = owner()
    let list = try phone.createWeeklyList(name: "Party")
    try phone.addItem("chips", to: list.id)
    var tablet = device("tablet")
    try tablet.merge(phone.state)
    try phone.deleteWeeklyList(list.id)
    try tablet.addItem("salsa", to: list.id)  // concurrent with the delete
    for merged in try mergedInEveryOrder([phone, tablet]) {
      #expect(merged.weeklyLists().isEmpty)
      #expect(merged.items(in: list.id).isEmpty)
      #expect(merged.consolidatedItems(in: list.id).isEmpty)
    }
  }

  @Test func deletingAPlanHidesItsPlannedMeals() throws {
    var phone = owner()
    let plan = try phone.createMealPlan(name: "This Week")
    let soup = try phone.addRecipe(title: "Soup").recipe.id
    let monday = SlotKey(
      day: try #require(CalendarDay(year: 2024, month: 12, day: 9)), mealType: .dinner)
    try phone.assignRecipe(soup, to: monday, in: plan.id)
    var tablet = device("tablet")
    try tablet.merge(phone.state)
    try phone.deleteMealPlan(plan.id)
    for merged in try mergedInEveryOrder([phone, tablet]) {
      #expect(merged.plannedMeal(monday) == nil)
      #expect(merged.plannedMeals().isEmpty)
    }
  }

  @Test func mergeReportsWhatItAddedAndMerged() throws {
    var phone = owner()
    var tablet = device("tablet")
    try phone.getOrCreateCategory(displayName: "Produce")
    try tablet.getOrCreateCategory(displayName: "produce")
    try tablet.getOrCreateCategory(displayName: "Snacks")
    let report = try phone.merge(tablet.state)
    #expect(report.recordsAdded == 1)  // snacks
    #expect(report.recordsMerged == 1)  // produce, met under the same key
    #expect(report.newConflicts.isEmpty)
    #expect(try phone.merge(tablet.state) == MergeReport())  // nothing new the second time
  }

  @Test func mergeReportsWhatItRemovedFromADeltaAsFromAFullState() throws {
    var phone = owner()
    let list = try phone.createWeeklyList(name: "This Week")
    let plan = try phone.createMealPlan(name: "Prep")
    try phone.getOrCreateCategory(displayName: "Produce")
    var tablet = device("tablet")
    try tablet.merge(phone.state)
    let seen = tablet.state.version
    try phone.deleteWeeklyList(list.id)
    try phone.deleteMealPlan(plan.id)
    var fromDelta = tablet
    let delta = try #require(phone.delta(since: seen))
    let viaDelta = try fromDelta.merge(delta)
    let viaState = try tablet.merge(phone.state)
    for report in [viaDelta, viaState] {
      #expect(report.recordsRemoved == 2)
      #expect(report.recordsAdded == 0 && report.recordsMerged == 0)
    }
  }

  @Test func onlyTheOwnerManagesMembersAndTheOwnerCannotLeave() throws {
    var phone = owner()
    try phone.addMember(alex, name: "Alex")
    var alexPhone = device("alex-phone", member: alex)
    try alexPhone.merge(phone.state)
    #expect(throws: HouseholdError.notOwner(member: alex, action: "remove members")) {
      try alexPhone.removeMember(sam)
    }
    #expect(throws: HouseholdError.notOwner(member: alex, action: "dissolve the household")) {
      try alexPhone.dissolve()
    }
    #expect(throws: HouseholdError.ownerCannotLeave(sam)) { try phone.leave() }
    #expect(phone.members().map(\.displayName) == ["Sam", "Alex"])
    try alexPhone.leave()
    try phone.merge(alexPhone.state)
    #expect(phone.members().map(\.displayName) == ["Sam"])
    try phone.dissolve()
    #expect(throws: HouseholdError.householdDissolved(household)) {
      try phone.getOrCreateCategory(displayName: "Late")
    }
  }
}
