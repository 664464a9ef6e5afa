import SemanticCRDT

extension HouseholdReplica {
  /// Creates a meal plan. Plans have no uniqueness ("This Week", "Meal Prep Ideas").
  ///
  /// - Parameters:
  ///   - name: The plan's name as a person wrote it.
  ///   - id: The plan's id; a fresh one by default (an import or a test names its own, as for
  ///     weekly lists).
  /// - Throws: ``HouseholdError/blankName(_:)`` for a name that shows nothing.
  @discardableResult
  public mutating func createMealPlan(name: String, id: MealPlanID = MealPlanID())
    throws(HouseholdError) -> MealPlan
  {
    try createContainer(\.plans, name: name, id: id)
  }

  /// Renames a plan; the last write wins.
  ///
  /// - Throws: ``HouseholdError/unknownMealPlan(_:)`` when no plan has `id`,
  ///   ``HouseholdError/blankName(_:)`` for a name that shows nothing.
  public mutating func renameMealPlan(_ id: MealPlanID, to name: String) throws(HouseholdError) {
    try renameContainer(\.plans, id, to: name, unknown: .unknownMealPlan(id))
  }

  /// Deletes a plan and removes its planned meals for good. A meal another device assigns into
  /// the plan concurrently survives a merge (add-wins), hidden while the plan is deleted
  /// (cascade at read time).
  ///
  /// - Throws: ``HouseholdError/unknownMealPlan(_:)`` when no plan has `id`.
  /// - Complexity: O(*m*) over all planned meals.
  public mutating func deleteMealPlan(_ id: MealPlanID) throws(HouseholdError) {
    try deleteContainer(
      \.plans, id, unknown: .unknownMealPlan(id), children: \.meals, parent: \.mealPlanID)
  }

  /// Every plan, newest first.
  public func mealPlans() -> [MealPlan] {
    state.plans.values.sorted {
      ($1.createdAt, $1.id) < ($0.createdAt, $0.id)
    }
  }

  /// Assigns a recipe to a slot, getting or creating the slot's planned meal.
  ///
  /// When the slot shows another recipe and `replacing` is false, nothing changes and
  /// ``HouseholdError/slotOccupied(_:by:title:)`` names the occupant: a bare call cannot
  /// overwrite a meal by accident. Two devices assigning offline both succeed locally; after the
  /// merge the slot shows a deterministic winner and the other recipe as a conflict, until an
  /// assignment on a device that has seen both resolves it.
  ///
  /// - Parameters:
  ///   - recipe: The recipe; it must exist.
  ///   - slot: The day and meal.
  ///   - plan: The plan the meal belongs to, if any; it must exist.
  ///   - replacing: Whether to replace the recipe the slot shows.
  /// - Returns: The planned meal as it now shows.
  /// - Throws: ``HouseholdError/unknownRecipe(_:)``, ``HouseholdError/unknownMealPlan(_:)``,
  ///   ``HouseholdError/slotOccupied(_:by:title:)``.
  /// - Complexity: O(1) hash lookups.
  @discardableResult
  public mutating func assignRecipe(
    _ recipe: RecipeID, to slot: SlotKey, in plan: MealPlanID? = nil, replacing: Bool = false
  ) throws(HouseholdError) -> PlannedMeal {
    try requireOpen()
    guard state.recipes.contains(recipe) else { throw .unknownRecipe(recipe) }
    if let plan, !state.plans.contains(plan) { throw .unknownMealPlan(plan) }
    if let occupant = plannedMeal(slot)?.recipe, occupant != recipe, !replacing {
      throw .slotOccupied(slot, by: occupant, title: state.recipes[occupant]?.displayName ?? "")
    }
    // A slot that shows nothing is free, even when it holds a hidden meal (its plan was
    // deleted, or every recipe it had): the assignment makes a new meal there, which replaces
    // the hidden one as a new write, as it would on a device that never saw it.
    var meal: PlannedMeal
    if let stored = state.meals[slot], shown(stored) != nil {
      meal = stored
    } else {
      meal = PlannedMeal(slot: slot, plan: plan, creation: creation())
    }
    let stamp = clock.tick()
    meal.assignment.write(recipe, at: stamp)
    if let plan { meal.plan.assign(plan, at: stamp) }
    write(\.meals, slot, meal)
    // It shows: its recipe and plan (if any) exist, and this assignment is its latest.
    return shown(meal) ?? meal
  }

  /// Empties a slot: removes its meal, a hidden one included (whose plan or recipes were
  /// deleted), so that it cannot show again.
  ///
  /// - Throws: ``HouseholdError/emptySlot(_:)`` when the slot holds no meal at all.
  public mutating func clearSlot(_ slot: SlotKey) throws(HouseholdError) {
    try requireOpen()
    guard state.meals.contains(slot) else { throw .emptySlot(slot) }
    remove(\.meals, slot)
  }

  /// The planned meal in `slot` as it shows: `nil` when there is none, when its plan was
  /// deleted, or when every recipe assigned to it was deleted. Assignments of deleted recipes
  /// are left out of ``PlannedMeal/recipe`` and ``PlannedMeal/conflictingRecipes``.
  ///
  /// - Complexity: O(1).
  public func plannedMeal(_ slot: SlotKey) -> PlannedMeal? {
    state.meals[slot].flatMap(shown)
  }

  /// Every planned meal as it shows (see ``plannedMeal(_:)``), by day then meal of the day.
  public func plannedMeals() -> [PlannedMeal] {
    state.meals.values.compactMap(shown).sorted { $0.slot < $1.slot }
  }

  /// The slots holding concurrent assignments.
  public func conflictedSlots() -> [SlotKey] {
    plannedMeals().filter { !$0.conflictingRecipes.isEmpty }.map(\.slot)
  }

  /// The meal as a person sees it: hidden with its deleted plan, without the assignments of
  /// deleted recipes, and hidden when it had assignments and none is left. (A meal with no
  /// recipe at all, as an old app's export may hold, shows as planned.)
  private func shown(_ meal: PlannedMeal) -> PlannedMeal? {
    if let plan = meal.mealPlanID, !state.plans.contains(plan) { return nil }
    var shown = meal
    shown.assignment = meal.assignment.keepingWrites { state.recipes.contains($0) }
    return shown.recipe == nil && meal.recipe != nil ? nil : shown
  }
}
