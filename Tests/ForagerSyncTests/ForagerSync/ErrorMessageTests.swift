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
    .invalidValue(field: "number of servings", value: "0", allowed: "a number from 1 to 1,000"),
  ]

  @Test(arguments: errors)
  func readsAsASentenceWithARemedyAndNoIdentifier(_ error: HouseholdError) throws {
    try Self.expectReadable(error)
  }

  static let file = URL(fileURLWithPath: "/tmp/household.json")
  static let storeErrors: [StoreError] = [
    StoreError.Problem.unreadable("EACCES"), .malformed(JSONError(.unexpectedEnd, at: 3)),
    .checksumMismatch(stored: "1", computed: "2"), .newerFormat(found: 9, supported: 3),
    .unknownFormat(0), .differentHousehold(expected: HouseholdID(), found: HouseholdID()),
    .newerNormalizer(found: NormalizerVersion(rawValue: 9), supported: .current),
    .invalidContent(JSONError(.unexpectedEnd, at: 3)), .unsound(["item names template salt"]),
    .tooLarge(size: 2, limit: 1), .clockSkew(skew), .locked, .writeFailed("ENOSPC"),
    .householdNotCreatedOnCache(.tvOS),
  ].map { StoreError(file: file, problem: $0) }

  @Test(arguments: storeErrors)
  func aFileErrorReadsAsASentenceWithARemedy(_ error: StoreError) throws {
    try Self.expectReadable(error)
  }

  static let importErrors: [LegacyImportError] = [
    .malformed("not JSON"), .invalidSlot(recordID: UUID(), date: "someday", mealType: "brunch"),
    .danglingReference(recordID: UUID(), field: "listID", target: UUID()),
    .household(.householdDissolved(HouseholdID())),
  ]

  @Test(arguments: importErrors)
  func anImportErrorReadsAsASentenceWithARemedy(_ error: LegacyImportError) throws {
    try Self.expectReadable(error)
  }

  static let syncErrors: [any LocalizedError & Sendable] = [
    SyncMessageError.malformed(JSONError(.unexpectedEnd, at: 3)),
    SyncMessageError.newerFormat(found: 2, supported: 1), SyncMessageError.unknownFormat(0),
    SyncMessageError.tooLarge(size: 2, limit: 1),
    SyncFolderError.notAFolder(file),
    SyncFolderError.publishFailed(StoreError(file: file, problem: .writeFailed("ENOSPC"))),
  ]

  @Test func aSyncErrorReadsAsASentenceWithARemedy() throws {
    for error in Self.syncErrors { try Self.expectReadable(error) }
  }

  /// A description and a suggestion, each a sentence, with no identifier or path in them.
  static func expectReadable(_ error: some LocalizedError) throws {
    let description = try #require(error.errorDescription)
    let suggestion = try #require(error.recoverySuggestion)
    #expect(error.localizedDescription == description)
    for text in [description, suggestion] {
      #expect(text.first?.isLowercase == false && text.hasSuffix("."), "\(text)")
      let uuid = try Regex("[0-9A-F]{8}-[0-9A-F]{4}-")
      #expect(text.firstMatch(of: uuid) == nil, "\(text) shows an identifier")
      #expect(!text.contains("/tmp"), "\(text) shows a path")
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
