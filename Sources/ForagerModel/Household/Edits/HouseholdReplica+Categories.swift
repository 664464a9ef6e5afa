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
  /// before their first sync (the race that gave the old app fourteen) merge to seven
  /// categories.
  ///
  /// - Returns: The number of categories created here.
  @discardableResult
  public mutating func seedDefaultCategories() throws(HouseholdError) -> Int {
    var created = 0
    for (order, name) in Self.defaultCategoryNames.enumerated() {
      if try getOrCreateCategory(displayName: name, sortOrder: Int64(order), chosen: false).created
      {
        created += 1
      }
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
  public mutating func getOrCreateCategory(displayName: String, sortOrder: Int64 = 100)
    throws(HouseholdError) -> (category: GroceryCategory, created: Bool)
  {
    try getOrCreateCategory(displayName: displayName, sortOrder: sortOrder, chosen: true)
  }

  /// ``getOrCreateCategory(displayName:sortOrder:)``; a creation `chosen` by no one (the
  /// defaults) stamps its name and position at genesis (see
  /// ``HouseholdState/showsCategory(at:)``).
  private mutating func getOrCreateCategory(displayName: String, sortOrder: Int64, chosen: Bool)
    throws(HouseholdError) -> (category: GroceryCategory, created: Bool)
  {
    try requireOpen()
    try requireVisible(displayName)
    let key = CategoryKey(normalizing: displayName, version: state.normalizerVersion)
    if let existing = state.resolvedCategory(key).flatMap({ state.categories[$0] }) {
      // Left as it is, default or not: a write here would bring back a category a person
      // renamed away on a device this one has not heard from yet (ADR 0013).
      return (existing, false)
    }
    let creation = creation()
    var category = GroceryCategory(
      key: key, displayName: displayName, sortOrder: sortOrder, creation: creation,
      chosenAt: chosen ? creation.timestamp : HouseholdState.genesis)
    if !chosen { category.seeded.raise(to: 1) }
    write(\.categories, key, category)
    return (category, true)
  }

  /// The category named `displayName` (by its key), or the one it was renamed to, if any.
  ///
  /// - Complexity: O(1), plus one lookup per rename to follow.
  public func category(named displayName: String) -> GroceryCategory? {
    category(CategoryKey(normalizing: displayName, version: state.normalizerVersion))
  }

  /// The category with `key`, or the one a category with that key was renamed to, if any.
  ///
  /// References to categories (a template's, an item's) keep the key they were written with;
  /// this lookup follows the renames since, so no reference dangles.
  public func category(_ key: CategoryKey) -> GroceryCategory? {
    state.resolvedCategory(key).flatMap { state.categories[$0] }
  }

  /// Every category, by sort order then display name, then key for equal names.
  ///
  /// - Complexity: O(*n* log *n*).
  public func categories() -> [GroceryCategory] {
    state.categories.values.filter { state.showsCategory(at: $0.key) }.sorted {
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
    let current = try liveCategory(key)
    guard var record = state.categories[current] else { throw .unknownCategory(key) }
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
    remove(\.categories, current)
    write(\.categories, target, record)
    noteWrite(
      state.moves.set(current, to: LWWRegister(target, at: stamp), by: replicaID), in: \.moves,
      showing: .household)
  }
}

extension HouseholdReplica {
  /// Moves a category to `sortOrder` among the others; the last write wins.
  ///
  /// - Throws: ``HouseholdError/unknownCategory(_:)`` when no category has (or had) `key`.
  /// - Complexity: O(1) hash lookups.
  public mutating func setSortOrder(_ sortOrder: Int64, ofCategory key: CategoryKey)
    throws(HouseholdError)
  {
    let current = try liveCategory(key)
    let stamp = clock.tick()
    edit(\.categories, current) { $0.order.assign(sortOrder, at: stamp) }
  }

  /// Puts categories in the order given: the first gets sort order 0, the next 1, and so on.
  /// Categories not listed keep theirs. Each position is a last-writer-wins write, so two
  /// devices reordering offline converge on, per category, the later of the two positions.
  ///
  /// - Throws: ``HouseholdError/unknownCategory(_:)`` for the first key no category has (or
  ///   had); nothing changes then.
  /// - Complexity: O(*k*) hash lookups for *k* keys.
  public mutating func reorderCategories(_ keys: [CategoryKey]) throws(HouseholdError) {
    var current: [CategoryKey] = []
    for key in keys { current.append(try liveCategory(key)) }
    let stamp = clock.tick()
    for (order, key) in current.enumerated() {
      edit(\.categories, key) { $0.order.assign(Int64(order), at: stamp) }
    }
  }

  /// Deletes a category. The templates and items shelved in it become uncategorized: each is
  /// written `nil` now, and a reference another device writes concurrently (shelving a
  /// template in the category before it merges this deletion) resolves to no category when
  /// read, on every device alike. A category created again under the same name later is a new
  /// category, and references that were never cleared lead to it.
  ///
  /// - Throws: ``HouseholdError/unknownCategory(_:)`` when no category has (or had) `key`.
  /// - Complexity: O(*t* + *i*) over all templates and items.
  public mutating func deleteCategory(_ key: CategoryKey) throws(HouseholdError) {
    let current = try liveCategory(key)
    let stamp = clock.tick()
    // In key order: each edit takes the next dot, and the order of a hash table differs
    // from one table to the next, so that the same deletion would mint different dots.
    let templates = state.ingredients.keys.filter {
      state.ingredients[$0]?.categoryKey.flatMap(state.resolvedCategory) == current
    }.sorted()
    let items = state.items.keys.filter {
      state.items[$0]?.categoryKey.flatMap(state.resolvedCategory) == current
    }.sorted()
    remove(\.categories, current)
    for template in templates {
      edit(\.ingredients, template) { $0.category.assign(nil, at: stamp) }
    }
    for item in items {
      edit(\.items, item) { $0.category.assign(nil, at: stamp) }
    }
  }

  /// The key the live category `key` leads to, for an edit of it.
  func liveCategory(_ key: CategoryKey) throws(HouseholdError) -> CategoryKey {
    try requireOpen()
    guard let current = state.resolvedCategory(key) else { throw .unknownCategory(key) }
    return current
  }

  /// The live key `category` leads to, or `nil` for none; throws for a category that does not
  /// exist.
  func liveCategory(orNone category: CategoryKey?) throws(HouseholdError) -> CategoryKey? {
    guard let category else { return nil }
    return try liveCategory(category)
  }
}
