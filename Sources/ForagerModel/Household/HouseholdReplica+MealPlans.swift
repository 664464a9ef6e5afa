import SemanticCRDT

/// The outcome of assigning a recipe to a slot.
public enum SlotAssignment: Hashable, Sendable {
  /// The slot now holds the recipe.
  case assigned(SlotKey)
  /// The slot already holds another recipe; nothing was changed. Assign again with
  /// `replacing: true` to replace it.
  case occupied(SlotKey, by: RecipeID)
}

extension HouseholdReplica {
  /// Creates a meal plan. Plans have no uniqueness ("This Week", "Meal Prep Ideas").
  ///
  /// - Parameters:
  ///   - name: The plan's name as a person wrote it.
  ///   - id: The plan's id; a fresh one by default (an import or a test names its own, as for
  ///     weekly lists).
  @discardableResult
  public mutating func createMealPlan(name: String, id: MealPlanID = MealPlanID())
    throws(HouseholdError) -> MealPlan
  {
    try requireOpen()
    let plan = MealPlan(id: id, name: name, creation: creation())
    state.plans.set(plan.id, to: plan, by: replicaID)
    return plan
  }

  /// Deletes a plan and removes its planned meals for good. A meal another device assigns into
  /// the plan concurrently survives a merge (add-wins), hidden while the plan is deleted
  /// (cascade at read time).
  ///
  /// - Complexity: O(*m*) over all planned meals.
  public mutating func deleteMealPlan(_ id: MealPlanID) throws(HouseholdError) {
    try requireOpen()
    state.plans.remove(id)
    for slot in state.meals.keys.filter({ state.meals[$0]?.mealPlanID == id }) {
      state.meals.remove(slot)
    }
  }

  /// Every plan, newest first.
  public func mealPlans() -> [MealPlan] {
    state.plans.values.sorted {
      ($1.createdAt, $1.id) < ($0.createdAt, $0.id)
    }
  }

  /// Assigns a recipe to a slot, getting or creating the slot's planned meal.
  ///
  /// When the slot already holds another recipe and `replacing` is false, nothing changes and
  /// the occupant is reported. Two devices assigning offline both succeed locally; after the
  /// merge the slot shows a deterministic winner and the other recipe as a conflict, until an
  /// assignment on a device that has seen both resolves it.
  ///
  /// - Complexity: O(1) hash lookups.
  @discardableResult
  public mutating func assignRecipe(
    _ recipe: RecipeID, to slot: SlotKey, in plan: MealPlanID? = nil, replacing: Bool = false
  ) throws(HouseholdError) -> SlotAssignment {
    try requireOpen()
    guard state.recipes.contains(recipe) else { throw .unknownRecipe(recipe) }
    if let plan, !state.plans.contains(plan) { throw .unknownMealPlan(plan) }
    if let meal = plannedMeal(slot), let occupant = meal.recipe, occupant != recipe, !replacing {
      return .occupied(slot, by: occupant)
    }
    if !state.meals.contains(slot) {
      state.meals.set(
        slot, to: PlannedMeal(slot: slot, plan: plan, creation: creation()), by: replicaID)
    }
    let stamp = clock.tick()
    edit(\.meals, slot) { meal in
      meal.assignment.write(recipe, at: stamp)
      if let plan { meal.plan.assign(plan, at: stamp) }
    }
    return .assigned(slot)
  }

  /// Empties a slot.
  public mutating func clearSlot(_ slot: SlotKey) throws(HouseholdError) {
    try requireOpen()
    state.meals.remove(slot)
  }

  /// The planned meal in `slot`, if any and if its plan was not deleted.
  ///
  /// - Complexity: O(1).
  public func plannedMeal(_ slot: SlotKey) -> PlannedMeal? {
    guard let meal = state.meals[slot], isVisible(meal) else { return nil }
    return meal
  }

  /// Every visible planned meal, by day then meal of the day.
  public func plannedMeals() -> [PlannedMeal] {
    state.meals.values.filter(isVisible).sorted { $0.slot < $1.slot }
  }

  /// The slots holding concurrent assignments.
  public func conflictedSlots() -> [SlotKey] {
    plannedMeals().filter { !$0.conflictingRecipes.isEmpty }.map(\.slot)
  }

  private func isVisible(_ meal: PlannedMeal) -> Bool {
    meal.mealPlanID.map { state.plans.contains($0) } ?? true
  }
}

extension HouseholdReplica {
  /// Every member, owner first, then by name.
  public func members() -> [Member] {
    state.members.values.sorted {
      ($0.role, $0.displayName, $0.id) < ($1.role, $1.displayName, $1.id)
    }
  }

  /// The household's owner.
  public var owner: MemberID? { state.owner.value }

  /// Adds a member. Only the owner may.
  public mutating func addMember(_ id: MemberID, name: String) throws(HouseholdError) {
    try requireOpen()
    try requireOwner(to: "add members")
    state.members.set(
      id, to: Member(id: id, name: name, role: .member, creation: creation()), by: replicaID)
  }

  /// Removes a member. Only the owner may, and not themselves.
  public mutating func removeMember(_ id: MemberID) throws(HouseholdError) {
    try requireOpen()
    try requireOwner(to: "remove members")
    guard id != member else { throw .ownerCannotLeave(id) }
    guard state.members.contains(id) else { throw .notAMember(id) }
    state.members.remove(id)
  }

  /// This replica's member leaves the household. The owner cannot; the owner dissolves it.
  public mutating func leave() throws(HouseholdError) {
    try requireOpen()
    guard owner != member else { throw .ownerCannotLeave(member) }
    guard state.members.contains(member) else { throw .notAMember(member) }
    state.members.remove(member)
  }

  /// Dissolves the household: it takes no more changes on any replica that merges this.
  public mutating func dissolve() throws(HouseholdError) {
    try requireOpen()
    try requireOwner(to: "dissolve the household")
    state.dissolved.assign(true, at: clock.tick())
  }

  /// Whether the household was dissolved.
  public var isDissolved: Bool { state.dissolved.value }

  private func requireOwner(to action: String) throws(HouseholdError) {
    guard owner == member else { throw .notOwner(member: member, action: action) }
  }
}
