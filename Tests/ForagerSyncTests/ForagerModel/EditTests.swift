import ForagerSync
import Foundation
import SemanticCRDT
import Testing

/// Every edit the app makes, for every kind of record: what it changes, what it refuses, and
/// what two devices editing offline converge to.
@Suite("Edits")
struct EditTests {
  let household = HouseholdID()
  let sam = MemberID()
  let alex = MemberID()

  func owner() throws -> HouseholdReplica {
    var phone = HouseholdReplica.create(
      household: household, owner: sam, ownerName: "Sam", replica: "phone",
      wallClock: .fixed(1_000))
    try phone.addMember(alex, name: "Alex")
    return phone
  }

  /// A second device that has merged `peer`, for `member` (Sam's by default).
  func joined(_ replica: ReplicaID, from peer: HouseholdReplica, member: MemberID? = nil)
    throws -> HouseholdReplica
  {
    var device = HouseholdReplica(
      joining: household, member: member ?? sam, replica: replica, wallClock: .fixed(1_000))
    try device.merge(peer.state)
    return device
  }

  /// Both devices merge each other; their states must then be equal.
  func sync(_ a: inout HouseholdReplica, _ b: inout HouseholdReplica) throws {
    try a.merge(b.state)
    try b.merge(a.state)
    #expect(a.state == b.state)
  }

  /// Every mutating call that names a record that does not exist throws a typed error and
  /// changes nothing.
  @Test func everyEditOfAnUnknownRecordIsRefusedWithNothingChanged() throws {
    var phone = try owner()
    let recipe = try phone.addRecipe(title: "Chili").recipe.id
    let produce = try phone.getOrCreateCategory(displayName: "Produce").category.key
    let item = GroceryItemID()
    let ingredient = IngredientKey(normalizing: "saffron")
    let category = CategoryKey(normalizing: "Spices")
    let otherRecipe = RecipeID()
    let list2 = WeeklyListID()
    let plan = MealPlanID()
    let slot = try #require(SlotKey(rawValue: "2026-01-05-dinner"))
    typealias Edit = (HouseholdError, (inout HouseholdReplica) throws -> Void)
    let edits: [Edit] = [
      (.unknownItem(item), { try $0.setChecked(true, item: item) }),
      (.unknownItem(item), { try $0.editItem(item, text: "salt") }),
      (.unknownItem(item), { try $0.setCategory(produce, ofItem: item) }),
      (.unknownItem(item), { try $0.removeItem(item) }),
      (.unknownIngredient(ingredient), { try $0.setStaple(true, ofIngredient: ingredient) }),
      (.unknownIngredient(ingredient), { try $0.setCategory(produce, ofIngredient: ingredient) }),
      (.unknownIngredient(ingredient), { try $0.renameIngredient(ingredient, to: "Saffron") }),
      (.unknownCategory(category), { try $0.renameCategory(category, to: "Herbs") }),
      (.unknownCategory(category), { try $0.setSortOrder(3, ofCategory: category) }),
      (.unknownCategory(category), { try $0.reorderCategories([produce, category]) }),
      (.unknownCategory(category), { try $0.deleteCategory(category) }),
      (.unknownRecipe(otherRecipe), { try $0.renameRecipe(otherRecipe, to: "Soup") }),
      (.unknownRecipe(otherRecipe), { try $0.setIngredientLines([], ofRecipe: otherRecipe) }),
      (.unknownRecipe(otherRecipe), { try $0.deleteRecipe(otherRecipe) }),
      (.unknownRecipe(otherRecipe), { try $0.recordUse(ofRecipe: otherRecipe) }),
      (.unknownRecipe(otherRecipe), { try $0.assignRecipe(otherRecipe, to: slot) }),
      (.unknownList(list2), { try $0.renameWeeklyList(list2, to: "Next Week") }),
      (.unknownList(list2), { try $0.deleteWeeklyList(list2) }),
      (.unknownList(list2), { try $0.addItem("salt", to: list2) }),
      (.unknownMealPlan(plan), { try $0.renameMealPlan(plan, to: "Prep") }),
      (.unknownMealPlan(plan), { try $0.deleteMealPlan(plan) }),
      (.unknownMealPlan(plan), { try $0.assignRecipe(recipe, to: slot, in: plan) }),
      (.emptySlot(slot), { try $0.clearSlot(slot) }),
      (.unknownItem(item), { try $0.setSharingScope(.ownerOnly, of: .item(item)) }),
      (.emptySlot(slot), { try $0.setSharingScope(.ownerOnly, of: .meal(slot)) }),
      (.fixedSharingScope(.member(sam)), { try $0.setSharingScope(.ownerOnly, of: .member(sam)) }),
    ]
    for (expected, edit) in edits {
      let before = phone.state
      #expect(throws: expected) { try edit(&phone) }
      #expect(phone.state == before, "\(expected) changed the state")
    }
  }

  /// An item on a deleted list is gone for edits as it is for reads.
  @Test func anItemOfADeletedListCannotBeEdited() throws {
    var phone = try owner()
    let list = try phone.createWeeklyList(name: "This Week").id
    let item = try phone.addItem("milk", to: list).id
    var tablet = try tablet(from: phone)
    try phone.deleteWeeklyList(list)
    #expect(throws: HouseholdError.unknownItem(item)) { try phone.setChecked(true, item: item) }
    // The tablet, which has not seen the deletion, checks it; the merge keeps it hidden.
    try tablet.setChecked(true, item: item)
    try sync(&phone, &tablet)
    #expect(phone.item(item) == nil)
    #expect(phone.items(in: list).isEmpty)
  }

  func tablet(from peer: HouseholdReplica) throws -> HouseholdReplica {
    try joined("tablet", from: peer)
  }

  @Test func aTemplatesCategoryStapleAndSpellingChange() throws {
    var phone = try owner()
    let dairy = try phone.getOrCreateCategory(displayName: "Dairy").category.key
    let basil = try phone.getOrCreateIngredient(named: "basil").template.key
    #expect(phone.ingredient(basil)?.displayName == "basil")
    try phone.renameIngredient(basil, to: "Fresh Basil")
    try phone.setCategory(dairy, ofIngredient: basil)
    try phone.setStaple(true, ofIngredient: basil)
    let template = try #require(phone.ingredient(basil))
    #expect(template.displayName == "Fresh Basil")
    #expect(template.canonicalName == basil)
    #expect(template.categoryKey == dairy)
    #expect(template.isStaple)
    try phone.setCategory(nil, ofIngredient: basil)
    #expect(phone.ingredient(basil)?.categoryKey == nil)
    // Another ingredient's name is refused: it would be a second template's key.
    #expect(
      throws: HouseholdError.ingredientRenameChangesKey(
        name: "Thyme", key: basil, becomes: IngredientKey(normalizing: "thyme"))
    ) { try phone.renameIngredient(basil, to: "Thyme") }
    #expect(throws: HouseholdError.blankName(" ")) { try phone.renameIngredient(basil, to: " ") }
  }

  /// A template's name at creation is its key, which no one chose: another device's later
  /// first use of the ingredient keeps the respelling (property seed 1324768572279165244).
  @Test func aFirstUseElsewhereKeepsARespelling() throws {
    var phone = try owner()
    // The tablet's clock is later: its first use of basil comes after the respelling.
    var tablet = HouseholdReplica(
      state: phone.state, member: sam,
      clock: HybridClock(replica: "tablet", wallClock: .fixed(9_000)))
    let basil = try phone.getOrCreateIngredient(named: "basil").template.key
    try phone.renameIngredient(basil, to: "Basil")
    try tablet.recordUse(ofIngredient: "basil")
    try sync(&phone, &tablet)
    #expect(phone.ingredient(basil)?.displayName == "Basil")
  }

  /// Editing an item's line to another ingredient moves it to that template and its category;
  /// another quantity of the same ingredient keeps both.
  @Test func anEditedItemFollowsTheIngredientItNames() throws {
    var phone = try owner()
    let list = try phone.createWeeklyList(name: "This Week").id
    let bakery = try phone.getOrCreateCategory(displayName: "Bakery").category.key
    let pantry = try phone.getOrCreateCategory(displayName: "Pantry").category.key
    try phone.getOrCreateIngredient(named: "bread", category: bakery)
    try phone.getOrCreateIngredient(named: "flour", category: pantry)
    let item = try phone.addItem("2 cups flour", to: list).id
    #expect(phone.item(item)?.categoryKey == pantry)
    try phone.editItem(item, text: "3 cups flour")
    #expect(phone.item(item)?.displayName == "3 cups flour")
    #expect(phone.item(item)?.categoryKey == pantry)
    try phone.editItem(item, text: "1 loaf bread")
    #expect(phone.item(item)?.templateKey == IngredientKey(normalizing: "bread"))
    #expect(phone.item(item)?.categoryKey == bakery)
    try phone.setCategory(nil, ofItem: item)
    #expect(phone.item(item)?.categoryKey == nil)
    try phone.removeItem(item)
    #expect(phone.item(item) == nil)
    #expect(phone.items(in: list).isEmpty)
  }

  /// An edit the removal had not seen keeps the item (update wins), on both devices.
  @Test func anItemRemovedWhileAnotherDeviceEditsItStays() throws {
    var phone = try owner()
    let list = try phone.createWeeklyList(name: "This Week").id
    let item = try phone.addItem("milk", to: list).id
    var tablet = try tablet(from: phone)
    try phone.removeItem(item)
    try tablet.setChecked(true, item: item)
    try sync(&phone, &tablet)
    #expect(phone.item(item)?.isChecked == true)
  }

  @Test func aRecipeIsRenamedRewrittenAndDeleted() throws {
    var phone = try owner()
    let recipe = try phone.addRecipe(title: "Chilli", ingredientLines: ["beans"]).recipe.id
    try phone.renameRecipe(recipe, to: "Chili con Carne")
    #expect(phone.recipe(recipe)?.titleKey == RecipeTitleKey(normalizing: "chili con carne"))
    #expect(phone.findSimilarRecipes(title: "CHILI CON CARNE!").map(\.id) == [recipe])
    #expect(phone.findSimilarRecipes(title: "Chilli").isEmpty)
    try phone.setIngredientLines(["beans", "2 onions"], ofRecipe: recipe)
    #expect(phone.recipe(recipe)?.ingredientLines == ["beans", "2 onions"])
    #expect(throws: HouseholdError.blankName("")) { try phone.renameRecipe(recipe, to: "") }
    try phone.deleteRecipe(recipe)
    #expect(phone.recipe(recipe) == nil)
    #expect(phone.recipes().isEmpty)
  }

  /// A deleted recipe leaves the slots it was planned in: the slot shows the other recipe
  /// assigned to it, or nothing, and is free to assign; so does an assignment another device
  /// made before it merged the deletion.
  @Test func aDeletedRecipeLeavesItsSlots() throws {
    var phone = try owner()
    let chili = try phone.addRecipe(title: "Chili").recipe.id
    let soup = try phone.addRecipe(title: "Soup").recipe.id
    let monday = try #require(SlotKey(rawValue: "2026-01-05-dinner"))
    let tuesday = try #require(SlotKey(rawValue: "2026-01-06-dinner"))
    var tablet = try tablet(from: phone)
    try phone.assignRecipe(chili, to: monday)
    try tablet.assignRecipe(soup, to: monday)
    try tablet.assignRecipe(chili, to: tuesday)
    try phone.deleteRecipe(chili)
    try sync(&phone, &tablet)
    for replica in [phone, tablet] {
      #expect(replica.plannedMeal(monday)?.recipe == soup)
      #expect(replica.plannedMeal(monday)?.conflictingRecipes == [])
      #expect(replica.plannedMeal(tuesday) == nil)
      #expect(replica.plannedMeals().map(\.slotKey) == [monday])
      #expect(replica.conflictedSlots().isEmpty)
    }
    // The slot the deleted recipe held is free: a bare assignment takes it.
    let stew = try phone.addRecipe(title: "Stew").recipe.id
    #expect(try phone.assignRecipe(stew, to: tuesday).recipe == stew)
  }

  @Test func listsAndPlansAreRenamedAndDeleted() throws {
    var phone = try owner()
    let list = try phone.createWeeklyList(name: "Week 1").id
    let plan = try phone.createMealPlan(name: "This Week").id
    try phone.renameWeeklyList(list, to: "Week 2")
    try phone.renameMealPlan(plan, to: "Meal Prep Ideas")
    #expect(phone.weeklyLists().map(\.displayName) == ["Week 2"])
    #expect(phone.mealPlans().map(\.displayName) == ["Meal Prep Ideas"])
    #expect(throws: HouseholdError.blankName("")) { try phone.renameWeeklyList(list, to: "") }
    try phone.deleteWeeklyList(list)
    try phone.deleteMealPlan(plan)
    #expect(phone.weeklyLists().isEmpty && phone.mealPlans().isEmpty)
  }

  /// Two devices reordering offline converge, per category, on the later position.
  @Test func categoriesAreReorderedAndConverge() throws {
    var phone = try owner()
    try phone.seedDefaultCategories()
    var tablet = try tablet(from: phone)
    let keys = phone.categories().map(\.key)
    try phone.reorderCategories(keys.reversed())
    #expect(phone.categories().map(\.key) == keys.reversed())
    // Later on the tablet: only Frozen moves, to the front.
    var later = HouseholdReplica(
      state: tablet.state, member: sam,
      clock: HybridClock(replica: "tablet", wallClock: .fixed(2_000)))
    try later.setSortOrder(-1, ofCategory: keys[5])
    tablet = later
    try sync(&phone, &tablet)
    let expected = [keys[5]] + keys.reversed().filter { $0 != keys[5] }
    #expect(phone.categories().map(\.key) == expected)
    #expect(phone.categories().first?.normalizedName == keys[5])
  }

  /// Deleting a category uncategorizes its templates and items, and a template another device
  /// shelves in it before merging the deletion reads as uncategorized too, on both devices.
  @Test func aDeletedCategoryLeavesItsTemplatesAndItemsUncategorized() throws {
    var phone = try owner()
    let list = try phone.createWeeklyList(name: "This Week").id
    let dairy = try phone.getOrCreateCategory(displayName: "Dairy").category.key
    let milk = try phone.getOrCreateIngredient(named: "milk", category: dairy).template.key
    let item = try phone.addItem("2 litres milk", to: list).id
    var tablet = try tablet(from: phone)
    try phone.deleteCategory(dairy)
    #expect(phone.category(dairy) == nil)
    #expect(phone.ingredient(milk)?.categoryKey == nil)
    #expect(phone.item(item)?.categoryKey == nil)
    let butter = try tablet.getOrCreateIngredient(named: "butter", category: dairy).template.key
    let cream = try tablet.addItem("cream", to: list).id
    try tablet.setCategory(dairy, ofItem: cream)
    try sync(&phone, &tablet)
    for replica in [phone, tablet] {
      #expect(replica.categories().isEmpty)
      #expect(replica.ingredient(milk)?.categoryKey == nil)
      #expect(replica.ingredient(butter)?.categoryKey.flatMap(replica.category) == nil)
      #expect(replica.item(cream)?.categoryKey.flatMap(replica.category) == nil)
      #expect(replica.state.invariantViolations().isEmpty)
    }
  }

  /// Sharing scope: the record's creator or the household's owner may change it.
  @Test func onlyACreatorOrTheOwnerChangesWhoSeesARecord() throws {
    var phone = try owner()
    let recipe = try phone.addRecipe(title: "Chili").recipe.id
    try phone.setSharingScope(.ownerOnly, of: .recipe(recipe))
    #expect(phone.recipe(recipe)?.sharingScope == .ownerOnly)
    var alexsTablet = try joined("tablet", from: phone, member: alex)
    #expect(throws: HouseholdError.notRecordOwner(member: alex, record: .recipe(recipe))) {
      try alexsTablet.setSharingScope(.household, of: .recipe(recipe))
    }
    let soup = try alexsTablet.addRecipe(title: "Soup").recipe.id
    try alexsTablet.setSharingScope(.ownerOnly, of: .recipe(soup))
    try phone.merge(alexsTablet.state)
    // The owner may change Alex's recipe too.
    try phone.setSharingScope(.household, of: .recipe(soup))
    #expect(phone.recipe(soup)?.sharingScope == .household)
  }

  /// The seeds' semantic names are on the records.
  @Test func recordsCarryTheirSemanticNames() throws {
    var phone = try owner()
    let category = try phone.getOrCreateCategory(displayName: " Frozen\u{00A0}Foods").category
    #expect(category.normalizedName == CategoryKey(normalizing: "frozen foods"))
    let template = try phone.getOrCreateIngredient(named: "2 cups Fresh Basil").template
    #expect(template.canonicalName.rawValue == "basil")
    let recipe = try phone.addRecipe(title: "Banana Bread!").recipe
    #expect(recipe.titleKey == RecipeTitleKey(normalizing: "banana bread"))
    let slot = try #require(SlotKey(rawValue: "2026-01-05-dinner"))
    #expect(try phone.assignRecipe(recipe.id, to: slot).slotKey == slot)
  }
}
