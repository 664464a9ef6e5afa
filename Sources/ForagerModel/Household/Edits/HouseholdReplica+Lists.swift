import SemanticCRDT

extension HouseholdReplica {
  /// Creates a weekly list. Lists have no uniqueness: a household may keep several for a week.
  ///
  /// - Parameters:
  ///   - name: The list's name as a person wrote it.
  ///   - id: The list's id; a fresh one by default (an import or a test names its own).
  /// - Throws: ``HouseholdError/blankName(_:)`` for a name that shows nothing.
  @discardableResult
  public mutating func createWeeklyList(name: String, id: WeeklyListID = WeeklyListID())
    throws(HouseholdError) -> WeeklyList
  {
    try createContainer(\.lists, name: name, id: id)
  }

  /// Renames a list; the last write wins.
  ///
  /// - Throws: ``HouseholdError/unknownList(_:)`` when no list has `id`,
  ///   ``HouseholdError/blankName(_:)`` for a name that shows nothing.
  public mutating func renameWeeklyList(_ id: WeeklyListID, to name: String)
    throws(HouseholdError)
  {
    try renameContainer(\.lists, id, to: name, unknown: .unknownList(id))
  }

  /// Deletes a list and removes its items for good, so a household that makes and deletes a
  /// list every week does not grow. Items another device adds to it concurrently are not seen
  /// by this removal and survive a merge (add-wins), hidden while the list is deleted (cascade
  /// at read time: nothing dangles, nothing crashes).
  ///
  /// - Throws: ``HouseholdError/unknownList(_:)`` when no list has `id`.
  /// - Complexity: O(*i*) over all items.
  public mutating func deleteWeeklyList(_ id: WeeklyListID) throws(HouseholdError) {
    try deleteContainer(
      \.lists, id, unknown: .unknownList(id), children: \.items, parent: \.listID)
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
    write(\.items, item.id, item)
    return item
  }

  /// Adds every ingredient line of a recipe to a list, and counts a use of the recipe. Lines
  /// that show nothing (an empty line between sections) name no ingredient and are skipped.
  ///
  /// - Parameter newItemID: Makes the id of each item added, in the order of the lines: a
  ///   random one by default. A caller that must add the same items on every run (a test, a
  ///   simulation replayed from its seed) passes its own.
  @discardableResult
  public mutating func addItems(
    fromRecipe id: RecipeID, to list: WeeklyListID,
    newItemID: () -> GroceryItemID = { GroceryItemID() }
  ) throws(HouseholdError) -> [GroceryListItem] {
    guard let recipe = state.recipes[id] else { throw .unknownRecipe(id) }
    var added: [GroceryListItem] = []
    for line in recipe.ingredientLines where !isBlank(line) {
      added.append(try addItem(line, to: list, source: .recipe(id), id: newItemID()))
    }
    try recordUse(ofRecipe: id)
    return added
  }

  /// Checks or unchecks an item; last write wins.
  ///
  /// - Throws: ``HouseholdError/unknownItem(_:)`` when no item has `id` (or its list was
  ///   deleted).
  public mutating func setChecked(_ checked: Bool, item id: GroceryItemID) throws(HouseholdError) {
    try requireItem(id)
    let stamp = clock.tick()
    edit(\.items, id) { $0.checked.assign(checked, at: stamp) }
  }

  /// Changes an item's line ("3 cups flour" for "2 cups flour"); the last write wins. The item
  /// follows the ingredient the new line names: its template is found or created by canonical
  /// name, and when that is another template, the item takes that template's category.
  ///
  /// - Throws: ``HouseholdError/unknownItem(_:)`` when no item has `id` (or its list was
  ///   deleted), ``HouseholdError/blankName(_:)`` for a line that shows nothing.
  public mutating func editItem(_ id: GroceryItemID, text: String) throws(HouseholdError) {
    try requireItem(id)
    try requireVisible(text)
    let template = try getOrCreateIngredient(named: text).template
    let stamp = clock.tick()
    edit(\.items, id) { item in
      item.text.assign(text, at: stamp)
      guard template.key != item.templateKey else { return }
      item.template.assign(template.key, at: stamp)
      item.category.assign(template.categoryKey, at: stamp)
    }
  }

  /// Files an item under a category, or none; the last write wins.
  ///
  /// - Parameter category: The category's key, or a key it had before a rename; `nil` for
  ///   none.
  /// - Throws: ``HouseholdError/unknownItem(_:)`` when no item has `id` (or its list was
  ///   deleted), ``HouseholdError/unknownCategory(_:)`` when no category has `category`.
  public mutating func setCategory(_ category: CategoryKey?, ofItem id: GroceryItemID)
    throws(HouseholdError)
  {
    try requireItem(id)
    let shelf = try liveCategory(orNone: category)
    let stamp = clock.tick()
    edit(\.items, id) { $0.category.assign(shelf, at: stamp) }
  }

  /// Removes an item from its list. An edit another device makes to it concurrently keeps it
  /// (an edit the removal had not seen survives it, as for every record).
  ///
  /// - Throws: ``HouseholdError/unknownItem(_:)`` when no item has `id` (or its list was
  ///   deleted).
  public mutating func removeItem(_ id: GroceryItemID) throws(HouseholdError) {
    try requireItem(id)
    remove(\.items, id)
  }

  /// The item with `id`, if any and if its list was not deleted.
  ///
  /// - Complexity: O(1).
  public func item(_ id: GroceryItemID) -> GroceryListItem? {
    guard let item = state.items[id], state.lists.contains(item.listID) else { return nil }
    return item
  }

  /// Refuses an edit of an item that does not show.
  func requireItem(_ id: GroceryItemID) throws(HouseholdError) {
    try requireOpen()
    if item(id) == nil { throw .unknownItem(id) }
  }

  /// The items of a list in creation order; none when the list does not exist (or was deleted).
  ///
  /// - Complexity: O(*i*) over all items.
  public func items(in list: WeeklyListID) -> [GroceryListItem] {
    guard state.lists.contains(list) else { return [] }
    return state.items.values.filter { $0.listID == list }
      .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
  }

  /// A list's items grouped by ingredient template, by key.
  ///
  /// - Complexity: O(*i* log *i*) over all items.
  public func consolidatedItems(in list: WeeklyListID) -> [ConsolidatedItem] {
    Dictionary(grouping: items(in: list), by: \.templateKey)
      .sorted { $0.key < $1.key }
      .map { template, items in
        ConsolidatedItem(
          template: template,
          displayName: state.ingredients[template]?.displayName ?? template.rawValue,
          items: items)
      }
  }

  /// A list's items by category, in the order of ``categories()``, the uncategorized last.
  /// An item shows under the category its reference leads to now (renames followed); one whose
  /// category was deleted shows as uncategorized.
  ///
  /// - Complexity: O(*i* + *c* log *c*) over all items and categories.
  public func itemsByCategory(in list: WeeklyListID) -> [CategorySection] {
    let grouped = Dictionary(grouping: items(in: list)) {
      $0.categoryKey.flatMap(state.resolvedCategory)
    }
    var sections = categories().compactMap { category in
      grouped[category.key].map { CategorySection(category: category, items: $0) }
    }
    if let uncategorized = grouped[nil] {
      sections.append(CategorySection(category: nil, items: uncategorized))
    }
    return sections
  }
}
