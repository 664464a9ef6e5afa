import SemanticCRDT

extension HouseholdReplica {
  /// Saves a new recipe. Never blocked: a recipe with the same title key is allowed, and the
  /// similar recipes are returned so the app can tell the person.
  ///
  /// - Returns: The new recipe and the recipes similar to it (see ``findSimilarRecipes(title:)``).
  @discardableResult
  public mutating func addRecipe(
    title: String, ingredientLines: [String] = [], id: RecipeID = RecipeID()
  ) throws(HouseholdError) -> (recipe: Recipe, similar: [Recipe]) {
    try requireOpen()
    let similar = findSimilarRecipes(title: title)
    let recipe = Recipe(
      id: id, title: title, ingredientLines: ingredientLines, creation: creation())
    state.recipes.set(recipe.id, to: recipe, by: replicaID)
    return (recipe, similar)
  }

  /// Recipes whose title key equals `title`'s, most used first, then newest first.
  ///
  /// - Complexity: O(*r*) over all recipes.
  public func findSimilarRecipes(title: String) -> [Recipe] {
    let key = RecipeTitleKey(normalizing: title)
    return state.recipes.values.filter { $0.titleKey == key }.sorted(by: Recipe.isMoreUsedOrNewer)
  }

  /// The recipe with `id`, if any.
  public func recipe(_ id: RecipeID) -> Recipe? { state.recipes[id] }

  /// Every recipe, most used first, then newest first.
  public func recipes() -> [Recipe] {
    state.recipes.values.sorted(by: Recipe.isMoreUsedOrNewer)
  }

  /// Counts one use of a recipe; uses on every device add up.
  public mutating func recordUse(ofRecipe id: RecipeID) throws(HouseholdError) {
    try requireOpen()
    guard state.recipes.contains(id) else { throw .unknownRecipe(id) }
    let replica = replicaID
    edit(\.recipes, id) { $0.uses.increment(replica: replica) }
  }
}

extension Recipe {
  /// The app's recipe order: most used first, then newest first (then by id, so equal
  /// recipes still order the same on every device).
  static func isMoreUsedOrNewer(_ a: Recipe, _ b: Recipe) -> Bool {
    (b.usageCount, b.createdAt, b.id) < (a.usageCount, a.createdAt, a.id)
  }
}

extension HouseholdReplica {
  /// Creates a weekly list. Lists have no uniqueness: a household may keep several for a week.
  @discardableResult
  public mutating func createWeeklyList(name: String, id: WeeklyListID = WeeklyListID())
    throws(HouseholdError) -> WeeklyList
  {
    try requireOpen()
    let list = WeeklyList(id: id, name: name, creation: creation())
    state.lists.set(list.id, to: list, by: replicaID)
    return list
  }

  /// Deletes a list and removes its items for good, so a household that makes and deletes a
  /// list every week does not grow. Items another device adds to it concurrently are not seen
  /// by this removal and survive a merge (add-wins), hidden while the list is deleted (cascade
  /// at read time: nothing dangles, nothing crashes).
  ///
  /// - Complexity: O(*i*) over all items.
  public mutating func deleteWeeklyList(_ id: WeeklyListID) throws(HouseholdError) {
    try requireOpen()
    state.lists.remove(id)
    for item in state.items.keys.filter({ state.items[$0]?.listID == id }) {
      state.items.remove(item)
    }
  }

  /// Every list, newest first.
  public func weeklyLists() -> [WeeklyList] {
    state.lists.values.sorted {
      ($1.createdAt, $1.id) < ($0.createdAt, $0.id)
    }
  }

  /// Adds an item to a list, creating (or finding) its ingredient template by canonical name.
  ///
  /// - Parameters:
  ///   - text: The line as written, quantity included ("2 cups flour").
  ///   - list: The list; it must exist.
  ///   - source: A recipe, a manual entry or a staple.
  ///   - id: The item's id; a fresh one by default (an import or a test names its own).
  @discardableResult
  public mutating func addItem(
    _ text: String, to list: WeeklyListID, source: ItemSource = .manual,
    id: GroceryItemID = GroceryItemID()
  ) throws(HouseholdError) -> GroceryListItem {
    try requireOpen()
    guard state.lists.contains(list) else { throw .unknownList(list) }
    let template = try getOrCreateIngredient(named: text).template
    let item = GroceryListItem(
      id: id, listID: list, source: source, text: text, template: template.key,
      category: template.categoryKey, creation: creation())
    state.items.set(item.id, to: item, by: replicaID)
    return item
  }

  /// Adds every ingredient line of a recipe to a list, and counts a use of the recipe. Lines
  /// that show nothing (an empty line between sections) name no ingredient and are skipped.
  @discardableResult
  public mutating func addItems(fromRecipe id: RecipeID, to list: WeeklyListID)
    throws(HouseholdError) -> [GroceryListItem]
  {
    guard let recipe = state.recipes[id] else { throw .unknownRecipe(id) }
    var added: [GroceryListItem] = []
    for line in recipe.ingredientLines where !isBlank(line) {
      added.append(try addItem(line, to: list, source: .recipe(id)))
    }
    try recordUse(ofRecipe: id)
    return added
  }

  /// Checks or unchecks an item; last write wins.
  public mutating func setChecked(_ checked: Bool, item id: GroceryItemID) throws(HouseholdError) {
    try requireOpen()
    let stamp = clock.tick()
    edit(\.items, id) { $0.checked.assign(checked, at: stamp) }
  }

  /// The items of a list in creation order; none when the list does not exist (or was deleted).
  ///
  /// - Complexity: O(*i*) over all items.
  public func items(in list: WeeklyListID) -> [GroceryListItem] {
    guard state.lists.contains(list) else { return [] }
    return state.items.values.filter { $0.listID == list }
      .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
  }

  /// A list's items grouped by ingredient template: "2 cups flour" from one recipe, "1 cup
  /// flour" from another and a typed "flour" form one group. A query, not a merge: the items
  /// stay separate records.
  public func consolidatedItems(in list: WeeklyListID) -> [(
    template: IngredientKey, items: [GroceryListItem]
  )] {
    Dictionary(grouping: items(in: list), by: \.templateKey)
      .map { (template: $0.key, items: $0.value) }
      .sorted { $0.template < $1.template }
  }
}
