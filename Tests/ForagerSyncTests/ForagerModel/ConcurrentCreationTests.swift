import ForagerSync
import Foundation
import SemanticCRDT
import Testing

/// Two devices that create one semantic key at once make one record, and what a person chose
/// on either device survives the merge: a creation's defaults are no one's choice.
@Suite("Concurrent creation keeps choices")
struct ConcurrentCreationTests {
  let home = HouseholdID()
  let sam = MemberID()

  func device(_ replica: ReplicaID, at milliseconds: UInt64) -> HouseholdReplica {
    HouseholdReplica(
      joining: home, member: sam, replica: replica, wallClock: .fixed(milliseconds))
  }

  /// The phone makes salt a staple and shelves it; the tablet, later and offline, first uses
  /// salt (creating it, unshelved, no staple). Before defaults were stamped at genesis, the
  /// tablet's newer creation reset both choices in every merge order.
  @Test func aLaterCreationDoesNotResetAStapleOrACategory() throws {
    var phone = device("phone", at: 1_000)
    let pantry = try phone.getOrCreateCategory(displayName: "Pantry").category.key
    try phone.getOrCreateIngredient(named: "salt", category: pantry)
    try phone.setStaple(true, ingredient: "Salt")
    var tablet = device("tablet", at: 5_000)
    try tablet.recordUse(ofIngredient: "salt")

    for (into, from) in [(phone, tablet), (tablet, phone)] {
      var merged = into
      try merged.merge(from.state)
      let salt = try #require(merged.ingredient(named: "salt"))
      #expect(salt.isStaple)
      #expect(salt.categoryKey == pantry)
      #expect(salt.usageCount == 1)
    }
  }

  /// Importing an export that names a category a rename moved away finds the moved category,
  /// as creating it by name does, instead of bringing the old name back as a second record.
  @Test func anImportFindsARenamedCategory() throws {
    var phone = device("phone", at: 1_000)
    let produce = try phone.getOrCreateCategory(displayName: "Produce").category.key
    try phone.renameCategory(produce, to: "Fruit & Veg")
    let export = try LegacyExport.decode(
      Data(
        #"""
        {"categories": [{"id": "00000000-0000-0000-0000-000000000001", "name": "produce",
          "createdAt": "2024-01-01T00:00:00Z"}],
         "ingredientTemplates": [{"id": "00000000-0000-0000-0000-000000000002", "name": "Kale",
          "categoryID": "00000000-0000-0000-0000-000000000001",
          "createdAt": "2024-01-01T00:00:00Z"}],
         "recipes": [], "weeklyLists": [], "groceryItems": [], "plannedMeals": []}
        """#.utf8))
    try phone.importLegacy(export)
    #expect(phone.categories().map(\.displayName) == ["Fruit & Veg"])
    #expect(phone.ingredient(named: "kale")?.categoryKey == CategoryKey(normalizing: "Fruit & Veg"))
    #expect(phone.state.invariantViolations() == [])
  }
}
