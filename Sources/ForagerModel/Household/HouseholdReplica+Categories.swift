import SemanticCRDT

extension HouseholdReplica {
  /// The seven categories every household starts with, in their sort order. The app's
  /// requirements name no list; these are the common grocery-store sections
  /// (docs/household-model.md).
  public static let defaultCategoryNames = [
    "Produce", "Dairy", "Meat & Seafood", "Bakery", "Pantry", "Frozen", "Household",
  ]

  /// Creates the default categories that do not exist yet.
  ///
  /// Idempotent on every device: the defaults are keyed by name, so two devices that seed
  /// before their first sync (the race of the seed's debugging log) merge to seven categories,
  /// not fourteen.
  ///
  /// - Returns: The number of categories created here.
  @discardableResult
  public mutating func seedDefaultCategories() throws(HouseholdError) -> Int {
    var created = 0
    for (order, name) in Self.defaultCategoryNames.enumerated() {
      if try getOrCreateCategory(displayName: name, sortOrder: order).created { created += 1 }
    }
    return created
  }

  /// The category with `displayName`'s key, created if absent. Never creates a second record
  /// for one key.
  ///
  /// - Parameters:
  ///   - displayName: The name as typed; its ``CategoryKey`` identifies the category.
  ///   - sortOrder: The position of a new category; ignored for an existing one.
  /// - Returns: The category, and whether this call created it.
  /// - Throws: ``HouseholdError/blankName(_:)`` for a name that shows nothing.
  /// - Complexity: O(1): one hash lookup, plus one insert when absent.
  @discardableResult
  public mutating func getOrCreateCategory(displayName: String, sortOrder: Int = 100)
    throws(HouseholdError) -> (category: Category, created: Bool)
  {
    try requireOpen()
    try requireVisible(displayName)
    let key = CategoryKey(normalizing: displayName, version: state.normalizerVersion)
    if let existing = state.resolvedCategory(key).flatMap({ state.categories[$0] }) {
      return (existing, false)
    }
    let category = Category(
      key: key, displayName: displayName, sortOrder: sortOrder, creation: creation())
    state.categories.set(key, to: category, by: replicaID)
    return (category, true)
  }

  /// The category named `displayName` (by its key), or the one it was renamed to, if any.
  ///
  /// - Complexity: O(1), plus one lookup per rename to follow.
  public func category(named displayName: String) -> Category? {
    category(CategoryKey(normalizing: displayName, version: state.normalizerVersion))
  }

  /// The category with `key`, or the one a category with that key was renamed to, if any.
  ///
  /// References to categories (a template's, an item's) keep the key they were written with;
  /// this lookup follows the renames since, so no reference dangles.
  public func category(_ key: CategoryKey) -> Category? {
    state.resolvedCategory(key).flatMap { state.categories[$0] }
  }

  /// Every category, by sort order then display name, then key for equal names.
  ///
  /// - Complexity: O(*n* log *n*).
  public func categories() -> [Category] {
    state.categories.values.sorted {
      ($0.sortOrder, $0.displayName, $0.key) < ($1.sortOrder, $1.displayName, $1.key)
    }
  }

  /// Renames a category.
  ///
  /// A new spelling of the same name ("dairy" for "Dairy") keeps the key and changes the
  /// display name. A new name is a new semantic key, so the category **moves**: the record goes
  /// to the new key and the move is recorded, so that references written with the old key
  /// (templates, items, on any device) lead to it, and looking up the old name finds it.
  ///
  /// What a merge does with renames made on other devices (see docs/household-model.md):
  /// a category created under the new name concurrently becomes one record with the renamed
  /// one; two devices renaming one category to different names leave one category under each
  /// name, and references follow the later rename.
  ///
  /// - Parameters:
  ///   - key: The category's key, or a key it had before a rename.
  ///   - displayName: The new name.
  /// - Throws: ``HouseholdError/blankName(_:)`` for a name that shows nothing,
  ///   ``HouseholdError/unknownCategory(_:)`` when no category has (or had) `key`, and
  ///   ``HouseholdError/categoryNameTaken(name:by:)`` when another category has the new name;
  ///   nothing changes then.
  /// - Complexity: O(1) hash lookups.
  public mutating func renameCategory(_ key: CategoryKey, to displayName: String)
    throws(HouseholdError)
  {
    try requireOpen()
    try requireVisible(displayName)
    guard let current = state.resolvedCategory(key), var record = state.categories[current] else {
      throw .unknownCategory(key)
    }
    let target = CategoryKey(normalizing: displayName, version: state.normalizerVersion)
    let stamp = clock.tick()
    guard target != current else {
      edit(\.categories, current) { $0.name.assign(displayName, at: stamp) }
      return
    }
    if let holder = state.resolvedCategory(target), holder != current {
      throw .categoryNameTaken(name: displayName, by: holder)
    }
    record.key = target
    record.name.assign(displayName, at: stamp)
    state.categories.remove(current)
    state.categories.set(target, to: record, by: replicaID)
    state.moves.set(current, to: LWWRegister(target, at: stamp), by: replicaID)
  }
}

extension HouseholdReplica {
  /// The ingredient template for `name`'s canonical name, created if absent. A recipe line
  /// ("2 cups Fresh Basil") and a typed name ("basil") find the same template.
  ///
  /// - Parameters:
  ///   - name: An ingredient as written; its ``IngredientKey`` identifies the template.
  ///   - category: Where a new template is shelved; ignored for an existing one.
  /// - Returns: The template, and whether this call created it.
  /// - Throws: ``HouseholdError/blankName(_:)`` for a name that shows nothing,
  ///   ``HouseholdError/unknownCategory(_:)`` for a category that does not exist.
  /// - Complexity: O(1): one hash lookup, plus one insert when absent.
  @discardableResult
  public mutating func getOrCreateIngredient(named name: String, category: CategoryKey? = nil)
    throws(HouseholdError) -> (template: IngredientTemplate, created: Bool)
  {
    try requireOpen()
    try requireVisible(name)
    let key = IngredientKey(normalizing: name, version: state.normalizerVersion)
    if let existing = state.ingredients[key] { return (existing, false) }
    var shelf: CategoryKey?
    if let category {
      guard let resolved = state.resolvedCategory(category) else {
        throw .unknownCategory(category)
      }
      shelf = resolved
    }
    let template = IngredientTemplate(
      key: key, displayName: key.rawValue, category: shelf, creation: creation())
    state.ingredients.set(key, to: template, by: replicaID)
    return (template, true)
  }

  /// The template for `name`'s canonical name, if any.
  ///
  /// - Complexity: O(*n*) in the length of the name, then O(1).
  public func ingredient(named name: String) -> IngredientTemplate? {
    state.ingredients[IngredientKey(normalizing: name, version: state.normalizerVersion)]
  }

  /// The template with `key`, if any.
  public func ingredient(_ key: IngredientKey) -> IngredientTemplate? { state.ingredients[key] }

  /// Every template, by display name then key.
  public func ingredients() -> [IngredientTemplate] {
    state.ingredients.values.sorted {
      ($0.displayName, $0.key) < ($1.displayName, $1.key)
    }
  }

  /// Counts one use of the template (creating it if absent). Uses on every device add up.
  @discardableResult
  public mutating func recordUse(ofIngredient name: String) throws(HouseholdError)
    -> IngredientTemplate
  {
    let key = try getOrCreateIngredient(named: name).template.key
    let replica = replicaID
    edit(\.ingredients, key) { $0.uses.increment(replica: replica) }
    return state.ingredients[key]!
  }

  /// Marks a template as a staple (or not); last write wins.
  public mutating func setStaple(_ isStaple: Bool, ingredient name: String) throws(HouseholdError) {
    let key = try getOrCreateIngredient(named: name).template.key
    let stamp = clock.tick()
    edit(\.ingredients, key) { $0.staple.assign(isStaple, at: stamp) }
  }
}
