import ForagerSync
import Testing

/// The groupings a list view shows: items by category in store order, and by ingredient.
@Suite("Item groups")
struct ItemGroupTests {
  @Test func itemsShowUnderTheirCategoryInStoreOrderTheUncategorizedLast() throws {
    var phone = HouseholdReplica.create(
      household: HouseholdID(), owner: MemberID(), ownerName: "Sam", replica: "phone")
    try phone.seedDefaultCategories()
    let produce = try #require(phone.category(named: "Produce")).key
    let dairy = try #require(phone.category(named: "Dairy")).key
    let bakery = try #require(phone.category(named: "Bakery")).key
    let list = try phone.createWeeklyList(name: "This Week").id
    try phone.getOrCreateIngredient(named: "milk", category: dairy)
    try phone.getOrCreateIngredient(named: "lemons", category: produce)
    try phone.getOrCreateIngredient(named: "bread", category: bakery)
    let milk = try phone.addItem("milk", to: list).id
    let bread = try phone.addItem("bread", to: list).id
    let lemons = try phone.addItem("2 lemons", to: list).id
    let candles = try phone.addItem("candles", to: list).id
    let yogurt = try phone.addItem("yogurt", to: list).id
    try phone.setCategory(dairy, ofItem: yogurt)
    try phone.renameCategory(dairy, to: "Milk & Eggs")
    try phone.deleteCategory(bakery)

    let sections = phone.itemsByCategory(in: list)
    #expect(sections.map(\.category?.displayName) == ["Produce", "Milk & Eggs", nil])
    #expect(sections.map { $0.items.map(\.id) } == [[lemons], [milk, yogurt], [bread, candles]])
    #expect(sections.map(\.id) == [produce, CategoryKey(normalizing: "Milk & Eggs"), nil])
  }

  @Test func itemsNamingOneIngredientFormOneGroupUnderItsTemplatesName() throws {
    var phone = HouseholdReplica.create(
      household: HouseholdID(), owner: MemberID(), ownerName: "Sam", replica: "phone")
    let list = try phone.createWeeklyList(name: "This Week").id
    let first = try phone.addItem("2 cups flour", to: list).id
    let second = try phone.addItem("Flour", to: list).id
    let eggs = try phone.addItem("2 eggs", to: list).id
    let flour = IngredientKey(normalizing: "flour")
    try phone.renameIngredient(flour, to: "Flour")
    let groups = phone.consolidatedItems(in: list)
    #expect(groups.map(\.id) == [IngredientKey(normalizing: "eggs"), flour])
    #expect(groups.map(\.displayName) == ["egg", "Flour"])
    #expect(groups.map { $0.items.map(\.id) } == [[eggs], [first, second]])
  }
}
