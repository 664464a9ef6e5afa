import ForagerSync
import ForagerTestSupport
import Foundation
import SemanticCRDT
import Testing

/// Importing the old app's UUID-keyed export (`Fixtures/legacy-export.json`): duplicates
/// collapse to a deterministic keeper, references are re-pointed, counts add up, and a second
/// import changes nothing.
@Suite("Legacy import")
struct LegacyImportTests {
  let household = HouseholdID()
  let sam = MemberID()

  func export() throws -> LegacyExport {
    let url = try #require(
      Bundle.module.url(
        forResource: "legacy-export", withExtension: "json", subdirectory: "Fixtures"))
    return try LegacyExport.decode(try Data(contentsOf: url))
  }

  func device(_ replica: ReplicaID) -> HouseholdReplica {
    HouseholdReplica(
      joining: household, member: sam, replica: replica, wallClock: .fixed(1_735_689_600_000))
  }

  static func id(_ suffix: String) -> UUID {
    UUID(uuidString: "00000000-0000-0000-0000-0000000000\(suffix)")!
  }

  @Test func duplicatesCollapseToTheKeeperAndReferencesFollow() throws {
    var phone = device("phone")
    let report = try phone.importLegacy(try export())
    #expect(report.duplicatesCollapsed == 3)  // two extra "produce", one extra "basil"
    #expect(report.displacedMeals == [Self.id("F1")])

    // Categories: "Produce" has the most relationships (two templates, one item), so it keeps
    // its name and sort order although "produce " is older.
    #expect(phone.categories().map(\.displayName) == ["Produce", "Dairy"])
    let produce = try #require(phone.category(named: "produce"))
    #expect(produce.sortOrder == 0)

    // Templates: "basil" (A2) has an item pointing at it, so it is the keeper; the usage of
    // both duplicates adds up, and its category is re-pointed to the produce key.
    let basil = try #require(phone.ingredient(named: "Basil"))
    #expect(basil.usageCount == 5)
    #expect(basil.categoryKey == CategoryKey(rawValue: "produce"))
    #expect(basil.createdAt.wallMilliseconds == 1_704_358_800_000)  // 2024-01-04T09:00Z, A2's
    #expect(phone.ingredient(named: "milk")?.isStaple == true)
    #expect(phone.ingredients().map(\.key.rawValue) == ["basil", "cilantro", "flour", "milk"])

    // Items keep their UUIDs and now name templates and categories by key.
    let list = WeeklyListID(uuid: Self.id("D1"))
    let items = phone.items(in: list)
    #expect(items.map(\.displayName) == ["2 cups flour", "basil", "Milk"])
    #expect(items.map(\.templateKey.rawValue) == ["flour", "basil", "milk"])
    #expect(items[1].categoryKey == CategoryKey(rawValue: "produce"))
    #expect(items[2].isChecked)
    #expect(items[0].source == .recipe(RecipeID(uuid: Self.id("B1"))))

    // Recipes keep UUID identity: both banana breads stay, ranked by use.
    #expect(
      phone.findSimilarRecipes(title: "Banana Bread").map(\.id.uuid) == [
        Self.id("B1"), Self.id("B2"),
      ])

    // Two breakfasts in one slot: the older keeps it.
    let breakfast = try #require(SlotKey(rawValue: "2024-12-10-breakfast"))
    #expect(phone.plannedMeal(breakfast)?.recipe == RecipeID(uuid: Self.id("B2")))
    #expect(phone.plannedMeals().count == 2)
    #expect(phone.state.invariantViolations().isEmpty)
  }

  /// The export's dates may be ahead of the device's clock (here the clock reads 1 s after
  /// 1970): a rename made after the import still wins, where it once lost its name to the
  /// imported one and left the category under a key its name did not have, which every peer
  /// refused as unsound (`SyncSessionPropertyTests`, seed 10775331718046143212).
  @Test func anEditAfterTheImportWinsOverTheExportsDates() throws {
    var device = HouseholdReplica(
      state: HouseholdModel.initialState, member: HouseholdModel.member,
      clock: HybridClock(replica: "d2", wallClock: .fixed(1_000)))
    HouseholdModel.perform(.importLegacy, on: &device)
    let pantry = try #require(device.category(named: "Pantry"))
    try device.renameCategory(pantry.key, to: "milk ")
    let renamed = try #require(device.category(named: "milk"))
    #expect(renamed.displayName == "milk " && renamed.key.rawValue == "milk")
    #expect(device.state.invariantViolations().isEmpty)
  }

  @Test func importingTwiceChangesNothing() throws {
    var phone = device("phone")
    try phone.importLegacy(try export())
    let once = phone.state
    let second = try phone.importLegacy(try export())
    #expect(phone.state == once)
    #expect(second.imported == 0)
  }

  @Test func twoDevicesImportingTheSameExportDoNotCountTwice() throws {
    var phone = device("phone")
    var tablet = device("tablet")
    try phone.importLegacy(try export())
    try tablet.importLegacy(try export())
    try phone.merge(tablet.state)
    try tablet.merge(phone.state)
    #expect(phone.state == tablet.state)
    #expect(phone.ingredient(named: "basil")?.usageCount == 5)
    #expect(phone.categories().count == 2)
    #expect(phone.recipes().first?.usageCount == 5)
  }

  @Test func badExportsAreRefusedAndNothingIsImported() throws {
    var phone = device("phone")
    try phone.getOrCreateCategory(displayName: "Snacks")
    let before = phone.state

    #expect(throws: LegacyImportError.malformed("missing .categories[0].createdAt")) {
      _ = try LegacyExport.decode(
        Data(
          #"{"categories":[{"id":"00000000-0000-0000-0000-0000000000C1","name":"Produce"}]}"#.utf8))
    }

    var badSlot = try export()
    badSlot.plannedMeals[2].mealType = "Brunch"
    #expect(
      throws: LegacyImportError.invalidSlot(
        recordID: Self.id("F3"), date: "2024-12-11", mealType: "Brunch")
    ) {
      try phone.importLegacy(badSlot)
    }

    var dangling = try export()
    dangling.groceryItems[1].templateID = Self.id("99")
    let danglingError = LegacyImportError.danglingReference(
      recordID: Self.id("E2"), field: "templateID", target: Self.id("99"))
    #expect(throws: danglingError) { try phone.importLegacy(dangling) }
    #expect(
      danglingError.description
        == "Record 00000000-0000-0000-0000-0000000000E2 refers by templateID to 00000000-0000-0000-0000-000000000099, which the export does not contain"
    )
    #expect(phone.state == before)
  }
}
