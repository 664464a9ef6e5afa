import ForagerSync
import SemanticCRDT

extension Simulation {
  /// The device edits a record it shows, as a person tidying up does: a template's category
  /// or spelling, an item's line or category, a recipe, a list's or plan's name; removes an
  /// item or a recipe; reorders or deletes a category; changes who sees a record.
  mutating func editRecord(on index: Int) {
    switch random.int(in: 0..<30) {
    case 0..<3: recategorizeIngredient(on: index)
    case 3..<5: respellIngredient(on: index)
    case 5..<8: editItem(on: index)
    case 8..<10: recategorizeItem(on: index)
    case 10..<12: removeItem(on: index)
    case 12..<15: editRecipe(on: index)
    case 15..<16: deleteRecipe(on: index)
    case 16..<18: renameContainer(on: index)
    case 18..<21: reorderCategories(on: index)
    case 21..<22: deleteCategory(on: index)
    case 22..<24: setSharingScope(on: index)
    default: editDetail(on: index)
    }
  }

  /// Edits one of the details the app's design gives a record (a recipe's instructions, a
  /// meal's notes, a plan's days, a category's color; the one list is ``DetailEdit``), of a
  /// record the device shows; a meal in a slot it shows empty must be refused.
  mutating func editDetail(on index: Int) {
    let household = devices[index].household
    let edit = random.pick(DetailEdit.allCases)
    let value = DetailEdit.Value(
      count: Int64(random.int(in: 1...12)), flag: random.chance(0.5),
      text: random.pick(random.pick(Vocabulary.ingredients)))
    let record: RecordKey?
    switch edit.target {
    case .category: record = categoryOrNone(on: index).map(RecordKey.category)
    case .recipe:
      record = pickPresent(created[household].recipes, on: index, \.recipes).map(RecordKey.recipe)
    case .plan:
      record = pickPresent(created[household].plans, on: index, \.plans).map(RecordKey.plan)
    case .list:
      record = pickPresent(created[household].lists, on: index, \.lists).map(RecordKey.list)
    case .meal:
      let slot = random.pick(Vocabulary.slots)
      guard replica(index).plannedMeal(slot) != nil else {
        return expectRefusal(index, .emptySlot(slot)) { replica throws(HouseholdError) in
          try edit.perform(value, on: .meal(slot), of: &replica)
        }
      }
      record = .meal(slot)
    }
    guard let record else { return }
    attempt(index) { replica throws(HouseholdError) in
      try edit.perform(value, on: record, of: &replica)
    }
    commit(
      index, "\(edit) \(record)", edit.keys.map { .field(FieldRef(record: record, key: $0)) })
  }

  /// A category the device shows, or none (about one time in four).
  mutating func categoryOrNone(on index: Int) -> CategoryKey? {
    let categories = replica(index).categories()
    guard !categories.isEmpty, random.chance(0.75) else { return nil }
    return random.pick(categories).key
  }

  mutating func recategorizeIngredient(on index: Int) {
    let templates = replica(index).ingredients()
    guard !templates.isEmpty else { return useIngredient(on: index) }
    let key = random.pick(templates).key
    let category = categoryOrNone(on: index)
    attempt(index) { replica throws(HouseholdError) in
      try replica.setCategory(category, ofIngredient: key)
    }
    commit(
      index, "shelves \(RecordKey.ingredient(key)) in \(category.map { "\($0)" } ?? "none")",
      [.field(.templateCategory(key))])
  }

  /// Gives a template another spelling of its name: the same ingredient's is accepted, another
  /// ingredient's is refused with nothing changed.
  mutating func respellIngredient(on index: Int) {
    let templates = replica(index).ingredients()
    guard !templates.isEmpty else { return useIngredient(on: index) }
    let key = random.pick(templates).key
    let spellings =
      Vocabulary.ingredients.first { IngredientKey(normalizing: $0[0]) == key } ?? [key.rawValue]
    let name =
      random.chance(0.8) ? random.pick(spellings) : random.pick(random.pick(Vocabulary.ingredients))
    let named = IngredientKey(normalizing: name)
    guard named == key else {
      expectRefusal(index, .ingredientRenameChangesKey(name: name, key: key, becomes: named)) {
        replica throws(HouseholdError) in try replica.renameIngredient(key, to: name)
      }
      return commit(index, "cannot spell \(RecordKey.ingredient(key)) \(name.debugDescription)", [])
    }
    attempt(index) { replica throws(HouseholdError) in try replica.renameIngredient(key, to: name) }
    commit(
      index, "spells \(RecordKey.ingredient(key)) \(name.debugDescription)",
      [.field(.templateName(key))])
  }

  /// Changes an item's line; a line naming another ingredient moves the item to that template
  /// (created if absent) and its category.
  mutating func editItem(on index: Int) {
    let household = devices[index].household
    guard let id = pickShownItem(created[household].items, on: index) else { return }
    let text = random.pick(random.pick(Vocabulary.ingredients))
    let before = replica(index).state.ingredients
    attempt(index) { replica throws(HouseholdError) in try replica.editItem(id, text: text) }
    commit(
      index, "changes \(RecordKey.item(id)) to \(text.debugDescription)",
      createdTemplates([IngredientKey(normalizing: text)], before: before)
        + [.field(.itemText(id)), .field(.itemTemplate(id)), .field(.itemCategory(id))])
  }

  mutating func recategorizeItem(on index: Int) {
    let household = devices[index].household
    guard let id = pickShownItem(created[household].items, on: index) else { return }
    let category = categoryOrNone(on: index)
    attempt(index) { replica throws(HouseholdError) in try replica.setCategory(category, ofItem: id)
    }
    commit(
      index, "files \(RecordKey.item(id)) under \(category.map { "\($0)" } ?? "none")",
      [.field(.itemCategory(id))])
  }

  mutating func removeItem(on index: Int) {
    let household = devices[index].household
    guard let id = pickShownItem(created[household].items, on: index) else { return }
    attempt(index) { replica throws(HouseholdError) in try replica.removeItem(id) }
    commit(index, "removes \(RecordKey.item(id))", [], removing: [.item(id)])
  }

  /// Renames a recipe (to a title of the vocabulary) or rewrites its lines.
  mutating func editRecipe(on index: Int) {
    let household = devices[index].household
    guard let id = pickPresent(created[household].recipes, on: index, \.recipes) else {
      return addRecipe(on: index)
    }
    if random.chance(0.5) {
      let title = random.pick(random.pick(Vocabulary.recipeTitles))
      attempt(index) { replica throws(HouseholdError) in try replica.renameRecipe(id, to: title) }
      return commit(
        index, "renames \(RecordKey.recipe(id)) \(title.debugDescription)",
        [.field(.recipeTitle(id))])
    }
    let lines = (0..<random.int(in: 0...3)).map { _ in
      random.pick(random.pick(Vocabulary.ingredients))
    }
    attempt(index) { replica throws(HouseholdError) in
      try replica.setIngredientLines(lines, ofRecipe: id)
    }
    commit(index, "rewrites the lines of \(RecordKey.recipe(id))", [.field(.recipeLines(id))])
  }

  mutating func deleteRecipe(on index: Int) {
    let household = devices[index].household
    guard let id = pickPresent(created[household].recipes, on: index, \.recipes) else { return }
    attempt(index) { replica throws(HouseholdError) in try replica.deleteRecipe(id) }
    commit(index, "deletes \(RecordKey.recipe(id))", [], removing: [.recipe(id)])
  }

  mutating func renameContainer(on index: Int) {
    let household = devices[index].household
    let name = "Renamed at \(step)"
    if random.chance(0.5), let id = pickPresent(created[household].lists, on: index, \.lists) {
      attempt(index) { replica throws(HouseholdError) in
        try replica.renameWeeklyList(id, to: name)
      }
      return commit(index, "renames \(RecordKey.list(id))", [.field(.listName(id))])
    }
    guard let id = pickPresent(created[household].plans, on: index, \.plans) else { return }
    attempt(index) { replica throws(HouseholdError) in try replica.renameMealPlan(id, to: name) }
    commit(index, "renames \(RecordKey.plan(id))", [.field(.planName(id))])
  }

  /// Drags categories into a new order: all of them shuffled, or one moved to a new position.
  mutating func reorderCategories(on index: Int) {
    var keys = replica(index).categories().map(\.key)
    guard keys.count > 1 else { return }
    if random.chance(0.5) {
      let key = random.pick(keys)
      let order = random.int(in: 0...keys.count)
      attempt(index) { replica throws(HouseholdError) in
        try replica.setSortOrder(Int64(order), ofCategory: key)
      }
      return commit(
        index, "moves \(RecordKey.category(key)) to position \(order)",
        [.field(.categoryOrder(key))])
    }
    for position in keys.indices.reversed() {
      keys.swapAt(position, random.int(in: 0...position))
    }
    attempt(index) { replica throws(HouseholdError) in try replica.reorderCategories(keys) }
    commit(index, "reorders the categories", keys.map { .field(.categoryOrder($0)) })
  }

  /// Deletes a category: the templates and items in it are written uncategorized.
  mutating func deleteCategory(on index: Int) {
    let state = replica(index).state
    guard let key = categoryOrNone(on: index) else { return }
    let templates = state.ingredients.keys.filter {
      state.ingredients[$0]?.categoryKey.flatMap(replica(index).category)?.key == key
    }.sorted()
    let items = state.items.keys.filter {
      state.items[$0]?.categoryKey.flatMap(replica(index).category)?.key == key
    }.sorted()
    attempt(index) { replica throws(HouseholdError) in try replica.deleteCategory(key) }
    commit(
      index, "deletes \(RecordKey.category(key))",
      templates.map { .field(.templateCategory($0)) } + items.map { .field(.itemCategory($0)) },
      removing: [.category(key)])
  }

  /// Makes a record the device's member created private, or shared again; the household's
  /// owner may change any.
  mutating func setSharingScope(on index: Int) {
    let household = devices[index].household
    let candidates: [RecordKey?] = [
      categoryOrNone(on: index).map(RecordKey.category),
      pickPresent(created[household].recipes, on: index, \.recipes).map(RecordKey.recipe),
      pickShownItem(created[household].items, on: index).map(RecordKey.item),
      random.element(of: replica(index).plannedMeals()).map { RecordKey.meal($0.slot) },
    ]
    guard let record = random.pick(candidates) else { return }
    let scope: SharingScope = random.chance(0.5) ? .ownerOnly : .household
    let owner = replica(index).state.scopeOwner(of: record)
    let member = devices[index].member
    guard owner == member || replica(index).owner == member else {
      expectRefusal(index, .notRecordOwner(member: member, record: record)) {
        replica throws(HouseholdError) in try replica.setSharingScope(scope, of: record)
      }
      return commit(index, "cannot change who sees \(record)", [])
    }
    attempt(index) { replica throws(HouseholdError) in
      try replica.setSharingScope(scope, of: record)
    }
    commit(index, "makes \(record) \(scope.rawValue)", [.field(.scope(record))])
  }

  /// One of `ids` that the device shows (present, on a list that was not deleted).
  mutating func pickShownItem(_ ids: [GroceryItemID], on index: Int) -> GroceryItemID? {
    guard let id = pickPresent(ids, on: index, \.items), replica(index).item(id) != nil else {
      return nil
    }
    return id
  }
}

extension HouseholdState {
  /// The member who created `record`, if it is present.
  func scopeOwner(of record: RecordKey) -> MemberID? {
    switch record {
    case .member(let id): members[id]?.owner
    case .category(let key): categories[key]?.owner
    case .ingredient(let key): ingredients[key]?.owner
    case .recipe(let id): recipes[id]?.owner
    case .list(let id): lists[id]?.owner
    case .item(let id): items[id]?.owner
    case .plan(let id): plans[id]?.owner
    case .meal(let slot): meals[slot]?.owner
    }
  }
}
