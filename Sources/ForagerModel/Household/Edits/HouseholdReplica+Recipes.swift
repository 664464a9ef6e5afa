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
    try requireVisible(title)
    let similar = findSimilarRecipes(title: title)
    let recipe = Recipe(
      id: id, title: title, ingredientLines: ingredientLines, creation: creation())
    write(\.recipes, recipe.id, recipe)
    return (recipe, similar)
  }

  /// Recipes whose title key equals `title`'s, most used first, then newest first.
  ///
  /// - Complexity: O(*r*) over all recipes.
  public func findSimilarRecipes(title: String) -> [Recipe] {
    let key = RecipeTitleKey(normalizing: title)
    // Each title is read where its recipe is stored; only the matches are copied out.
    var similar: [Recipe] = []
    state.recipes.forEachBoxedValue { _, box in
      if box.value.titleKey == key { similar.append(box.value) }
    }
    return Recipe.mostUsedOrNewestFirst(similar)
  }

  /// The recipe with `id`, if any.
  public func recipe(_ id: RecipeID) -> Recipe? { state.recipes[id] }

  /// Every recipe, most used first, then newest first.
  public func recipes() -> [Recipe] {
    Recipe.mostUsedOrNewestFirst(state.recipes.values)
  }

  /// Counts one use of a recipe, now: uses on every device add up, and its last use
  /// (``Recipe/lastUsed``) moves forward to now, never back.
  ///
  /// - Throws: ``HouseholdError/unknownRecipe(_:)`` when no recipe has `id`.
  public mutating func recordUse(ofRecipe id: RecipeID) throws(HouseholdError) {
    try requireRecipe(id)
    let replica = replicaID
    let now = Int64(clock.tick().wallMilliseconds)
    edit(\.recipes, id) {
      $0.uses.increment(replica: replica)
      $0.lastUse.raise(to: now)
    }
  }

  /// Renames a recipe; the last write wins, and ``Recipe/titleKey`` follows the title, so
  /// ``findSimilarRecipes(title:)`` finds it by its new name.
  ///
  /// - Throws: ``HouseholdError/unknownRecipe(_:)`` when no recipe has `id`,
  ///   ``HouseholdError/blankName(_:)`` for a title that shows nothing.
  public mutating func renameRecipe(_ id: RecipeID, to title: String) throws(HouseholdError) {
    try requireRecipe(id)
    try requireVisible(title)
    let stamp = clock.tick()
    edit(\.recipes, id) { $0.title.assign(title, at: stamp) }
  }

  /// Replaces a recipe's ingredient lines; the last write wins (the lines are one value: two
  /// devices editing them offline keep one device's list whole, never a mix).
  ///
  /// - Throws: ``HouseholdError/unknownRecipe(_:)`` when no recipe has `id`.
  public mutating func setIngredientLines(_ lines: [String], ofRecipe id: RecipeID)
    throws(HouseholdError)
  {
    try requireRecipe(id)
    let stamp = clock.tick()
    edit(\.recipes, id) { $0.lines.assign(lines, at: stamp) }
  }

  /// Deletes a recipe. Slots it was planned in show the other recipes assigned to them, or
  /// nothing; an assignment another device makes concurrently is hidden the same way when
  /// read. An edit another device makes concurrently (a rename, a use) keeps the recipe
  /// (an edit the deletion had not seen survives it, as for every record). Items added from
  /// it stay on their lists.
  ///
  /// - Throws: ``HouseholdError/unknownRecipe(_:)`` when no recipe has `id`.
  public mutating func deleteRecipe(_ id: RecipeID) throws(HouseholdError) {
    try requireRecipe(id)
    remove(\.recipes, id)
  }

  /// Refuses an edit of a recipe that does not exist.
  func requireRecipe(_ id: RecipeID) throws(HouseholdError) {
    try requireOpen()
    guard state.recipes.contains(id) else { throw .unknownRecipe(id) }
  }
}

extension Recipe {
  /// `recipes` in the app's recipe order: most used first, then newest first (then by id, so
  /// equal recipes still order the same on every device).
  ///
  /// - Complexity: O(*r* log *r*) comparisons of keys read once per recipe: a use count sums
  ///   every device's uses, too dear to read at each comparison.
  static func mostUsedOrNewestFirst(_ recipes: some Collection<Recipe>) -> [Recipe] {
    let recipes = Array(recipes)
    let orders = recipes.map { ($0.usageCount, $0.createdAt, $0.id) }
    // The sort moves positions, not recipes: moving a recipe copies (and retains) each of its
    // fields, at every step of the sort. `addRecipe` sorts the recipes similar to each new one.
    return recipes.indices.sorted { orders[$1] < orders[$0] }.map { recipes[$0] }
  }
}
