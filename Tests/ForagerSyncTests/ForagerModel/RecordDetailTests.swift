import ForagerSync
import ForagerTestSupport
import Foundation
import SemanticCRDT
import Testing

/// The details the app's design gives its records, each a field with the CRDT its meaning
/// asks for (docs/household-model.md): edits on two devices merge as that CRDT says, and every
/// edit refuses a record that does not show and a value out of range.
@Suite struct RecordDetailTests {
  static func household() throws -> (HouseholdReplica, HouseholdReplica) {
    let devices = try RandomHousehold.newHousehold(RandomHousehold.household, devices: 2) {
      ReplicaID("d\($0)")
    }
    return (devices[0], devices[1])
  }

  /// A recipe's last use is the latest use on any device, and its uses add up. (Stamped by the
  /// hybrid clock, a later use never has an earlier time, so this cannot tell the max register
  /// from a last-writer-wins one; `MaxRegister`'s laws are `MergeLawTests.maxRegister`'s.)
  @Test func lastUsedIsTheLatestUseOnAnyDevice() throws {
    var (phone, tablet) = try Self.household()
    let soup = try phone.addRecipe(title: "Soup").recipe.id
    try tablet.merge(phone.state)
    try phone.recordUse(ofRecipe: soup)
    try tablet.recordUse(ofRecipe: soup)
    let phoneUse = try #require(phone.recipe(soup)?.lastUsed)
    let tabletUse = try #require(tablet.recipe(soup)?.lastUsed)
    try phone.merge(tablet.state)
    try tablet.merge(phone.state)
    #expect(phone.recipe(soup)?.lastUsed == max(phoneUse, tabletUse))
    #expect(tablet.recipe(soup)?.lastUsed == max(phoneUse, tabletUse))
    #expect(phone.recipe(soup)?.usageCount == 2)
  }

  /// Recipes list most used first (uses added up across devices), then newest first; so do the
  /// recipes similar to a new one, among those whose titles share its key.
  @Test func recipesListMostUsedFirstThenNewest() throws {
    var (phone, tablet) = try Self.household()
    let old = try phone.addRecipe(title: "Tomato Soup").recipe.id
    let newer = try phone.addRecipe(title: "tomato soup").recipe.id
    let newest = try phone.addRecipe(title: "Bread").recipe.id
    try tablet.merge(phone.state)
    try phone.recordUse(ofRecipe: old)
    try tablet.recordUse(ofRecipe: old)
    try tablet.recordUse(ofRecipe: newest)
    try phone.merge(tablet.state)
    #expect(phone.recipes().map(\.id) == [old, newest, newer])
    let similar = try phone.addRecipe(title: "TOMATO  SOUP").similar
    #expect(similar.map(\.id) == [old, newer])
  }

  /// Details of one record edited on two devices offline: each detail's latest edit wins, and
  /// edits of different details all survive.
  @Test func detailsOfOneRecordEditedApartAllSurvive() throws {
    var (phone, tablet) = try Self.household()
    let soup = try phone.addRecipe(title: "Soup").recipe.id
    let plan = try phone.createMealPlan(name: "Week").id
    let slot = SlotKey(rawValue: "2024-12-10-dinner")!
    _ = try phone.assignRecipe(soup, to: slot, in: plan)
    try tablet.merge(phone.state)
    try phone.setInstructions("Simmer.", ofRecipe: soup)
    try tablet.setServings(4, ofRecipe: soup)
    try tablet.setFavorite(true, ofRecipe: soup)
    try phone.setNotes("Double it", ofMealIn: slot)
    try tablet.setScaleFactor(2, ofMealIn: slot)
    try tablet.setCompleted(true, mealIn: slot)
    try phone.setDays(
      startingOn: CalendarDay(year: 2024, month: 12, day: 9), count: 7, ofPlan: plan)
    try tablet.setActive(true, ofPlan: plan)
    try phone.merge(tablet.state)
    try tablet.merge(phone.state)
    #expect(phone.state == tablet.state)
    let recipe = try #require(phone.recipe(soup))
    #expect(recipe.instructions == "Simmer." && recipe.servings == 4 && recipe.isFavorite)
    let meal = try #require(phone.plannedMeal(slot))
    #expect(meal.notes == "Double it" && meal.scaleFactor == 2 && meal.isCompleted)
    #expect(meal.completedAt != nil)
    let week = try #require(phone.mealPlans().first)
    #expect(week.startDay == CalendarDay(year: 2024, month: 12, day: 9))
    #expect(week.durationDays == 7 && week.isActive && !week.isCompleted)
  }

  /// "Completed" and its time are one register: undoing clears both, and a later completion
  /// on another device brings both back together.
  @Test func completionAndItsTimeChangeTogether() throws {
    var (phone, tablet) = try Self.household()
    let list = try phone.createWeeklyList(name: "Groceries").id
    try tablet.merge(phone.state)
    try phone.setCompleted(true, ofList: list)
    try phone.setCompleted(false, ofList: list)
    #expect(phone.weeklyLists()[0].completedAt == nil && !phone.weeklyLists()[0].isCompleted)
    try tablet.setCompleted(true, ofList: list)
    try phone.merge(tablet.state)
    let merged = phone.weeklyLists()[0]
    #expect(merged.isCompleted == (merged.completedAt != nil))
  }

  /// Edits refuse what they cannot take: a record that does not show, a value out of range.
  @Test func editsRefuseTheUnknownAndTheOutOfRange() throws {
    var (phone, _) = try Self.household()
    let soup = try phone.addRecipe(title: "Soup").recipe.id
    let before = phone.state
    #expect(
      throws: HouseholdError.unknownRecipe(
        RecipeID(uuid: UUID(uuid: (1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))))
    ) {
      try phone.setFavorite(
        true, ofRecipe: RecipeID(uuid: UUID(uuid: (1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
      )
    }
    #expect(throws: HouseholdError.self) { try phone.setServings(0, ofRecipe: soup) }
    #expect(throws: HouseholdError.self) {
      try phone.setTimes(prepMinutes: -1, cookMinutes: nil, ofRecipe: soup)
    }
    let slot = SlotKey(rawValue: "2024-12-10-dinner")!
    #expect(throws: HouseholdError.emptySlot(slot)) { try phone.setNotes("x", ofMealIn: slot) }
    _ = try phone.assignRecipe(soup, to: slot)
    let afterAssign = phone.state
    for factor in [0, -1, 1_000_001, .nan, .infinity] as [Double] {
      #expect(throws: HouseholdError.self) { try phone.setScaleFactor(factor, ofMealIn: slot) }
    }
    #expect(phone.state == afterAssign)
    #expect(before != afterAssign)
    #expect(throws: HouseholdError.unknownCategory(CategoryKey(rawValue: "nowhere"))) {
      try phone.setColor("red", ofCategory: CategoryKey(rawValue: "nowhere"))
    }
  }

  /// Seeding marks what it creates as a default; a category a person made before stays a
  /// person's, and seeding writes nothing to it.
  @Test func seedingMarksWhatItCreates() throws {
    var (phone, _) = try Self.household()
    _ = try phone.getOrCreateCategory(displayName: "Produce")
    let before = try #require(phone.category(named: "Produce"))
    try phone.seedDefaultCategories()
    #expect(phone.category(named: "Produce") == before)
    #expect(phone.category(named: "Dairy")?.isDefault == true)
    #expect(!before.isDefault)
  }
}
