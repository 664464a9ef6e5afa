import ForagerSync
import ForagerTestSupport
import Foundation
import SemanticCRDT
import Testing

/// The same edits on the same replica give the same state, dot for dot, on every run. An edit
/// that writes several records takes one dot for each; taken in the order of a hash table,
/// which differs from one table to the next (and one process to the next), two replicas built
/// alike would mint them in different orders, and a seed of the simulator would not replay.
/// Both replicas below are built in this process from the same steps, into tables of their
/// own: with the dots taken in hash order, the ten templates and ten items of the deleted
/// category seldom come out in the same order in both (3 failures in 3 runs without the sort).
@Suite struct DeterministicEditTests {
  /// The test kit's deterministic ids: `kind` tells what the id is for.
  static func id(_ kind: UInt64, _ index: Int) -> UUID { HouseholdModel.uuid(kind, UInt64(index)) }

  /// A household whose category "Pantry" shelves ten templates and ten items, then deleted.
  static func deletingACategory() throws -> HouseholdReplica {
    var phone = HouseholdReplica.create(
      household: HouseholdModel.household, owner: HouseholdModel.member, ownerName: "Sam",
      replica: "phone",
      wallClock: .fixed(1_000))
    let pantry = try phone.getOrCreateCategory(displayName: "Pantry").category.key
    let list = try phone.createWeeklyList(name: "Week", id: WeeklyListID(uuid: id(3, 0)))
    for index in 0..<10 {
      let name = "spice \(index)"
      let template = try phone.getOrCreateIngredient(named: name, category: pantry).template
      try phone.setCategory(pantry, ofIngredient: template.key)
      let item = try phone.addItem(name, to: list.id, id: GroceryItemID(uuid: id(4, index)))
      try phone.setCategory(pantry, ofItem: item.id)
    }
    try phone.deleteCategory(pantry)
    return phone
  }

  @Test func deletingACategoryMintsTheSameDotsEveryTime() throws {
    let first = try Self.deletingACategory()
    let second = try Self.deletingACategory()
    #expect(first.state == second.state)
  }

  /// A recipe's items take the ids the caller makes, in the order of its lines.
  @Test func aRecipesItemsTakeTheIDsTheCallerMakes() throws {
    var phone = try Self.deletingACategory()
    let recipe = try phone.addRecipe(
      title: "Bread", ingredientLines: ["flour", "", "water", "salt"],
      id: RecipeID(uuid: Self.id(5, 0)))
    var next = 0
    let added = try phone.addItems(
      fromRecipe: recipe.recipe.id, to: WeeklyListID(uuid: Self.id(3, 0))
    ) {
      next += 1
      return GroceryItemID(uuid: Self.id(6, next))
    }
    #expect(added.map(\.id) == (1...3).map { GroceryItemID(uuid: Self.id(6, $0)) })
    #expect(added.map(\.displayName) == ["flour", "water", "salt"])
  }
}
