import ForagerSync
import Foundation
import SemanticCRDT
import Testing

/// What a person reads of an error: a sentence and what to do, with names, never identifiers.
@Suite("Error messages")
struct ErrorMessageTests {
  static let slot = SlotKey(day: CalendarDay(year: 2026, month: 1, day: 5)!, mealType: .dinner)
  static let skew: ClockSkewError = {
    var clock = HybridClock(replica: "phone", wallClock: .fixed(1_000))
    do {
      try clock.observe(HybridTimestamp(wallMilliseconds: 9_000_000_000, replica: "tablet"))
    } catch {
      return error as! ClockSkewError
    }
    fatalError("a timestamp days ahead was accepted")
  }()

  /// One of each case.
  static let errors: [HouseholdError] = [
    .differentHousehold(local: HouseholdID(), remote: HouseholdID()), .clockSkew(skew),
    .notOwner(member: MemberID(), action: "add members"), .ownerCannotLeave(MemberID()),
    .notAMember(MemberID()), .householdDissolved(HouseholdID()),
    .newerNormalizer(found: .current, supported: .current), .unknownRecipe(RecipeID()),
    .unknownList(WeeklyListID()), .unknownMealPlan(MealPlanID()), .unknownItem(GroceryItemID()),
    .unknownIngredient(IngredientKey(normalizing: "saffron")),
    .slotOccupied(slot, by: RecipeID(), title: "Chili"), .emptySlot(slot),
    .ingredientRenameChangesKey(
      name: "Thyme", key: IngredientKey(normalizing: "basil"),
      becomes: IngredientKey(normalizing: "thyme")),
    .notRecordOwner(member: MemberID(), record: .recipe(RecipeID())),
    .fixedSharingScope(.member(MemberID())), .blankName(" "),
    .unknownCategory(CategoryKey(normalizing: "Spices")),
    .categoryNameTaken(name: "Dairy", by: CategoryKey(normalizing: "dairy")),
    .claimsUnmadeWrites("tablet"), .unsoundMerge(["item names template salt"]),
    .massRemoval(removed: 30, live: 40), .removesOwnerOrEveryMember,
    .tooManyReplicas(100_001, maximum: 100_000), .unknownRemoval(7),
    .unsoundRestore(["item names template salt"]),
  ]

  @Test(arguments: errors)
  func readsAsASentenceWithARemedyAndNoIdentifier(_ error: HouseholdError) throws {
    let description = try #require(error.errorDescription)
    let suggestion = try #require(error.recoverySuggestion)
    #expect(error.localizedDescription == description)
    for text in [description, suggestion] {
      #expect(text.first?.isLowercase == false && text.hasSuffix("."), "\(text)")
      let uuid = try Regex("[0-9A-F]{8}-[0-9A-F]{4}-")
      #expect(text.firstMatch(of: uuid) == nil, "\(text) shows an identifier")
    }
  }

  @Test func namesTheRecordsItKnows() {
    #expect(
      HouseholdError.slotOccupied(Self.slot, by: RecipeID(), title: "Chili").errorDescription
        == "2026-01-05 dinner already has “Chili”.")
    #expect(
      HouseholdError.categoryNameTaken(name: "Dairy", by: CategoryKey(normalizing: "dairy"))
        .errorDescription == "A category named “Dairy” already exists.")
  }
}
