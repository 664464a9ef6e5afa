import ForagerSync
import Foundation
import SemanticCRDT

/// A write an operation made, named before its dot and stamps are read back.
enum PendingWrite {
  case record(RecordKey)
  case field(FieldRef)
  /// An increment of the counter by this device, or a legacy record's count it imported
  /// (counted under that record's own replica id).
  case increment(CounterRef, from: ReplicaID? = nil)
  case assignment(SlotKey, RecipeID)

  /// The writes that create `record`: the record and each field it is created with.
  static func creation(of record: RecordKey) -> [PendingWrite] {
    [.record(record)] + FieldRef.fields(of: record).map(PendingWrite.field)
  }
}

extension Simulation {
  /// The device makes one change a person would make, drawn from the app's workload.
  ///
  /// - Parameter acknowledged: `false` when a crash cuts the save short: the change is made in
  ///   memory and then lost, so nothing is logged.
  mutating func performOperation(on index: Int, acknowledged: Bool = true) {
    acknowledging = acknowledged
    defer { acknowledging = true }
    report.operations += 1
    guard devices[index].launched else {
      launch(index)
      return
    }
    if replica(index).isDissolved { return refuseChange(on: index) }
    if runsNewerBuild(on: index), random.chance(0.15) { return editShelf(on: index) }
    switch random.int(in: 0..<124) {
    case 0..<10:
      createCategory(random.pick(random.pick(Vocabulary.categories)), on: index)
    case 10..<14: renameCategory(on: index)
    case 14..<27: useIngredient(on: index)
    case 27..<30: shelveIngredient(on: index)
    case 30..<35: setStaple(on: index)
    case 35..<41: addRecipe(on: index)
    case 41..<46: useRecipe(on: index)
    case 46..<50: createList(on: index)
    case 50..<52: deleteList(on: index)
    case 52..<64: addItem(on: index)
    case 64..<68: addItemsFromRecipe(on: index)
    case 68..<75: setChecked(on: index)
    case 75..<78: createPlan(on: index)
    case 78..<79: deletePlan(on: index)
    case 79..<90: assign(to: random.pick(Vocabulary.slots), on: index)
    case 90..<94: clearSlot(on: index)
    case 94..<97: reassignSlot(on: index)
    case 97..<100: changeMembers(on: index)
    default: editRecord(on: index)
    }
  }

  /// First launch: seed the default categories (some devices do it before their first sync).
  mutating func launch(_ index: Int) {
    devices[index].launched = true
    let absent = HouseholdReplica.defaultCategoryNames.map {
      CategoryKey(normalizing: $0)
    }.filter { !replica(index).state.categories.contains($0) }
    attempt(index) { replica throws(HouseholdError) in try replica.seedDefaultCategories() }
    var pending: [PendingWrite] = []
    for key in absent where replica(index).state.categories.contains(key) {
      pending += PendingWrite.creation(of: .category(key))
    }
    for name in HouseholdReplica.defaultCategoryNames {
      legacyGetOrCreate(
        .category, name: name, key: CategoryKey(normalizing: name).rawValue, on: index)
    }
    commit(index, "seeds the default categories", pending)
  }

  mutating func createCategory(_ name: String, on index: Int) {
    let result = attempt(index) { replica throws(HouseholdError) in
      try replica.getOrCreateCategory(displayName: name)
    }
    legacyGetOrCreate(
      .category, name: name, key: CategoryKey(normalizing: name).rawValue, on: index)
    guard let result, result.created else {
      return commit(index, "finds category \(name.debugDescription)", [])
    }
    let key = result.category.key
    commit(
      index, "creates category \(name.debugDescription)",
      PendingWrite.creation(of: .category(key)))
  }

  /// Renames a present category: mostly to another spelling of its name (the key stays),
  /// sometimes to another name, which moves it to that key, or is refused when another
  /// category holds it (ADR 0012).
  mutating func renameCategory(on index: Int) {
    let categories = replica(index).categories()
    guard !categories.isEmpty else { return }
    let category = random.pick(categories)
    let spellings =
      Vocabulary.categories.first { CategoryKey(normalizing: $0[0]) == category.key }
      ?? [category.displayName]
    let newName =
      switch random.int(in: 0..<10) {
      case 0..<6: random.pick(spellings)
      case 6..<8: random.pick(random.pick(Vocabulary.categories))
      default: random.pick(Vocabulary.categoryRenames)
      }
    let target = CategoryKey(normalizing: newName)
    if target != category.key, let holder = replica(index).category(target) {
      guard holder.key != category.key else { return }
      // Taken: the rename must be refused, with nothing changed.
      expectRefusal(index, .categoryNameTaken(name: newName, by: holder.key)) {
        replica throws(HouseholdError) in try replica.renameCategory(category.key, to: newName)
      }
      return commit(
        index, "cannot rename \(category.key.rawValue) to \(newName.debugDescription)", [])
    }
    attempt(index) { replica throws(HouseholdError) in
      try replica.renameCategory(category.key, to: newName)
    }
    guard target != category.key else {
      return commit(
        index, "renames \(category.key.rawValue) to \(newName.debugDescription)",
        [.field(.categoryName(category.key))])
    }
    commit(
      index, "moves \(category.key.rawValue) to \(newName.debugDescription)",
      PendingWrite.creation(of: .category(target)), removing: [.category(category.key)])
  }

  mutating func useIngredient(on index: Int) {
    let name = random.pick(random.pick(Vocabulary.ingredients))
    let key = IngredientKey(normalizing: name)
    let before = replica(index).state.ingredients
    attempt(index) { replica throws(HouseholdError) in try replica.recordUse(ofIngredient: name) }
    let template = legacyGetOrCreate(.ingredient, name: name, key: key.rawValue, on: index)
    legacyUse(template, on: index)
    commit(
      index, "uses \(name.debugDescription)",
      createdTemplates([key], before: before) + [.increment(.ingredientUses(key))])
  }

  /// Gets or creates an ingredient shelved under a category the device shows (a template
  /// that exists keeps its category).
  mutating func shelveIngredient(on index: Int) {
    let categories = replica(index).categories()
    guard !categories.isEmpty else { return useIngredient(on: index) }
    let name = random.pick(random.pick(Vocabulary.ingredients))
    let category = random.pick(categories).key
    let before = replica(index).state.ingredients
    attempt(index) { replica throws(HouseholdError) in
      try replica.getOrCreateIngredient(named: name, category: category)
    }
    legacyGetOrCreate(
      .ingredient, name: name, key: IngredientKey(normalizing: name).rawValue, on: index)
    commit(
      index, "shelves \(name.debugDescription) in \(RecordKey.category(category))",
      createdTemplates([IngredientKey(normalizing: name)], before: before))
  }

  mutating func setStaple(on index: Int) {
    let name = random.pick(random.pick(Vocabulary.ingredients))
    let key = IngredientKey(normalizing: name)
    let before = replica(index).state.ingredients
    let staple = random.chance(0.5)
    attempt(index) { replica throws(HouseholdError) in
      try replica.setStaple(staple, ingredient: name)
    }
    commit(
      index, "marks \(key.rawValue) \(staple ? "a staple" : "not a staple")",
      createdTemplates([key], before: before) + [.field(.staple(key))])
  }

  mutating func addRecipe(on index: Int) {
    let title = random.pick(random.pick(Vocabulary.recipeTitles))
    let lines = (0..<random.int(in: 1...4)).map { _ in
      random.pick(random.pick(Vocabulary.ingredients))
    }
    addRecipe(title, lines: lines, on: index)
  }

  @discardableResult
  mutating func addRecipe(_ title: String, lines: [String], on index: Int) -> RecipeID {
    let id = RecipeID(uuid: nextUUID())
    attempt(index) { replica throws(HouseholdError) in
      try replica.addRecipe(title: title, ingredientLines: lines, id: id)
    }
    devices[index].legacy.addRecipe(id, title: title, at: now(index), by: index)
    commit(index, "adds recipe \(title.debugDescription)", PendingWrite.creation(of: .recipe(id))) {
      $0.recipes.append(id)
    }
    return id
  }

  mutating func useRecipe(on index: Int) {
    let household = devices[index].household
    guard let id = pickPresent(created[household].recipes, on: index, \.recipes) else { return }
    attempt(index) { replica throws(HouseholdError) in try replica.recordUse(ofRecipe: id) }
    legacyUse(id.uuid, on: index)
    commit(index, "cooks \(RecordKey.recipe(id))", [.increment(.recipeUses(id))])
  }

  mutating func createList(on index: Int) {
    let id = WeeklyListID(uuid: nextUUID())
    let name = "Week \(step)"
    attempt(index) { replica throws(HouseholdError) in
      try replica.createWeeklyList(name: name, id: id)
    }
    commit(index, "creates \(RecordKey.list(id))", PendingWrite.creation(of: .list(id))) {
      $0.lists.append(id)
    }
  }

  mutating func deleteList(on index: Int) {
    let household = devices[index].household
    guard let id = pickPresent(created[household].lists, on: index, \.lists) else { return }
    let items = replica(index).state.items
    let removed = items.keys.filter { items[$0]?.listID == id }.sorted().map(RecordKey.item)
    attempt(index) { replica throws(HouseholdError) in try replica.deleteWeeklyList(id) }
    commit(
      index, "deletes \(RecordKey.list(id)) and its items", [], removing: [.list(id)] + removed)
  }

  mutating func addItem(on index: Int) {
    let household = devices[index].household
    guard let list = pickPresent(created[household].lists, on: index, \.lists) else {
      return createList(on: index)
    }
    let text = random.pick(random.pick(Vocabulary.ingredients))
    let key = IngredientKey(normalizing: text)
    let before = replica(index).state.ingredients
    let id = GroceryItemID(uuid: nextUUID())
    attempt(index) { replica throws(HouseholdError) in
      try replica.addItem(text, to: list, id: id)
    }
    commit(
      index, "adds \(text.debugDescription) to \(RecordKey.list(list))",
      createdTemplates([key], before: before) + PendingWrite.creation(of: .item(id))
    ) { $0.items.append(id) }
  }

  mutating func addItemsFromRecipe(on index: Int) {
    let household = devices[index].household
    guard let list = pickPresent(created[household].lists, on: index, \.lists),
      let recipe = pickPresent(created[household].recipes, on: index, \.recipes)
    else { return }
    let before = replica(index).state.ingredients
    // The items' ids from the run's seed, so that a seed's run adds the same items every time.
    let lines = replica(index).state.recipes[recipe]?.ingredientLines.count ?? 0
    var ids = (0..<lines).map { _ in GroceryItemID(uuid: Self.uuid(from: &itemIDs)) }
      .makeIterator()
    let items =
      attempt(index) { replica throws(HouseholdError) in
        try replica.addItems(fromRecipe: recipe, to: list) { ids.next() ?? GroceryItemID() }
      } ?? []
    var pending = createdTemplates(items.map(\.templateKey), before: before)
    pending += items.flatMap { PendingWrite.creation(of: .item($0.id)) }
    pending.append(.increment(.recipeUses(recipe)))
    legacyUse(recipe.uuid, on: index)
    commit(
      index, "adds the ingredients of \(RecordKey.recipe(recipe)) to \(RecordKey.list(list))",
      pending
    ) {
      $0.items += items.map(\.id)
    }
  }

  mutating func setChecked(on index: Int) {
    let household = devices[index].household
    guard let id = pickShownItem(created[household].items, on: index) else { return }
    let checked = random.chance(0.7)
    attempt(index) { replica throws(HouseholdError) in try replica.setChecked(checked, item: id) }
    commit(
      index, "\(checked ? "checks" : "unchecks") \(RecordKey.item(id))", [.field(.checked(id))])
  }

  mutating func createPlan(on index: Int) {
    let name = "Plan \(step)"
    let id = MealPlanID(uuid: nextUUID())
    guard
      let plan = attempt(
        index,
        { replica throws(HouseholdError) in
          try replica.createMealPlan(name: name, id: id)
        })
    else { return }
    commit(index, "creates \(RecordKey.plan(plan.id))", PendingWrite.creation(of: .plan(plan.id))) {
      $0.plans.append(plan.id)
    }
  }

  mutating func deletePlan(on index: Int) {
    let household = devices[index].household
    guard let id = pickPresent(created[household].plans, on: index, \.plans) else { return }
    let meals = replica(index).state.meals
    let removed = meals.keys.filter { meals[$0]?.mealPlanID == id }.sorted().map(RecordKey.meal)
    attempt(index) { replica throws(HouseholdError) in try replica.deleteMealPlan(id) }
    commit(
      index, "deletes \(RecordKey.plan(id)) and its meals", [], removing: [.plan(id)] + removed)
  }

  /// Adds a recipe of its own and assigns it to `slot` (the `slot-conflict` script).
  mutating func assignOwnRecipe(_ title: String, to slot: SlotKey, on index: Int) {
    let recipe = addRecipe(title, lines: [], on: index)
    assign(recipe, to: slot, on: index, replacing: false)
  }

  mutating func assign(_ recipe: RecipeID, to slot: SlotKey, on index: Int, replacing: Bool) {
    // The recipe a bare assignment must not replace, if the slot shows one.
    let occupant =
      replacing
      ? nil
      : replica(index).plannedMeal(slot)?.recipe.flatMap {
        $0 == recipe ? nil : $0
      }
    if let occupant {
      let title = replica(index).recipe(occupant)!.displayName
      expectRefusal(index, .slotOccupied(slot, by: occupant, title: title)) {
        replica throws(HouseholdError) in try replica.assignRecipe(recipe, to: slot)
      }
    }
    // Half the meals go into a plan the device shows, which deleting the plan deletes.
    let household = devices[index].household
    let plan =
      occupant == nil && random.chance(0.5)
      ? pickPresent(created[household].plans, on: index, \.plans) : nil
    if occupant == nil {
      attempt(index) { replica throws(HouseholdError) in
        try replica.assignRecipe(recipe, to: slot, in: plan, replacing: replacing)
      }
    }
    devices[index].legacy.assign(
      recipe, to: slot, replacing: replacing, newID: nextUUID(), at: now(index), by: index)
    if occupant != nil { return commit(index, "finds \(slot) occupied", []) }
    // An assignment replaces every assignment of the slot its device had seen.
    commit(
      index,
      "assigns \(RecordKey.recipe(recipe)) to \(slot)"
        + (plan.map { " in \(RecordKey.plan($0))" } ?? "") + (replacing ? ", replacing" : ""),
      [.assignment(slot, recipe)]
        + (plan == nil ? [] : [.field(FieldRef(record: .meal(slot), key: "plan"))]),
      removing: [.meal(slot)])
  }

  /// Clears a slot and assigns it again: the meal is created anew while other devices may be
  /// assigning the slot they saw (the composition ADR 0011 is about).
  mutating func reassignSlot(on index: Int) {
    let household = devices[index].household
    let slot = random.pick(Vocabulary.slots)
    guard replica(index).plannedMeal(slot) != nil,
      let recipe = pickPresent(created[household].recipes, on: index, \.recipes)
    else { return assign(to: slot, on: index) }
    attempt(index) { replica throws(HouseholdError) in try replica.clearSlot(slot) }
    devices[index].legacy.clear(slot, at: now(index), by: index)
    commit(index, "clears \(slot) to assign it again", [], removing: [.meal(slot)])
    assign(recipe, to: slot, on: index, replacing: false)
  }

  /// Assigns a present recipe to `slot`, or adds a recipe when the device knows none.
  mutating func assign(to slot: SlotKey, on index: Int) {
    guard let recipe = pickPresent(created[devices[index].household].recipes, on: index, \.recipes)
    else { return addRecipe(on: index) }
    assign(recipe, to: slot, on: index, replacing: random.chance(0.3))
  }

  mutating func clearSlot(on index: Int) {
    let slot = random.pick(Vocabulary.slots)
    guard replica(index).state.meals.contains(slot) else {
      return expectRefusal(index, .emptySlot(slot)) { replica throws(HouseholdError) in
        try replica.clearSlot(slot)
      }
    }
    attempt(index) { replica throws(HouseholdError) in try replica.clearSlot(slot) }
    devices[index].legacy.clear(slot, at: now(index), by: index)
    commit(index, "clears \(slot)", [], removing: [.meal(slot)])
  }

  /// The owner adds a guest or removes one, imports the old app's export, or (in the last
  /// twentieth of the run) dissolves the household; another member's device imports, or (rarely) its member leaves.
  mutating func changeMembers(on index: Int) {
    let household = devices[index].household
    let member = devices[index].member
    if random.chance(0.3) { return importLegacy(on: index) }
    guard replica(index).owner == member else {
      guard random.chance(0.05), replica(index).state.members.contains(member) else { return }
      attempt(index) { replica throws(HouseholdError) in try replica.leave() }
      return commit(index, "leaves the household", [], removing: [.member(member)])
    }
    // A household ends only near the end of a run, so that it is not cut short.
    if step > stepsRun * 19 / 20, random.chance(0.1) {
      attempt(index) { replica throws(HouseholdError) in try replica.dissolve() }
      return commit(index, "dissolves the household", [])
    }
    if random.chance(0.5),
      let guest = pickPresent(created[household].guests, on: index, \.members)
    {
      attempt(index) { replica throws(HouseholdError) in try replica.removeMember(guest) }
      return commit(index, "removes \(RecordKey.member(guest))", [], removing: [.member(guest)])
    }
    let guest = MemberID(uuid: nextUUID())
    attempt(index) { replica throws(HouseholdError) in try replica.addMember(guest, name: "Guest") }
    commit(index, "adds \(RecordKey.member(guest))", [.record(.member(guest))]) {
      $0.guests.append(guest)
    }
  }
}

extension Simulation {
  /// A device of a dissolved household tries a change: it must be refused with nothing
  /// changed.
  mutating func refuseChange(on index: Int) {
    let before = replica(index).state
    do {
      try devices[index].replica!.getOrCreateCategory(displayName: "After the end")
      unexpectedFailures.append("step \(step): \(name(index)) changed a dissolved household")
    } catch {
      if error != .householdDissolved(before.householdID) || replica(index).state != before {
        unexpectedFailures.append(
          "step \(step): \(name(index)): a dissolved household refused with \(error)")
      }
    }
    report.refusedAfterDissolving += 1
  }

  /// Imports the household's legacy export (the same on each of its devices, so imports
  /// collide): the records it creates, and each legacy record's count, must survive.
  mutating func importLegacy(on index: Int) {
    let household = devices[index].household
    let export = LegacyExports.export(forHousehold: household)
    let before = replica(index).state
    let replicaID = replica(index).replicaID
    do {
      try devices[index].replica!.importLegacy(export)
    } catch {
      unexpectedFailures.append("step \(step): \(name(index)): import failed: \(error)")
      return
    }
    let state = replica(index).state
    var pending: [PendingWrite] = []
    pending += state.categories.keys.filter { !before.categories.contains($0) }.sorted()
      .flatMap { PendingWrite.creation(of: .category($0)) }
    // Only templates the import wrote: created, or given a legacy count they lacked.
    for key in state.ingredients.keys.sorted()
    where state.ingredients[key] != before.ingredients[key] {
      pending += createdTemplates([key], before: before.ingredients)
      for contributor in state.ingredients[key]!.uses.contributions.keys.sorted()
      where contributor != replicaID && contributor.rawValue.hasPrefix("legacy:") {
        pending.append(.increment(.ingredientUses(key), from: contributor))
      }
    }
    for id in state.recipes.keys.filter({ !before.recipes.contains($0) }).sorted() {
      pending += PendingWrite.creation(of: .recipe(id))
      for contributor in state.recipes[id]!.uses.contributions.keys.sorted()
      where contributor.rawValue.hasPrefix("legacy:") {
        pending.append(.increment(.recipeUses(id), from: contributor))
      }
    }
    let lists = state.lists.keys.filter { !before.lists.contains($0) }.sorted()
    let items = state.items.keys.filter { !before.items.contains($0) }.sorted()
    pending += lists.flatMap { PendingWrite.creation(of: .list($0)) }
    pending += items.flatMap { PendingWrite.creation(of: .item($0)) }
    commit(index, "imports the old app's export", pending) { created in
      created.recipes += state.recipes.keys.filter {
        !before.recipes.contains($0) && !created.recipes.contains($0)
      }.sorted()
      created.lists += lists.filter { !created.lists.contains($0) }
      created.items += items.filter { !created.items.contains($0) }
    }
  }
}

// MARK: - Helpers

extension Simulation {
  func replica(_ index: Int) -> HouseholdReplica { devices[index].replica! }

  /// The templates among `keys` that the map held before an operation lacked: the operation
  /// created them. Each once, in key order.
  func createdTemplates(
    _ keys: [IngredientKey], before: ORMap<IngredientKey, IngredientTemplate>
  ) -> [PendingWrite] {
    Set(keys).filter { !before.contains($0) }.sorted().flatMap {
      PendingWrite.creation(of: .ingredient($0))
    }
  }

  /// Runs a replica operation that must be refused with `expected`, changing nothing.
  mutating func expectRefusal(
    _ index: Int, _ expected: HouseholdError,
    _ body: (inout HouseholdReplica) throws(HouseholdError) -> Void
  ) {
    let before = replica(index).state
    do {
      try body(&devices[index].replica!)
      unexpectedFailures.append("step \(step): \(name(index)) was not refused with \(expected)")
    } catch {
      if error != expected || replica(index).state != before {
        unexpectedFailures.append(
          "step \(step): \(name(index)): refused with \(error), not \(expected)")
      }
    }
  }

  /// The device's wall clock now, for the old design's modification dates.
  func now(_ index: Int) -> UInt64 { devices[index].wallClock.now() }

  /// One of `ids` (created anywhere in the household) that this device has, if a few tries find
  /// one.
  mutating func pickPresent<ID: Hashable, Value>(
    _ ids: [ID], on index: Int, _ map: KeyPath<HouseholdState, ORMap<ID, Value>>
  ) -> ID? {
    guard !ids.isEmpty else { return nil }
    for _ in 0..<3 {
      // Recent ids are likelier: people work on this week's list.
      let recent = random.chance(0.7) ? max(0, ids.count - 20) : 0
      let id = ids[random.int(in: recent..<ids.count)]
      if replica(index).state[keyPath: map].contains(id) { return id }
    }
    return nil
  }

  /// Runs a replica operation; an error is a failure of the library (the workload only asks
  /// for what the device's state allows).
  @discardableResult
  mutating func attempt<Result>(
    _ index: Int, _ body: (inout HouseholdReplica) throws(HouseholdError) -> Result
  ) -> Result? {
    do {
      return try body(&devices[index].replica!)
    } catch {
      unexpectedFailures.append("step \(step): \(name(index)): \(error)")
      return nil
    }
  }

  @discardableResult
  mutating func legacyGetOrCreate(
    _ kind: LegacyStore.Kind, name: String, key: String, on index: Int
  ) -> UUID {
    devices[index].legacy.getOrCreate(
      kind, name: name, key: key, newID: nextUUID(), at: now(index), by: index)
  }

  mutating func legacyUse(_ id: UUID, on index: Int) {
    devices[index].legacy.recordUse(of: id, at: now(index), by: index)
    if acknowledging { legacyIncrements[devices[index].household] += 1 }
  }

  /// Saves the device after an operation and logs its writes, each with its dot and what the
  /// final state must show of it. Nothing is saved or logged when a crash cuts the save short.
  mutating func commit(
    _ index: Int, _ operation: String, _ pending: [PendingWrite], removing: [RecordKey] = [],
    newIDs: (inout CreatedIDs) -> Void = { _ in }
  ) {
    guard acknowledging else { return }
    noteFailedSave(devices[index].save(), on: index)
    // Removals count only writes logged before this operation, never the ones it makes.
    let firstNewWrite = writes.count
    let state = replica(index).state
    let replicaID = replica(index).replicaID
    let household = devices[index].household
    newIDs(&created[household])
    var touched: [RecordKey] = []
    for write in pending {
      let record: RecordKey
      let effect: WriteEffect
      switch write {
      case .record(let ref):
        record = ref
        effect = .record
      case .field(let field):
        record = field.record
        guard let (stamp, value) = state.field(field) else { continue }
        effect = .field(field, stamp, value: value)
      case .increment(let counter, let contributor):
        record = counter.record
        let contributor = contributor ?? replicaID
        guard let count = state.contributions(counter)?[contributor] else { continue }
        effect = .increment(counter, count: count, from: contributor)
      case .assignment(let slot, let recipe):
        record = .meal(slot)
        let stamps = state.meals[slot]?.assignment.writes.filter {
          $0.value == recipe && $0.timestamp.replica == replicaID
        }.map(\.timestamp)
        guard let stamp = stamps?.max() else { continue }
        effect = .assignment(slot, recipe, stamp)
      }
      guard let dot = state.newestDot(of: record, by: replicaID) else {
        unexpectedFailures.append(
          "step \(step): \(name(index)) \(operation): no write of \(record)")
        continue
      }
      writesByRecord[household][record, default: []].append(writes.count)
      writes.append(
        LoggedWrite(
          household: household, device: index, step: step, operation: operation, record: record,
          dot: dot, effect: effect))
      touched.append(record)
    }
    for record in removing {
      // Only the logged writes of this record that the removal had seen: keeping the map's
      // whole causal context per removal would hold an old copy of it for every removal.
      let context = state.context(of: record)
      let seen = (writesByRecord[household][record] ?? []).filter { $0 < firstNewWrite }
        .map { writes[$0].dot }.filter(context.contains)
      removals.append(
        LoggedRemoval(
          household: household, device: index, step: step, operation: operation, record: record,
          seen: Set(seen).sorted()))
      touched.append(record)
    }
    report.acknowledgedWrites += pending.count + removing.count
    self.record("\(name(index)) \(operation)", device: index, records: touched)
  }
}
