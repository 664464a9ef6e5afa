import SemanticCRDT

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
    let shelf = try liveCategory(orNone: category)
    let template = IngredientTemplate(
      key: key, category: shelf, creation: creation())
    write(\.ingredients, key, template)
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

  /// Marks the template for `name` as a staple (or not), creating it if absent; last write
  /// wins.
  public mutating func setStaple(_ isStaple: Bool, ingredient name: String) throws(HouseholdError) {
    let key = try getOrCreateIngredient(named: name).template.key
    try setStaple(isStaple, ofIngredient: key)
  }

  /// Marks a template as a staple (or not); last write wins.
  ///
  /// - Throws: ``HouseholdError/unknownIngredient(_:)`` when no template has `key`.
  public mutating func setStaple(_ isStaple: Bool, ofIngredient key: IngredientKey)
    throws(HouseholdError)
  {
    try requireIngredient(key)
    let stamp = clock.tick()
    edit(\.ingredients, key) { $0.staple.assign(isStaple, at: stamp) }
  }

  /// Shelves a template in a category, or in none; last write wins. The grocery items already
  /// made from it keep their own category (see ``HouseholdReplica/setCategory(_:ofItem:)``).
  ///
  /// - Parameter category: The category's key, or a key it had before a rename; `nil` for
  ///   none.
  /// - Throws: ``HouseholdError/unknownIngredient(_:)`` when no template has `key`,
  ///   ``HouseholdError/unknownCategory(_:)`` when no category has `category`.
  public mutating func setCategory(_ category: CategoryKey?, ofIngredient key: IngredientKey)
    throws(HouseholdError)
  {
    try requireIngredient(key)
    let shelf = try liveCategory(orNone: category)
    let stamp = clock.tick()
    edit(\.ingredients, key) { $0.category.assign(shelf, at: stamp) }
  }

  /// Changes how a template's name is shown ("Basil" for the template created as "basil");
  /// last write wins. The name must keep the template's canonical name: the template is keyed
  /// by it, and a different ingredient is a different template.
  ///
  /// - Throws: ``HouseholdError/unknownIngredient(_:)`` when no template has `key`,
  ///   ``HouseholdError/blankName(_:)`` for a name that shows nothing, and
  ///   ``HouseholdError/ingredientRenameChangesKey(name:key:becomes:)`` when `displayName`
  ///   names another ingredient.
  public mutating func renameIngredient(_ key: IngredientKey, to displayName: String)
    throws(HouseholdError)
  {
    try requireIngredient(key)
    try requireVisible(displayName)
    let named = IngredientKey(normalizing: displayName, version: state.normalizerVersion)
    guard named == key else {
      throw .ingredientRenameChangesKey(name: displayName, key: key, becomes: named)
    }
    let stamp = clock.tick()
    edit(\.ingredients, key) { $0.name.assign(displayName, at: stamp) }
  }

  /// Refuses an edit of a template that does not exist.
  func requireIngredient(_ key: IngredientKey) throws(HouseholdError) {
    try requireOpen()
    guard state.ingredients.contains(key) else { throw .unknownIngredient(key) }
  }
}
