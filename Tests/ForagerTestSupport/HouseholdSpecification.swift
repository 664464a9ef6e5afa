import CRDTTestSupport
import ForagerSimulation
import ForagerSync
import SemanticCRDT

extension HouseholdModel {
  /// The specification, from the events alone.
  package static func specification(of seenEvents: [Event<Operation>]) -> Observation {
    Specification(effective(seenEvents)).observation()
  }

  /// What a device that has seen a set of events must show. Each operation's effect follows
  /// from what its device showed: the specification of the events it had seen.
  package final class Specification {
    package typealias History = [Event<Operation>]
    package let events: History
    private let byID: [Int: Event<Operation>]
    /// The list each item named by id is on.
    private let itemLists: [GroceryItemID: WeeklyListID]
    private var pasts: [Int: History] = [:]
    private var views: [Int: Categories] = [:]
    private var targets: [Int: GroceryItemID?] = [:]
    private var categoryEffects: [Int: CategoryEffect] = [:]
    private var shownSlots: [Int: [SlotKey: [RecipeID]]] = [:]
    private var templateCategoryWrites: [Int: [IngredientKey: (HybridTimestamp, CategoryKey?)]] =
      [:]
    private var records: RecordHistory!

    /// The specification this one answers a question of, if any: what a device showed
    /// depends on the events alone, so they share their answers.
    private unowned let root: Specification?

    package init(_ events: History, root: Specification? = nil) {
      self.events = events
      self.root = root
      byID = Dictionary(uniqueKeysWithValues: events.map { ($0.id, $0) })
      var itemLists = Dictionary(uniqueKeysWithValues: Legacy.items.map { ($0.id, Legacy.list) })
      for event in events {
        if case .addItem(_, let list, let id) = event.operation { itemLists[id] = list }
      }
      self.itemLists = itemLists
      records = RecordHistory(
        writes: { [unowned self] in recordWrites(of: $0) },
        removals: { [unowned self] in recordRemovals(of: $0) },
        seen: { [unowned self] in seen(by: $0) })
    }

    /// The events the event's device had seen, in the order they happened.
    package func seen(by event: Event<Operation>) -> History {
      if let known = pasts[event.id] { return known }
      let result = event.observed.sorted().compactMap { byID[$0] }
      pasts[event.id] = result
      return result
    }

    /// The categories the event's device showed.
    package func categories(seenBy event: Event<Operation>) -> Categories {
      if let known = views[event.id] { return known }
      let result = categorySpecification(of: seen(by: event))
      views[event.id] = result
      return result
    }

    // MARK: What a device showed

    /// The slots the event's device showed a meal in, with their recipes.
    package func slotsShown(to event: Event<Operation>) -> [SlotKey: [RecipeID]] {
      if let root { return root.slotsShown(to: event) }
      if let known = shownSlots[event.id] { return known }
      let result = Specification(seen(by: event), root: self).slotSpecification()
      shownSlots[event.id] = result
      return result
    }

    /// The record a detail edit changed, if its device showed one to pick (see
    /// ``HouseholdModel/performDetailEdit(_:index:_:on:)``).
    package func detailRecord(of event: Event<Operation>) -> RecordRef? {
      guard case .editDetail(let edit, let index, _) = event.operation else { return nil }
      let history = seen(by: event)
      switch edit.target {
      case .category: return categoryEffect(of: event).writes.first.map { .category($0) }
      case .recipe: return knownRecipe(index, by: event).map { .recipe($0.id) }
      case .meal:
        let slot = slots[index % slots.count]
        return slotsShown(to: event)[slot] == nil ? nil : .meal(slot)
      case .plan:
        let plan = plans[index % plans.count]
        return planIsPresent(plan, in: history) ? .plan(plan) : nil
      case .list:
        let list = lists[index % lists.count]
        return listIsPresent(list, in: history) ? .list(list) : nil
      }
    }

    /// What an assignment did to its slot's meal record: the slot, and whether it wrote the
    /// meal anew (its device showed none there, or cleared it first), removing what the device
    /// held of it; `nil` when it assigned nothing.
    package func mealWrite(of event: Event<Operation>) -> (slot: SlotKey, anew: Bool)? {
      let index: Int
      let slot: SlotKey
      switch event.operation {
      case .assign(let assigned, let assignedSlot), .assignIfFree(let assigned, let assignedSlot),
        .reassign(let assigned, let assignedSlot):
        (index, slot) = (assigned, assignedSlot)
      default: return nil
      }
      let history = seen(by: event)
      let known = shownRecipes(in: history).map(\.id)
      guard planIsPresent(plan(of: slot), in: history), !known.isEmpty else { return nil }
      let shown = slotsShown(to: event)[slot]
      if case .reassign = event.operation { return (slot, true) }
      if case .assignIfFree = event.operation, let winner = shown?.first,
        winner != known[index % known.count]
      {
        return nil  // Occupied: nothing changes.
      }
      return (slot, shown == nil)
    }

    package func listIsPresent(_ list: WeeklyListID, in history: History) -> Bool {
      list == Legacy.list
        ? history.contains { if case .importLegacy = $0.operation { true } else { false } }
        : records.value(of: .list(list), in: history) != nil
    }

    package func planIsPresent(_ plan: MealPlanID, in history: History) -> Bool {
      records.value(of: .plan(plan), in: history) != nil
    }

    /// The recipes that show after `history`, by id, with their values.
    package func shownRecipes(in history: History) -> [(id: RecipeID, value: RecordValue)] {
      var ids: Set<RecipeID> = []
      for event in history {
        switch event.operation {
        case .addRecipe(_, let id): ids.insert(id)
        case .importLegacy: ids.insert(Legacy.recipe.id)
        default: break
        }
      }
      return ids.sorted().compactMap { id in
        records.value(of: .recipe(id), in: history).map { (id, $0) }
      }
    }

    /// The `index`-th recipe (by id) among those the event's device showed.
    package func knownRecipe(_ index: Int, by event: Event<Operation>) -> (
      id: RecipeID, value: RecordValue
    )? {
      let known = shownRecipes(in: seen(by: event))
      return known.isEmpty ? nil : known[index % known.count]
    }

    /// The templates the event found or created.
    package func templates(of event: Event<Operation>) -> [IngredientKey] {
      switch event.operation {
      case .useIngredient(let name), .setStaple(let name, _), .shelve(let name, _):
        return blankNames.contains(name) ? [] : [IngredientKey(normalizing: name)]
      case .addItem(let text, let list, _):
        return !blankNames.contains(text) && listIsPresent(list, in: seen(by: event))
          ? [IngredientKey(normalizing: text)] : []
      case .editItem(_, let text):
        return !blankNames.contains(text) && target(of: event) != nil
          ? [IngredientKey(normalizing: text)] : []
      case .addRecipeItems(let index, let list):
        guard let recipe = knownRecipe(index, by: event),
          listIsPresent(list, in: seen(by: event))
        else { return [] }
        // Blank lines name no ingredient and are skipped.
        return recipe.value.lines.filter { !blankNames.contains($0) }.map {
          IngredientKey(normalizing: $0)
        }
      case .importLegacy: return Array(Legacy.templates.keys)
      default: return []
      }
    }

    package func knownTemplates(by event: Event<Operation>) -> Set<IngredientKey> {
      Set(seen(by: event).flatMap(templates(of:)))
    }

    /// The category a template is shelved in after `history`, as written (a key a rename may
    /// have moved since), or `nil`.
    package func templateCategory(_ template: IngredientKey, in history: History) -> CategoryKey? {
      var last: (stamp: HybridTimestamp, category: CategoryKey?)?
      for event in history {
        guard let (stamp, category) = templateCategoryWrites(of: event)[template] else {
          continue
        }
        if last.map({ stamp > $0.stamp }) ?? true { last = (stamp, category) }
      }
      return last?.category ?? nil
    }

    /// The manual items the event's device showed, by id: the ones item edits pick from.
    package func manualItems(shownTo event: Event<Operation>) -> [GroceryItemID] {
      let history = seen(by: event)
      return itemRefs(in: history).compactMap { item -> GroceryItemID? in
        guard case .id(let id) = item, isShown(item, in: history) else { return nil }
        return id
      }.sorted()
    }

    /// The item an item edit picked, if any.
    package func target(of event: Event<Operation>) -> GroceryItemID? {
      switch event.operation {
      case .check(let index, _), .editItem(let index, _), .recategorizeItem(let index, _),
        .removeItem(let index):
        if let known = targets[event.id] { return known }
        let items = manualItems(shownTo: event)
        let target = items.isEmpty ? nil : items[index % items.count]
        targets[event.id] = target
        return target
      default: return nil
      }
    }

    /// The items some event of `history` wrote, with the list each is on.
    package func itemRefs(in history: History) -> [ItemRef] {
      var result: [ItemRef] = []
      for event in history {
        switch event.operation {
        case .addItem(_, _, let id): result.append(.id(id))
        case .addRecipeItems:
          for item in records.writes(of: event).keys {
            if case .item(let ref) = item { result.append(ref) }
          }
        case .importLegacy: result += Legacy.items.map { .id($0.id) }
        default: break
        }
      }
      return Array(Set(result))
    }

    package func list(of item: ItemRef) -> WeeklyListID {
      switch item {
      case .id(let id): return itemLists[id]!
      case .recipeLine(let event, _):
        guard case .addRecipeItems(_, let list) = byID[event]!.operation else {
          fatalError("event \(event) added no recipe's items")
        }
        return list
      }
    }

    /// An item shows when its record survives and its list is present.
    package func isShown(_ item: ItemRef, in history: History) -> Bool {
      records.value(of: .item(item), in: history) != nil
        && listIsPresent(list(of: item), in: history)
    }

    // MARK: Writes and removals

    /// The category of the `index`-th category the device showed (in key order), `nil` for
    /// none, or `nil` and `false` when it showed none to pick.
    package func pickedCategory(_ index: Int?, by event: Event<Operation>) -> (
      CategoryKey?, picked: Bool
    ) {
      guard let index else { return (nil, true) }
      let shown = categories(seenBy: event).live.sorted()
      return shown.isEmpty ? (nil, false) : (shown[index % shown.count], true)
    }

    package func templateCategoryWrites(of event: Event<Operation>) -> [IngredientKey: (
      HybridTimestamp, CategoryKey?
    )] {
      if let known = templateCategoryWrites[event.id] { return known }
      var result: [IngredientKey: (HybridTimestamp, CategoryKey?)] = [:]
      switch event.operation {
      case .shelve(let name, let index) where !blankNames.contains(name):
        let key = IngredientKey(normalizing: name)
        let shown = categories(seenBy: event).live.sorted()
        if !knownTemplates(by: event).contains(key), !shown.isEmpty {
          result[key] = (stamp(of: event, tick: 1), shown[index % shown.count])
        }
      case .recategorizeIngredient(let index, let categoryIndex):
        let known = knownTemplates(by: event).sorted()
        let (category, picked) = pickedCategory(categoryIndex, by: event)
        if !known.isEmpty, picked {
          result[known[index % known.count]] = (stamp(of: event, tick: 1), category)
        }
      // The category the deletion removed, as its effect on the categories says.
      case .deleteCategory:
        guard let deleted = categoryEffect(of: event).removes else { break }
        let view = categories(seenBy: event)
        for template in knownTemplates(by: event)
        where templateCategory(template, in: seen(by: event)).flatMap(view.resolved) == deleted {
          result[template] = (stamp(of: event, tick: 1), nil)
        }
      case .importLegacy:
        // A template the device had keeps its category.
        if !knownTemplates(by: event).contains(Legacy.salt) {
          let created = legacyStamp(Legacy.templates[Legacy.salt]!.milliseconds, by: event)
          let pantry = Legacy.stapleAndCategory.category
          result[Legacy.salt] = (created, categories(seenBy: event).resolved(pantry) ?? pantry)
        }
      default: break
      }
      templateCategoryWrites[event.id] = result
      return result
    }

    package func recordRemovals(of event: Event<Operation>) -> Set<RecordRef> {
      let history = seen(by: event)
      switch event.operation {
      case .removeItem:
        return target(of: event).map { [.item(.id($0))] } ?? []
      case .deleteRecipe(let index):
        return knownRecipe(index, by: event).map { [.recipe($0.id)] } ?? []
      case .deleteList(let deleted) where listIsPresent(deleted, in: history):
        // Deleting a list removes every item on it the device held.
        return Set(
          [.list(deleted)]
            + itemRefs(in: history).filter { list(of: $0) == deleted }.map { .item($0) })
      case .deletePlan(let plan) where planIsPresent(plan, in: history):
        // With the plan goes the meal of its slot.
        return [.plan(plan), .meal(slots[plans.firstIndex(of: plan)!])]
      case .clearSlot(let slot), .reassign(_, let slot):
        return [.meal(slot)]
      // Creating a list or plan under an id the device holds writes it anew.
      case .createList(let id): return [.list(id)]
      case .createPlan(let id): return [.plan(id)]
      case .assign, .assignIfFree:
        // A meal written anew replaces every write of it the device held.
        return mealWrite(of: event).flatMap { $0.anew ? [.meal($0.slot)] : nil } ?? []
      case .renameCategory, .deleteCategory:
        return categoryEffect(of: event).removes.map { [.category($0)] } ?? []
      default:
        return []
      }
    }

    package func recordWrites(of event: Event<Operation>) -> [RecordRef: RecordWrite] {
      let history = seen(by: event)
      var result: [RecordRef: RecordWrite] = [:]
      func tick(_ number: UInt32) -> HybridTimestamp { stamp(of: event, tick: number) }
      func createItem(
        _ item: ItemRef, text: String, template: IngredientKey, category: CategoryKey?,
        checked: Bool = false, at stamp: HybridTimestamp
      ) {
        var fields: [(Field, FieldValue)] = [
          (.text, .text(text)), (.template, .template(template)),
        ]
        if let category { fields.append((.category, .category(category))) }
        if checked { fields.append((.checked, .flag(true))) }
        result[.item(item)] = .creating(fields, at: stamp)
      }

      switch event.operation {
      case .addItem(let text, let list, let id)
      where !blankNames.contains(text) && listIsPresent(list, in: history):
        let key = IngredientKey(normalizing: text)
        // Creating the template takes the first tick.
        let known = knownTemplates(by: event).contains(key)
        createItem(
          .id(id), text: text, template: key, category: templateCategory(key, in: history),
          at: tick(known ? 1 : 2))
      case .addRecipeItems(let index, let list):
        guard let recipe = knownRecipe(index, by: event), listIsPresent(list, in: history)
        else { break }
        var templates = knownTemplates(by: event)
        var ticks: UInt32 = 0
        for (line, text) in recipe.value.lines.enumerated() where !blankNames.contains(text) {
          let key = IngredientKey(normalizing: text)
          if templates.insert(key).inserted { ticks += 1 }
          ticks += 1
          createItem(
            .recipeLine(event: event.id, line: line), text: text, template: key,
            category: templateCategory(key, in: history), at: tick(ticks))
        }
        result[.recipe(recipe.id)] = RecordWrite(uses: [event.replica: 1])
      case .check(_, let checked):
        if let item = target(of: event) {
          result[.item(.id(item))] = .editing(.checked, .flag(checked), at: tick(1))
        }
      case .editItem(_, let text) where !blankNames.contains(text):
        guard let item = target(of: event) else { break }
        let key = IngredientKey(normalizing: text)
        let stamp = tick(knownTemplates(by: event).contains(key) ? 1 : 2)
        var write = RecordWrite.editing(.text, .text(text), at: stamp)
        if records.value(of: .item(.id(item)), in: history)?.template != key {
          write.fields += [
            (.template, .template(key), stamp),
            (.category, .category(templateCategory(key, in: history)), stamp),
          ]
        }
        result[.item(.id(item))] = write
      case .recategorizeItem(_, let categoryIndex):
        let (category, picked) = pickedCategory(categoryIndex, by: event)
        if let item = target(of: event), picked {
          result[.item(.id(item))] = .editing(.category, .category(category), at: tick(1))
        }
      case .deleteCategory:
        guard let deleted = categoryEffect(of: event).removes else { break }
        let view = categories(seenBy: event)
        for item in itemRefs(in: history) {
          guard let value = records.value(of: .item(item), in: history),
            value.category.flatMap(view.resolved) == deleted
          else { continue }
          result[.item(item)] = .editing(.category, .category(nil), at: tick(1))
        }
      case .addRecipe(let title, let id):
        result[.recipe(id)] = .creating(
          [(.title, .text(title)), (.lines, .lines(lines(of: title)))], at: tick(1))
      case .useRecipe(let index):
        if let recipe = knownRecipe(index, by: event) {
          result[.recipe(recipe.id)] = RecordWrite(uses: [event.replica: 1])
        }
      case .renameRecipe(let index, let title) where !blankNames.contains(title):
        if let recipe = knownRecipe(index, by: event) {
          result[.recipe(recipe.id)] = .editing(.title, .text(title), at: tick(1))
        }
      case .setRecipeLines(let index, let title):
        if let recipe = knownRecipe(index, by: event) {
          result[.recipe(recipe.id)] = .editing(.lines, .lines(lines(of: title)), at: tick(1))
        }
      case .shareRecipe(let index, let scope):
        if let recipe = knownRecipe(index, by: event) {
          result[.recipe(recipe.id)] = .editing(.scope, .scope(scope), at: tick(1))
        }
      case .createList(let id):
        result[.list(id)] = .creating([(.name, .text("List"))], at: tick(1))
      case .createPlan(let id):
        result[.plan(id)] = .creating([(.name, .text("Plan"))], at: tick(1))
      case .renameList(let id, let name)
      where !blankNames.contains(name) && listIsPresent(id, in: history):
        result[.list(id)] = .editing(.name, .text(name), at: tick(1))
      case .shareList(let id, let scope) where listIsPresent(id, in: history):
        result[.list(id)] = .editing(.scope, .scope(scope), at: tick(1))
      case .renamePlan(let id, let name)
      where !blankNames.contains(name) && planIsPresent(id, in: history):
        result[.plan(id)] = .editing(.name, .text(name), at: tick(1))
      case .importLegacy:
        for item in Legacy.items where records.value(of: .item(.id(item.id)), in: history) == nil {
          let key = IngredientKey(normalizing: item.text)
          createItem(
            .id(item.id), text: item.text, template: key,
            category: templateCategory(key, in: history + [event]),
            checked: item.checked, at: legacyStamp(item.milliseconds, by: event))
        }
        if records.value(of: .recipe(Legacy.recipe.id), in: history) == nil {
          var write = RecordWrite.creating(
            [
              (.title, .text(Legacy.recipe.title)),
              (.lines, .lines(lines(of: Legacy.recipe.title))),
            ],
            at: legacyStamp(Legacy.recipe.milliseconds, by: event))
          write.uses = [Legacy.recipe.replica: Legacy.recipe.uses]
          result[.recipe(Legacy.recipe.id)] = write
        }
      case .editDetail(let edit, _, let value):
        if let record = detailRecord(of: event) {
          result[record] = RecordWrite(
            fields: edit.writes(value, at: tick(1)).map {
              (.detail($0.key), .shown($0.shown), tick(1))
            })
        }
      default: break
      }
      if let (slot, anew) = mealWrite(of: event) {
        result[.meal(slot)] = RecordWrite(start: anew ? .empty : .current)
      }
      for (key, write) in categoryWrites(of: event) { result[.category(key)] = write }
      return result
    }

    /// The writes of the categories' records: creations, moves and positions (names are
    /// followed by the category specification).
    package func categoryWrites(of event: Event<Operation>) -> [CategoryKey: RecordWrite] {
      let effect = categoryEffect(of: event)
      guard !effect.writes.isEmpty else { return [:] }
      let view = categories(seenBy: event)
      var result: [CategoryKey: RecordWrite] = [:]
      switch event.operation {
      case .seedDefaults:
        for (order, name) in HouseholdReplica.defaultCategoryNames.enumerated() {
          let key = CategoryKey(normalizing: name)
          guard effect.writes.contains(key) else { continue }
          // The defaults' fields are no one's choice: stamped at genesis.
          result[key] = .creating([(.order, .order(Int64(order)))], at: HouseholdState.genesis)
        }
      case .createCategory:
        for key in effect.writes {
          result[key] = .creating([(.order, .order(100))], at: stamp(of: event, tick: 1))
        }
      case .importLegacy:
        for (name, milliseconds) in Legacy.categories {
          let key = CategoryKey(normalizing: name)
          guard effect.writes.contains(key) else { continue }
          result[key] = .creating([(.order, .order(100))], at: legacyStamp(milliseconds, by: event))
        }
      case .renameCategory:
        for key in effect.writes {
          // A new spelling is a write of the same record; a move sets the record it moves.
          result[key] = RecordWrite(start: effect.move.map { .from(.category($0.0)) } ?? .current)
        }
      case .reorderCategories(let rotation):
        let shown = view.live.sorted()
        let rotated = shown.indices.map { shown[($0 + rotation) % shown.count] }
        for (order, key) in rotated.enumerated() {
          result[key] = .editing(.order, .order(Int64(order)), at: stamp(of: event, tick: 1))
        }
      default: break
      }
      return result
    }

    package func categoryEffect(of event: Event<Operation>) -> CategoryEffect {
      if let known = categoryEffects[event.id] { return known }
      let result = HouseholdModel.categoryEffect(of: event, view: categories(seenBy: event))
      categoryEffects[event.id] = result
      return result
    }

    package func categorySpecification(of history: History) -> Categories {
      HouseholdModel.categories(after: history, effect: categoryEffect(of:))
    }

    // MARK: The observation

    package func observation() -> Observation {
      var observation = Observation()
      var staples: [IngredientKey: (stamp: HybridTimestamp, value: Bool)] = [:]
      var names: [IngredientKey: (stamp: HybridTimestamp, value: String)] = [:]
      func write<Value>(
        _ value: Value, at stamp: HybridTimestamp, to key: IngredientKey,
        in writes: inout [IngredientKey: (stamp: HybridTimestamp, value: Value)]
      ) {
        if writes[key].map({ stamp > $0.stamp }) ?? true { writes[key] = (stamp, value) }
      }
      let categories = categorySpecification(of: events)

      for event in events {
        for template in templates(of: event) where observation.usage[template] == nil {
          observation.usage[template] = 0
        }
        switch event.operation {
        case .useIngredient(let name) where !blankNames.contains(name):
          observation.usage[IngredientKey(normalizing: name), default: 0] += 1
        case .setStaple(let name, let isStaple) where !blankNames.contains(name):
          // Creating the template takes the first tick.
          let key = IngredientKey(normalizing: name)
          let tick: UInt32 = knownTemplates(by: event).contains(key) ? 1 : 2
          write(isStaple, at: stamp(of: event, tick: tick), to: key, in: &staples)
        case .renameIngredient(let index, let name) where !blankNames.contains(name):
          let known = knownTemplates(by: event).sorted()
          guard !known.isEmpty else { break }
          let template = known[index % known.count]
          if IngredientKey(normalizing: name) == template {
            write(name, at: stamp(of: event, tick: 1), to: template, in: &names)
          }
        case .importLegacy:
          // A template the device had keeps its staple flag.
          if !knownTemplates(by: event).contains(Legacy.salt) {
            let created = legacyStamp(Legacy.templates[Legacy.salt]!.milliseconds, by: event)
            write(true, at: created, to: Legacy.salt, in: &staples)
          }
        default:
          break
        }
      }
      if events.contains(where: { if case .importLegacy = $0.operation { true } else { false } }) {
        // Legacy counts are contributions of their own records: imports never add them twice.
        for (template, legacy) in Legacy.templates {
          observation.usage[template, default: 0] += legacy.uses
        }
      }
      for template in observation.usage.keys {
        observation.ingredientNames[template] = names[template]?.value ?? template.rawValue
        if let shelf = templateCategory(template, in: events).flatMap(categories.resolved) {
          observation.shelves[template] = shelf
        }
      }
      for item in itemRefs(in: events) where isShown(item, in: events) {
        let value = records.value(of: .item(item), in: events)!
        observation.items.append(
          Observation.item(
            value.text!, category: value.category.flatMap(categories.resolved),
            checked: value.isChecked))
      }
      for recipe in shownRecipes(in: events) {
        observation.recipes[recipe.id] = Observation.recipe(
          recipe.value.title!, lines: recipe.value.lines, scope: recipe.value.scope)
        if recipe.value.usageCount > 0 {
          observation.recipeUses[recipe.id] = recipe.value.usageCount
        }
      }
      for list in lists where listIsPresent(list, in: events) {
        let value = records.value(of: .list(list), in: events)!
        observation.containers[list.uuid] = Observation.container(value.name!, scope: value.scope)
      }
      if listIsPresent(Legacy.list, in: events) {
        observation.containers[Legacy.list.uuid] = Observation.container(
          Legacy.listName, scope: .household)
      }
      for plan in plans where planIsPresent(plan, in: events) {
        let value = records.value(of: .plan(plan), in: events)!
        observation.containers[plan.uuid] = Observation.container(value.name!, scope: value.scope)
      }
      for key in categories.live {
        observation.categoryOrders[key] = records.value(of: .category(key), in: events)?.order
      }
      observation.dissolved = events.contains {
        if case .dissolve = $0.operation { true } else { false }
      }
      observation.categories = categories.live
      observation.staples = Set(staples.filter(\.value.value).keys)
      // The owner, and each guest an add of whom no removal has observed (add-wins).
      observation.members = Set(
        [member]
          + guests.filter { guest in
            isPresent(
              in: events, created: { if case .addGuest(guest) = $0 { true } else { false } },
              deleted: { if case .removeGuest(guest) = $0 { true } else { false } })
          })
      observation.slots = slotSpecification()
      func noteDetails(of record: RecordRef, as key: RecordKey) {
        observation.note(details: records.value(of: record, in: events)?.details ?? [:], of: key)
      }
      for key in categories.live { noteDetails(of: .category(key), as: .category(key)) }
      for recipe in shownRecipes(in: events) {
        noteDetails(of: .recipe(recipe.id), as: .recipe(recipe.id))
      }
      for slot in observation.slots.keys { noteDetails(of: .meal(slot), as: .meal(slot)) }
      for plan in plans where planIsPresent(plan, in: events) {
        noteDetails(of: .plan(plan), as: .plan(plan))
      }
      for list in lists where listIsPresent(list, in: events) {
        noteDetails(of: .list(list), as: .list(list))
      }
      observation.items.sort()
      return observation
    }

    /// A slot's meal is a register nested in the map of meals: an assignment replaces the
    /// recipes its device had seen in the slot, clearing removes the meal, and the recipes of
    /// the assignments that survive show (ADR 0011's shared-context rule), newest stamp first,
    /// but for deleted recipes: a meal left with none does not show.
    package func slotSpecification() -> [SlotKey: [RecipeID]] {
      struct Assignment {
        package var recipe: RecipeID
        package var stamp: HybridTimestamp
      }
      /// The recipes the event's device showed, if it could assign `slot` (it had the plan).
      func assignable(_ slot: SlotKey, by event: Event<Operation>) -> [RecipeID] {
        guard planIsPresent(plan(of: slot), in: seen(by: event)) else { return [] }
        return shownRecipes(in: seen(by: event)).map(\.id)
      }
      func clearing(_ slot: SlotKey, as event: Event<Operation>) -> Event<Operation> {
        Event(
          id: event.id, replica: event.replica, operation: .clearSlot(slot),
          timestamp: event.timestamp, observed: event.observed)
      }
      let slotEvents = events.compactMap { event -> Event<Operation>? in
        switch event.operation {
        case .assign, .assignIfFree, .clearSlot: return event
        // Deleting a plan removes its meals: the meal of the plan's slot, as the device saw it.
        case .deletePlan(let deleted) where planIsPresent(deleted, in: seen(by: event)):
          return clearing(slots[plans.firstIndex(of: deleted)!], as: event)
        // With nothing to assign, clearing is all a reassignment does.
        case .reassign(_, let slot) where assignable(slot, by: event).isEmpty:
          return clearing(slot, as: event)
        case .reassign: return event
        // An edit of a meal's detail writes the meal as its device held it: concurrent with
        // a clearing, it keeps the meal and its recipes.
        case .editDetail(let edit, _, _) where edit.target == .meal:
          return detailRecord(of: event) == nil ? nil : event
        default: return nil
        }
      }
      let stores = sharedContextMapSpecification(
        of: slotEvents,
        key: { operation -> String in
          switch operation {
          case .assign(_, let slot), .assignIfFree(_, let slot), .clearSlot(let slot),
            .reassign(_, let slot):
            slot.rawValue
          case .editDetail(_, let index, _): slots[index % slots.count].rawValue
          default: ""
          }
        },
        isRemoval: { if case .clearSlot = $0 { true } else { false } },
        write: { event, past -> CausalItems<Assignment>? in
          let index: Int
          let slot: SlotKey
          var past = past
          switch event.operation {
          case .editDetail: return past
          case .assign(let assigned, let assignedSlot),
            .assignIfFree(let assigned, let assignedSlot):
            (index, slot) = (assigned, assignedSlot)
          // Clearing first leaves nothing of the slot to start from.
          case .reassign(let assigned, let assignedSlot):
            (index, slot) = (assigned, assignedSlot)
            past = nil
          default: return nil
          }
          let known = assignable(slot, by: event)
          guard !known.isEmpty else { return nil }
          let recipe = known[index % known.count]
          // The slot shows the newest assignment of a recipe the device showed.
          let shown = past?.live.values.filter { known.contains($0.recipe) }
          if case .assignIfFree = event.operation,
            let winner = shown?.max(by: { $0.stamp < $1.stamp }), winner.recipe != recipe
          {
            return nil  // Occupied: nothing changes.
          }
          // Creating the meal takes a tick before the assignment's.
          let assignment = Assignment(
            recipe: recipe, stamp: stamp(of: event, tick: past == nil ? 2 : 1))
          return (past ?? CausalItems()).replacing(
            where: { _ in true }, with: assignment, by: event.id)
        })
      let recipes = Set(shownRecipes(in: events).map(\.id))
      var result: [SlotKey: [RecipeID]] = [:]
      // A meal whose plan was deleted is hidden (cascade at read time), and so is the
      // assignment of a deleted recipe.
      for (slot, store) in stores {
        let slot = SlotKey(rawValue: slot)!
        guard planIsPresent(plan(of: slot), in: events) else { continue }
        let shown = store.live.values.filter { recipes.contains($0.recipe) }
        if !shown.isEmpty {
          result[slot] = shown.sorted { $0.stamp > $1.stamp }.map(\.recipe)
        }
      }
      return result
    }
  }

  /// The categories a device that has seen some events shows, and where moved keys lead.
  ///
  /// Each category key is an add-wins key of the map of categories: it is present when some
  /// event that wrote it (a create, a new spelling, a move to it, a new position) is observed
  /// by no later event on it, a move away or a deletion included. What an event did follows
  /// from what its device showed. A create finds a category by its key or through the moves; a
  /// rename onto another category's name is refused; moves of one key keep the latest (a
  /// rename's stamp is its device's first tick after the event's timestamp, which the
  /// scenario's clock draws after every stamp the device holds, so moves order as their events
  /// do).
  package struct Categories {
    package var live: Set<CategoryKey> = []
    package var moves: [CategoryKey: (target: CategoryKey, timestamp: HybridTimestamp)] = [:]

    package func resolved(_ key: CategoryKey) -> CategoryKey? {
      var current = key
      for _ in 0...moves.count {
        if live.contains(current) { return current }
        guard let next = moves[current]?.target else { return nil }
        current = next
      }
      return nil
    }
  }

  /// What an event did to the categories' keys: the keys it wrote, the key it removed, the
  /// move it recorded.
  package struct CategoryEffect {
    package var writes: Set<CategoryKey> = []
    package var removes: CategoryKey?
    package var move: (CategoryKey, CategoryKey)?
  }

  package static func categories(
    after seen: [Event<Operation>], effect: (Event<Operation>) -> CategoryEffect
  ) -> Categories {
    var result = Categories()
    let touching = seen.map { ($0, effect($0)) }
    var keys: Set<CategoryKey> = []
    for (_, effect) in touching {
      keys.formUnion(effect.writes)
      if let removed = effect.removes { keys.insert(removed) }
    }
    // Concurrent moves of one key: the one with the greatest timestamp.
    for (event, effect) in touching {
      guard let (from, to) = effect.move else { continue }
      if result.moves[from].map({ event.timestamp > $0.timestamp }) ?? true {
        result.moves[from] = (to, event.timestamp)
      }
    }
    for key in keys {
      let onKey = touching.filter { $0.1.writes.contains(key) || $0.1.removes == key }
      let surviving = onKey.map(\.0).maximal().filter { event in
        onKey.contains { $0.0.id == event.id && $0.1.writes.contains(key) }
      }
      // Seeding is no one's choice: a key only seeds wrote, which a person moved away from,
      // does not show (the seed came from a device that had not seen the move).
      let onlySeeded = surviving.allSatisfy {
        if case .seedDefaults = $0.operation { true } else { false }
      }
      if !surviving.isEmpty && !(onlySeeded && result.moves[key] != nil) {
        result.live.insert(key)
      }
    }
    return result
  }

  /// What the event did to the categories, given the categories its device showed.
  package static func categoryEffect(of event: Event<Operation>, view: Categories) -> CategoryEffect
  {
    var result = CategoryEffect()
    func create(_ name: String) {
      let key = CategoryKey(normalizing: name)
      if view.resolved(key) == nil { result.writes.insert(key) }
    }
    let shown = view.live.sorted()
    switch event.operation {
    case .seedDefaults: HouseholdReplica.defaultCategoryNames.forEach(create)
    case .importLegacy: Legacy.categories.map(\.name).forEach(create)
    case .createCategory(let name) where !blankNames.contains(name): create(name)
    case .renameCategory(let index, let name) where !blankNames.contains(name) && !shown.isEmpty:
      let from = shown[index % shown.count]
      let target = CategoryKey(normalizing: name)
      if target == from {
        result.writes = [from]
      } else if view.resolved(target).map({ $0 == from }) ?? true {
        result = CategoryEffect(writes: [target], removes: from, move: (from, target))
      }
    case .reorderCategories: result.writes = Set(shown)
    case .deleteCategory(let index) where !shown.isEmpty:
      result.removes = shown[index % shown.count]
    // An edit of a detail writes the category: concurrent with a deletion, it keeps it.
    case .editDetail(let edit, let index, _) where edit.target == .category && !shown.isEmpty:
      result.writes = [shown[index % shown.count]]
    default: break
    }
    return result
  }

  /// A guest is present when an add of them has not been observed by a removal (add-wins).
  package static func isPresent(
    in history: [Event<Operation>], created: (Operation) -> Bool, deleted: (Operation) -> Bool
  ) -> Bool {
    history.contains { create in
      created(create.operation)
        && !history.contains { deleted($0.operation) && create.isObserved(by: $0) }
    }
  }
}
