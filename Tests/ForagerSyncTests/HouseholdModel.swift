import CRDTTestSupport
import ForagerSync
import Foundation
import SemanticCRDT
import SharedSupport

/// Household workloads for `ReplicaScenario`: devices create categories and templates under
/// varied spellings, record uses, add recipes, fill slots, make lists, add and delete, while
/// gossip is lost, duplicated and reordered. The specification says what a device that has seen
/// a set of operations must show, with plain sets and counts.
enum HouseholdModel: CRDTModel {
  static let household = HouseholdID(uuid: uuid(1, 1))
  static let member = MemberID(uuid: uuid(2, 2))
  static let lists = (0..<3).map { WeeklyListID(uuid: uuid(3, UInt64($0))) }
  /// One meal plan per slot: every assignment to a slot goes into its plan, so the meal's
  /// plan never changes and a deleted plan hides the slot.
  static let plans = (0..<2).map { MealPlanID(uuid: uuid(6, UInt64($0))) }
  static func plan(of slot: SlotKey) -> MealPlanID { plans[slots.firstIndex(of: slot)!] }
  static let guests = (0..<2).map { MemberID(uuid: uuid(7, UInt64($0))) }
  static let slots = [
    SlotKey(rawValue: "2024-12-10-breakfast")!, SlotKey(rawValue: "2024-12-11-dinner")!,
  ]
  /// Names categories are renamed to besides the ones they are created with.
  static let renamedCategoryNames = ["Milk", "milk ", "Herbs"]

  /// Names that show nothing: every operation that names a record refuses them.
  static let blankNames: Set<String> = ["", " \t", "\u{00A0}", "\u{3000}\u{200B}"]
  static let categoryNames =
    [
      "Produce", "produce ", "  PRODUCE", "Snacks", "snacks", "Café", "Cafe\u{301}",
      "Frozen\u{00A0}Foods",
      "frozen foods",
    ] + blankNames.sorted()
  static let ingredientNames =
    [
      "Cilantro", "cilantro", "2 cups Fresh Basil", "basil", "bay leaves", "bay leaf",
      "a pinch of salt",
      "salt", "200g flour",
    ] + blankNames.sorted()
  static let recipeTitles = ["Banana Bread", "banana bread!", "Pancakes", "Waffles"]

  /// A recipe's ingredient lines, blank ones included (adding its items skips them).
  static func lines(of title: String) -> [String] {
    switch title {
    case "Banana Bread": ["200g flour", " \t", "bay leaves"]
    case "Pancakes": ["2 cups Fresh Basil", ""]
    case "Waffles": ["salt"]
    case "Legacy Soup": ["salt", "2 lemons"]
    default: []
    }
  }

  /// The old app's export every import reads: duplicate categories and templates, a staple,
  /// a recipe, and a list with a checked item. Its dates (1 s to 4 s after 1970) fall among
  /// the scenario's stamps, so its last-writer-wins writes race the devices' own.
  static let legacyExport: LegacyExport = {
    func id(_ low: UInt64) -> String { uuid(8, low).uuidString }
    func at(_ second: Int) -> String { "1970-01-01T00:00:0\(second)Z" }
    let records: [String: Any] = [
      "categories": [
        ["id": id(1), "name": "Produce", "createdAt": at(2)],
        ["id": id(2), "name": "produce ", "createdAt": at(1)],
        ["id": id(3), "name": "Pantry", "createdAt": at(3)],
      ],
      "ingredientTemplates": [
        [
          "id": id(4), "name": "Salt", "categoryID": id(3), "isStaple": true, "usageCount": 2,
          "createdAt": at(1),
        ],
        ["id": id(5), "name": "salt", "categoryID": id(3), "usageCount": 1, "createdAt": at(2)],
      ],
      "recipes": [
        [
          "id": id(6), "title": "Legacy Soup", "ingredients": ["salt", "2 lemons"],
          "usageCount": 1, "createdAt": at(2),
        ]
      ],
      "weeklyLists": [["id": id(7), "name": "Old List", "createdAt": at(1)]],
      "groceryItems": [
        [
          "id": id(8), "listID": id(7), "name": "salt", "templateID": id(5), "isChecked": true,
          "createdAt": at(3),
        ],
        ["id": id(9), "listID": id(7), "name": "2 lemons", "createdAt": at(4)],
      ],
      "plannedMeals": [],
    ]
    return try! LegacyExport.decode(try! JSONSerialization.data(withJSONObject: records))
  }()
  /// What importing ``legacyExport`` writes, as the specification needs it.
  enum Legacy {
    static let categoryNames = ["produce ", "Pantry"]
    static let recipe = (id: RecipeID(uuid: uuid(8, 6)), title: "Legacy Soup", uses: UInt64(1))
    static let list = WeeklyListID(uuid: uuid(8, 7))
    static let salt = IngredientKey(normalizing: "salt")
    /// Its templates, the uses their legacy records carry, and their creation stamps' wall
    /// time (the oldest record naming each).
    static let templates: [IngredientKey: (uses: UInt64, milliseconds: UInt64)] = [
      salt: (3, 1_000), IngredientKey(normalizing: "2 lemons"): (0, 4_000),
    ]
    static let stapleAndCategory = (
      template: salt, category: CategoryKey(normalizing: "Pantry")
    )
    /// Its items: id, text, and the wall time of the checked write when checked.
    static let items: [(id: GroceryItemID, text: String, checkedAt: UInt64?)] = [
      (GroceryItemID(uuid: uuid(8, 8)), "salt", 3_000),
      (GroceryItemID(uuid: uuid(8, 9)), "2 lemons", nil),
    ]
  }

  static func uuid(_ high: UInt64, _ low: UInt64) -> UUID {
    var bytes = [UInt8](repeating: 0, count: 16)
    for index in 0..<8 {
      bytes[index] = UInt8(truncatingIfNeeded: high >> (8 * UInt64(index)))
      bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (8 * UInt64(index)))
    }
    return UUID(
      uuid: (
        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
        bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
      ))
  }

  enum Operation: CustomStringConvertible, Sendable {
    case seedDefaults
    case createCategory(String)
    /// Renames the `index`-th present category (in key order, modulo their number) to `name`:
    /// a new spelling, a move to a new key, or a rename onto a taken name, which is refused.
    case renameCategory(index: Int, to: String)
    case useIngredient(String)
    case addRecipe(String, id: RecipeID)
    /// Counts a use of the `index`-th recipe the device knows (by id, modulo their number).
    case useRecipe(index: Int)
    /// Adds the `index`-th known recipe's ingredient lines to a list, counting a use.
    case addRecipeItems(index: Int, list: WeeklyListID)
    case assign(recipeIndex: Int, slot: SlotKey)
    case clearSlot(SlotKey)
    /// Clears the slot, then assigns a recipe to it: the meal is created anew.
    case reassign(recipeIndex: Int, slot: SlotKey)
    case createList(WeeklyListID)
    case createPlan(MealPlanID)
    case deletePlan(MealPlanID)
    /// The owner adds a guest (again, if present), or removes one the device shows.
    case addGuest(MemberID)
    case removeGuest(MemberID)
    /// The owner tries to leave, which must be refused with nothing changed.
    case leave
    case addItem(String, list: WeeklyListID, id: GroceryItemID)
    case deleteList(WeeklyListID)
    /// Marks the ingredient (created if absent) as a staple or not: last writer wins.
    case setStaple(String, Bool)
    /// Gets or creates the ingredient shelved under the `categoryIndex`-th category the device
    /// shows (in key order); an existing template keeps its category.
    case shelve(String, categoryIndex: Int)
    /// Checks or unchecks the `index`-th manual item the device shows (by id).
    case check(index: Int, Bool)
    /// Assigns the `recipeIndex`-th known recipe to `slot` only if the slot shows no meal.
    case assignIfFree(recipeIndex: Int, slot: SlotKey)
    /// Imports ``HouseholdModel/legacyExport``.
    case importLegacy
    /// The owner dissolves the household: from then on every change is refused.
    case dissolve

    var description: String {
      switch self {
      case .seedDefaults: "seed default categories"
      case .createCategory(let name): "category \(name.debugDescription)"
      case .renameCategory(let index, let name):
        "rename category #\(index) to \(name.debugDescription)"
      case .useIngredient(let name): "use \(name.debugDescription)"
      case .useRecipe(let index): "cook recipe #\(index)"
      case .addRecipeItems(let index, let list):
        "add recipe #\(index)'s items to list \(HouseholdModel.lists.firstIndex(of: list)!)"
      case .addRecipe(let title, let id):
        "recipe \(title.debugDescription) \(id.uuid.uuidString.suffix(8))"
      case .assign(let index, let slot): "assign recipe #\(index) to \(slot)"
      case .clearSlot(let slot): "clear \(slot)"
      case .reassign(let index, let slot): "clear \(slot), then assign recipe #\(index)"
      case .createList(let id): "create list \(HouseholdModel.lists.firstIndex(of: id)!)"
      case .createPlan(let id): "create plan \(HouseholdModel.plans.firstIndex(of: id)!)"
      case .deletePlan(let id): "delete plan \(HouseholdModel.plans.firstIndex(of: id)!)"
      case .addGuest(let id): "add guest \(HouseholdModel.guests.firstIndex(of: id)!)"
      case .removeGuest(let id): "remove guest \(HouseholdModel.guests.firstIndex(of: id)!)"
      case .leave: "the owner tries to leave"
      case .addItem(let text, let list, _):
        "add \(text.debugDescription) to list \(HouseholdModel.lists.firstIndex(of: list)!)"
      case .deleteList(let id): "delete list \(HouseholdModel.lists.firstIndex(of: id)!)"
      case .setStaple(let name, let isStaple):
        "\(isStaple ? "make" : "unmake") \(name.debugDescription) a staple"
      case .shelve(let name, let index): "shelve \(name.debugDescription) in category #\(index)"
      case .check(let index, let checked): "\(checked ? "check" : "uncheck") item #\(index)"
      case .assignIfFree(let index, let slot): "assign recipe #\(index) to \(slot) if free"
      case .importLegacy: "import the legacy export"
      case .dissolve: "dissolve the household"
      }
    }
  }

  struct Observation: Equatable, CustomStringConvertible {
    var dissolved = false
    var categories: Set<CategoryKey> = []
    var members: Set<MemberID> = []
    var usage: [IngredientKey: UInt64] = [:]
    var staples: Set<IngredientKey> = []
    /// Each shelved template's category, resolved through the moves.
    var shelves: [IngredientKey: CategoryKey] = [:]
    var recipeTitles: [String] = []
    /// Uses of each recipe used at least once, summed over devices.
    var recipeUses: [RecipeID: UInt64] = [:]
    /// Per slot, the recipes that survive: the winner, then the conflicting ones, newest first.
    var slots: [SlotKey: [RecipeID]] = [:]
    /// Each item's text, with a check mark when checked.
    var items: [String] = []

    var description: String {
      let parts = [
        dissolved ? "dissolved" : "open",
        "categories \(categories.map(\.rawValue).sorted())", "members \(members.count)",
        "usage \(usage.map { "\($0.key)=\($0.value)" }.sorted())",
        "staples \(staples.map(\.rawValue).sorted())",
        "shelves \(shelves.map { "\($0.key)→\($0.value)" }.sorted())",
        "recipes \(recipeTitles)",
        "recipe uses \(recipeUses.map { "\($0.key.uuid.uuidString.suffix(8))=\($0.value)" }.sorted())",
        "slots \(slots.map { "\($0.key)=\($0.value.map { $0.uuid.uuidString.suffix(8) })" }.sorted())",
        "items \(items)",
      ]
      return parts.joined(separator: ", ")
    }
  }

  static let name = "Household"
  /// Every device starts from the same household, created by a founding device before the
  /// scenario (older than any of its stamps); every device acts for the owner.
  static let initialState = HouseholdReplica.create(
    household: household, owner: member, ownerName: "Owner", replica: "founder",
    // At 1 ms: a stamp at 0 ms could tie with the registers' initial stamp and lose to it.
    wallClock: .fixed(1)
  ).state
  static func makeInitial() -> HouseholdState { initialState }

  static func randomOperation(using random: inout SplitMix64) -> Operation {
    switch random.int(in: 0..<118) {
    case 0..<4: .seedDefaults
    case 4..<14: .createCategory(random.pick(categoryNames))
    case 14..<20:
      .renameCategory(
        index: random.int(in: 0...7), to: random.pick(categoryNames + renamedCategoryNames))
    case 20..<36: .useIngredient(random.pick(ingredientNames))
    case 36..<42: .addRecipe(random.pick(recipeTitles), id: RecipeID(uuid: uuid(4, random.next())))
    case 42..<44: .useRecipe(index: random.int(in: 0...3))
    case 44..<46: .addRecipeItems(index: random.int(in: 0...3), list: random.pick(lists))
    // Two slots, often assigned and cleared: a slot cleared and assigned again while another
    // device assigns it is how a nested register lost an assignment (ADR 0011).
    case 46..<56: .assign(recipeIndex: random.int(in: 0...3), slot: random.pick(slots))
    case 56..<60: .clearSlot(random.pick(slots))
    case 60..<67: .reassign(recipeIndex: random.int(in: 0...3), slot: random.pick(slots))
    case 67..<71: .createList(random.pick(lists))
    case 71..<74: .createPlan(random.pick(plans))
    case 74..<75: .deletePlan(random.pick(plans))
    case 75..<93:
      .addItem(
        random.pick(ingredientNames), list: random.pick(lists),
        id: GroceryItemID(uuid: uuid(5, random.next())))
    case 93..<96: .deleteList(random.pick(lists))
    case 96..<98: .addGuest(random.pick(guests))
    case 98..<100: random.chance(0.8) ? .removeGuest(random.pick(guests)) : .leave
    case 100..<104: .setStaple(random.pick(ingredientNames), random.chance(0.6))
    case 104..<107: .shelve(random.pick(ingredientNames), categoryIndex: random.int(in: 0...7))
    case 107..<113: .check(index: random.int(in: 0...5), random.chance(0.7))
    case 113..<116: .assignIfFree(recipeIndex: random.int(in: 0...3), slot: random.pick(slots))
    // Dissolving ends a scenario's changes, so it is rare.
    default: random.chance(0.3) ? .dissolve : .importLegacy
    }
  }

  static func apply(
    _ operation: Operation, to state: inout HouseholdState, replica: ReplicaID,
    timestamp: HybridTimestamp
  ) -> HouseholdState? {
    // The replica's clock continues past both the scenario's stamp and every stamp it wrote.
    let latest = max(timestamp, state.greatestTimestamp ?? timestamp)
    var device = HouseholdReplica(
      state: state, member: member,
      clock: HybridClock(
        replica: replica, wallClock: .fixed(timestamp.wallMilliseconds),
        latest: (latest.wallMilliseconds, latest.logical)))
    let before = state
    perform(operation, on: &device)
    state = device.state
    return state.delta(since: before.version)
  }

  /// Performs `operation` on `device`, skipping what the device cannot do yet (assigning with
  /// no recipe known, adding to a list it does not have). A blank name must be refused.
  static func perform(_ operation: Operation, on device: inout HouseholdReplica) {
    if device.isDissolved { return performRefused(operation, on: &device) }
    if case .addItem(_, let list, _) = operation,
      !device.weeklyLists().contains(where: { $0.id == list })
    {
      return
    }
    if case .renameCategory(let index, let name) = operation {
      // The outcome the specification predicts from the categories the device shows.
      let keys = device.categories().map(\.key).sorted()
      guard !keys.isEmpty else { return }
      let before = device.state
      do {
        try device.renameCategory(keys[index % keys.count], to: name)
        if blankNames.contains(name) { fatalError("\(operation) accepted a blank name") }
      } catch {
        switch error {
        case .blankName, .categoryNameTaken:
          if device.state != before { fatalError("\(operation) changed the state refusing") }
        default: fatalError("\(operation) failed: \(error)")
        }
      }
      return
    }
    switch operation {
    case .createCategory(let name), .useIngredient(let name), .addItem(let name, _, _),
      .setStaple(let name, _), .shelve(let name, _):
      if blankNames.contains(name) {
        let before = device.state
        do {
          try performChecked(operation, on: &device)
          fatalError("\(operation) accepted a blank name")
        } catch {
          guard error == .blankName(name), device.state == before else {
            fatalError("\(operation) refused a blank name with \(error) or changed the state")
          }
        }
        return
      }
    default: break
    }
    do {
      try performChecked(operation, on: &device)
    } catch {
      fatalError("household operation \(operation) failed: \(error)")
    }
  }

  /// On a dissolved household every change must be refused with nothing changed.
  static func performRefused(_ operation: Operation, on device: inout HouseholdReplica) {
    let before = device.state
    do {
      if case .renameCategory(_, let name) = operation {
        if let key = device.categories().first?.key { try device.renameCategory(key, to: name) }
      } else {
        try performChecked(operation, on: &device)
      }
      // Only operations the model skips (nothing to pick from) may return without a refusal.
    } catch {
      guard error == .householdDissolved(device.householdID) else {
        fatalError("\(operation) on a dissolved household failed with \(error)")
      }
    }
    if device.state != before { fatalError("\(operation) changed a dissolved household") }
  }

  /// The manual items a device shows, by id: the ones `check` picks from.
  static func manualItems(on device: HouseholdReplica) -> [GroceryItemID] {
    device.weeklyLists().flatMap { device.items(in: $0.id) }.filter { $0.source == .manual }
      .map(\.id).sorted()
  }

  static func performChecked(_ operation: Operation, on device: inout HouseholdReplica)
    throws(HouseholdError)
  {
    do {
      switch operation {
      case .seedDefaults: try device.seedDefaultCategories()
      case .createCategory(let name): try device.getOrCreateCategory(displayName: name)
      case .renameCategory: break  // `perform` renames, and checks the refusals.
      case .useIngredient(let name): try device.recordUse(ofIngredient: name)
      case .addRecipe(let title, let id):
        try device.addRecipe(title: title, ingredientLines: lines(of: title), id: id)
      case .useRecipe(let index):
        let known = device.recipes().map(\.id).sorted()
        if !known.isEmpty { try device.recordUse(ofRecipe: known[index % known.count]) }
      case .addRecipeItems(let index, let list):
        let known = device.recipes().map(\.id).sorted()
        if !known.isEmpty, device.weeklyLists().contains(where: { $0.id == list }) {
          try device.addItems(fromRecipe: known[index % known.count], to: list)
        }
      case .assign(let index, let slot):
        let known = device.recipes().map(\.id).sorted()
        if !known.isEmpty, device.mealPlans().contains(where: { $0.id == plan(of: slot) }) {
          try device.assignRecipe(
            known[index % known.count], to: slot, in: plan(of: slot), replacing: true)
        }
      case .clearSlot(let slot): try clear(slot, on: &device)
      case .reassign(let index, let slot):
        try clear(slot, on: &device)
        try performChecked(.assign(recipeIndex: index, slot: slot), on: &device)
      case .createList(let id): try device.createWeeklyList(name: "List", id: id)
      case .createPlan(let id): try device.createMealPlan(name: "Plan", id: id)
      case .deletePlan(let id):
        try refusingUnknown(.unknownMealPlan(id), on: &device, if: !device.state.plans.contains(id))
        { device throws(HouseholdError) in try device.deleteMealPlan(id) }
      // Other tests drive these operations on states without an owner: only an owner acts.
      case .addGuest(let id):
        if device.owner == member { try device.addMember(id, name: "Guest") }
      case .removeGuest(let id):
        if device.owner == member, device.members().contains(where: { $0.id == id }) {
          try device.removeMember(id)
        }
      case .leave:
        guard device.owner == member else { break }
        let before = device.state
        do {
          try device.leave()
          fatalError("the owner left")
        } catch {
          if case .householdDissolved = error { throw error }
          guard error == .ownerCannotLeave(member), device.state == before else {
            fatalError("leaving was refused with \(error) or changed the state")
          }
        }
      case .addItem(let text, let list, let id): try device.addItem(text, to: list, id: id)
      case .deleteList(let id):
        try refusingUnknown(.unknownList(id), on: &device, if: !device.state.lists.contains(id)) {
          device throws(HouseholdError) in try device.deleteWeeklyList(id)
        }
      case .setStaple(let name, let isStaple): try device.setStaple(isStaple, ingredient: name)
      case .shelve(let name, let index):
        let keys = device.categories().map(\.key).sorted()
        try device.getOrCreateIngredient(
          named: name, category: keys.isEmpty ? nil : keys[index % keys.count])
      case .check(let index, let checked):
        let items = manualItems(on: device)
        if !items.isEmpty { try device.setChecked(checked, item: items[index % items.count]) }
      case .assignIfFree(let index, let slot):
        let known = device.recipes().map(\.id).sorted()
        guard !known.isEmpty, device.mealPlans().contains(where: { $0.id == plan(of: slot) })
        else { break }
        let recipe = known[index % known.count]
        let occupant = device.plannedMeal(slot)?.recipe
        let before = device.state
        do {
          try device.assignRecipe(recipe, to: slot, in: plan(of: slot), replacing: false)
          if let occupant, occupant != recipe {
            fatalError("\(operation) replaced \(occupant) in an occupied slot")
          }
          if device.plannedMeal(slot)?.conflictingRecipes != [] {
            fatalError("\(operation) left the slot conflicted")
          }
        } catch {
          guard case .slotOccupied(slot, let shown, _) = error, shown == occupant,
            occupant != recipe, device.state == before
          else { throw error }
        }
      case .importLegacy:
        do {
          try device.importLegacy(legacyExport)
        } catch {
          guard case .household(let refusal) = error else { fatalError("import failed: \(error)") }
          throw refusal
        }
      case .dissolve:
        if device.owner == member { try device.dissolve() }
      }
    }
  }

  /// Clears `slot`: a slot that holds no meal must be refused with nothing changed.
  static func clear(_ slot: SlotKey, on device: inout HouseholdReplica) throws(HouseholdError) {
    try refusingUnknown(.emptySlot(slot), on: &device, if: !device.state.meals.contains(slot)) {
      device throws(HouseholdError) in try device.clearSlot(slot)
    }
  }

  /// Performs `change`, which must be refused with `refusal` and change nothing when `unknown`
  /// (the record it names does not exist on the device).
  static func refusingUnknown(
    _ refusal: HouseholdError, on device: inout HouseholdReplica, if unknown: Bool,
    _ change: (inout HouseholdReplica) throws(HouseholdError) -> Void
  ) throws(HouseholdError) {
    guard unknown else { return try change(&device) }
    let before = device.state
    do {
      try change(&device)
      fatalError("a change of an unknown record was not refused with \(refusal)")
    } catch {
      if case .householdDissolved = error { throw error }
      guard error == refusal, device.state == before else {
        fatalError("a change of an unknown record was refused with \(error), not \(refusal)")
      }
    }
  }

  static func observe(_ state: HouseholdState) -> Observation {
    let device = HouseholdReplica(
      state: state, member: member, clock: HybridClock(replica: "observer"))
    var observation = Observation()
    observation.dissolved = device.isDissolved
    observation.categories = Set(device.categories().map(\.key))
    observation.members = Set(device.members().map(\.id))
    for template in device.ingredients() {
      observation.usage[template.key] = template.usageCount
      if template.isStaple { observation.staples.insert(template.key) }
      if let category = template.categoryKey {
        observation.shelves[template.key] = state.resolvedCategory(category)
      }
    }
    observation.recipeTitles = device.recipes().map(\.displayName).sorted()
    for recipe in device.recipes() where recipe.usageCount > 0 {
      observation.recipeUses[recipe.id] = recipe.usageCount
    }
    for meal in device.plannedMeals() {
      observation.slots[meal.slot] = [meal.recipe].compactMap { $0 } + meal.conflictingRecipes
    }
    observation.items = device.weeklyLists().flatMap { device.items(in: $0.id) }
      .map { $0.displayName + ($0.isChecked ? " ✓" : "") }.sorted()
    return observation
  }

  /// The stamp of the `tick`-th tick of the event's device. Its clock starts at the event's
  /// timestamp, which the scenario draws after every stamp the device holds, and its wall
  /// clock stands still, so ticks count up the logical part.
  static func stamp(of event: Event<Operation>, tick: UInt32) -> HybridTimestamp {
    HybridTimestamp(
      wallMilliseconds: event.timestamp.wallMilliseconds, logical: event.timestamp.logical + tick,
      replica: event.replica)
  }

  /// The stamp the import gives a legacy record dated `milliseconds` after 1970.
  static func legacyStamp(_ milliseconds: UInt64, by event: Event<Operation>) -> HybridTimestamp {
    HybridTimestamp(wallMilliseconds: milliseconds, replica: event.replica)
  }

  /// The events that had an effect: a device that had seen the household dissolved changed
  /// nothing.
  static func effective(_ events: [Event<Operation>]) -> [Event<Operation>] {
    let dissolutions = Set(
      events.filter { if case .dissolve = $0.operation { true } else { false } }.map(\.id))
    return events.filter { $0.observed.isDisjoint(with: dissolutions) }
  }

  /// The recipes known after `history` (added or imported), by id.
  static func knownRecipes(in history: [Event<Operation>]) -> [(id: RecipeID, title: String)] {
    var known: [RecipeID: String] = [:]
    for event in history {
      switch event.operation {
      case .addRecipe(let title, let id): known[id] = title
      case .importLegacy: known[Legacy.recipe.id] = Legacy.recipe.title
      default: break
      }
    }
    return known.map { (id: $0.key, title: $0.value) }.sorted { $0.id < $1.id }
  }

  /// The specification, from the events alone.
  static func specification(of seenEvents: [Event<Operation>]) -> Observation {
    let events = effective(seenEvents)
    let byID = Dictionary(uniqueKeysWithValues: events.map { ($0.id, $0) })
    func seen(by event: Event<Operation>) -> [Event<Operation>] {
      event.observed.compactMap { byID[$0] }
    }

    func listIsPresent(_ list: WeeklyListID, in history: [Event<Operation>]) -> Bool {
      list == Legacy.list
        ? history.contains { if case .importLegacy = $0.operation { true } else { false } }
        : isPresent(
          in: history, created: { if case .createList(list) = $0 { true } else { false } },
          deleted: { if case .deleteList(list) = $0 { true } else { false } })
    }

    /// The `index`-th recipe (by id) among those the event's device knew.
    func knownRecipe(_ index: Int, by event: Event<Operation>) -> (id: RecipeID, title: String)? {
      let known = knownRecipes(in: seen(by: event))
      return known.isEmpty ? nil : known[index % known.count]
    }

    /// The templates the event found or created.
    func templates(of event: Event<Operation>) -> [IngredientKey] {
      switch event.operation {
      case .useIngredient(let name), .setStaple(let name, _), .shelve(let name, _):
        return blankNames.contains(name) ? [] : [IngredientKey(normalizing: name)]
      case .addItem(let text, let list, _):
        return !blankNames.contains(text) && listIsPresent(list, in: seen(by: event))
          ? [IngredientKey(normalizing: text)] : []
      case .addRecipeItems(let index, let list):
        guard let recipe = knownRecipe(index, by: event),
          listIsPresent(list, in: seen(by: event))
        else { return [] }
        // Blank lines name no ingredient and are skipped.
        return lines(of: recipe.title).filter { !blankNames.contains($0) }.map {
          IngredientKey(normalizing: $0)
        }
      case .importLegacy: return Array(Legacy.templates.keys)
      default: return []
      }
    }
    func knownTemplates(by event: Event<Operation>) -> Set<IngredientKey> {
      Set(seen(by: event).flatMap(templates(of:)))
    }

    /// Whether an item survives `history`: deleting a list removes the writes of its items the
    /// deleting device had seen, so the item lives while one of its writes (its add, the checks
    /// of it) was seen by no delete of its list.
    func isAlive(
      _ id: GroceryItemID, addedBy added: Event<Operation>, to list: WeeklyListID,
      in history: [Event<Operation>]
    ) -> Bool {
      let deletes = history.filter {
        if case .deleteList(list) = $0.operation { true } else { false }
      }
      let writes = [added] + history.filter { target(of: $0) == id }
      return writes.contains { write in !deletes.contains { write.isObserved(by: $0) } }
    }

    /// The item a check event checked, if any.
    var targets: [Int: GroceryItemID?] = [:]
    func target(of event: Event<Operation>) -> GroceryItemID? {
      guard case .check(let index, _) = event.operation else { return nil }
      if let known = targets[event.id] { return known }
      let items = manualItems(shownTo: event)
      let target = items.isEmpty ? nil : items[index % items.count]
      targets[event.id] = target
      return target
    }

    /// The manual items the event's device showed, by id.
    func manualItems(shownTo event: Event<Operation>) -> [GroceryItemID] {
      let history = seen(by: event)
      var items = Set(
        history.compactMap { added -> GroceryItemID? in
          guard case .addItem(let text, let list, let id) = added.operation,
            !blankNames.contains(text), listIsPresent(list, in: seen(by: added)),
            listIsPresent(list, in: history), isAlive(id, addedBy: added, to: list, in: history)
          else { return nil }
          return id
        })
      if listIsPresent(Legacy.list, in: history) { items.formUnion(Legacy.items.map(\.id)) }
      return items.sorted()
    }

    var observation = Observation()
    var staples: [IngredientKey: (stamp: HybridTimestamp, value: Bool)] = [:]
    var shelves: [IngredientKey: (stamp: HybridTimestamp, value: CategoryKey)] = [:]
    var checks: [GroceryItemID: (stamp: HybridTimestamp, value: Bool)] = [:]
    var itemTexts: [GroceryItemID: String] = [:]
    func write<Key: Hashable, Value>(
      _ value: Value, at stamp: HybridTimestamp, to key: Key,
      in writes: inout [Key: (stamp: HybridTimestamp, value: Value)]
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
      case .addRecipe(let title, _):
        observation.recipeTitles.append(title)
      case .useRecipe(let index):
        if let recipe = knownRecipe(index, by: event) {
          observation.recipeUses[recipe.id, default: 0] += 1
        }
      case .addRecipeItems(let index, let list):
        guard let recipe = knownRecipe(index, by: event), listIsPresent(list, in: seen(by: event))
        else { break }
        observation.recipeUses[recipe.id, default: 0] += 1
        let removed = events.contains { delete in
          if case .deleteList(list) = delete.operation {
            event.isObserved(by: delete)
          } else {
            false
          }
        }
        if listIsPresent(list, in: events), !removed {
          observation.items += lines(of: recipe.title).filter { !blankNames.contains($0) }
        }
      case .addItem(let text, let list, let id) where !blankNames.contains(text):
        if listIsPresent(list, in: seen(by: event)), listIsPresent(list, in: events),
          isAlive(id, addedBy: event, to: list, in: events)
        {
          itemTexts[id] = text
        }
      case .setStaple(let name, let isStaple) where !blankNames.contains(name):
        // Creating the template takes the first tick.
        let key = IngredientKey(normalizing: name)
        let tick: UInt32 = knownTemplates(by: event).contains(key) ? 1 : 2
        write(isStaple, at: stamp(of: event, tick: tick), to: key, in: &staples)
      case .shelve(let name, let index) where !blankNames.contains(name):
        let key = IngredientKey(normalizing: name)
        let shown = categorySpecification(of: seen(by: event)).live.sorted()
        if !knownTemplates(by: event).contains(key), !shown.isEmpty {
          write(shown[index % shown.count], at: stamp(of: event, tick: 1), to: key, in: &shelves)
        }
      case .check(_, let checked):
        if let item = target(of: event) {
          write(checked, at: stamp(of: event, tick: 1), to: item, in: &checks)
        }
      case .importLegacy:
        // A template the device had keeps its staple flag and category.
        if !knownTemplates(by: event).contains(Legacy.salt) {
          let created = legacyStamp(Legacy.templates[Legacy.salt]!.milliseconds, by: event)
          write(true, at: created, to: Legacy.salt, in: &staples)
          let pantry = Legacy.stapleAndCategory.category
          let shelf = categorySpecification(of: seen(by: event)).resolved(pantry) ?? pantry
          write(shelf, at: created, to: Legacy.salt, in: &shelves)
        }
        for item in Legacy.items {
          itemTexts[item.id] = item.text
          if let checkedAt = item.checkedAt {
            write(true, at: legacyStamp(checkedAt, by: event), to: item.id, in: &checks)
          }
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
      observation.recipeTitles.append(Legacy.recipe.title)
      observation.recipeUses[Legacy.recipe.id, default: 0] += Legacy.recipe.uses
    }
    observation.items += itemTexts.map { id, text in text + (checks[id]?.value == true ? " ✓" : "")
    }
    observation.dissolved = seenEvents.contains {
      if case .dissolve = $0.operation { true } else { false }
    }
    observation.categories = categories.live
    observation.staples = Set(staples.filter(\.value.value).keys)
    observation.shelves = shelves.compactMapValues { categories.resolved($0.value) }
    // The owner, and each guest an add of whom no removal has observed (add-wins).
    observation.members = Set(
      [member]
        + guests.filter { guest in
          isPresent(
            in: events, created: { if case .addGuest(guest) = $0 { true } else { false } },
            deleted: { if case .removeGuest(guest) = $0 { true } else { false } })
        })
    observation.slots = slotSpecification(of: events)
    observation.recipeTitles.sort()
    observation.items.sort()
    return observation
  }

  /// The categories a device that has seen `events` shows, and where moved keys lead.
  ///
  /// Each category key is an add-wins key of the map of categories: it is present when some
  /// event that wrote it (a create, a new spelling, a move to it) is observed by no later event
  /// on it, a move away included. What an event did follows from what its device showed: the
  /// specification of the events it had seen. A create finds a category by its key or through
  /// the moves; a rename onto another category's name is refused; moves of one key keep the
  /// latest (a rename's stamp is its device's first tick after the event's timestamp, which
  /// the scenario's clock draws after every stamp the device holds, so moves order as their
  /// events do).
  struct Categories {
    var live: Set<CategoryKey> = []
    var moves: [CategoryKey: (target: CategoryKey, timestamp: HybridTimestamp)] = [:]

    func resolved(_ key: CategoryKey) -> CategoryKey? {
      var current = key
      for _ in 0...moves.count {
        if live.contains(current) { return current }
        guard let next = moves[current]?.target else { return nil }
        current = next
      }
      return nil
    }
  }

  static func categorySpecification(of events: [Event<Operation>]) -> Categories {
    let byID = Dictionary(uniqueKeysWithValues: events.map { ($0.id, $0) })
    /// Per event: the keys it wrote, the key it removed, the move it recorded.
    typealias Effect = (
      writes: Set<CategoryKey>, removes: CategoryKey?, move: (CategoryKey, CategoryKey)?
    )
    var effects: [Int: Effect] = [:]

    func categories(after seen: [Event<Operation>]) -> Categories {
      var result = Categories()
      let touching = seen.map { ($0, effect(of: $0)) }
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
        let onKey = touching.filter { $0.1.writes.contains(key) || $0.1.removes == key }.map(\.0)
        if onKey.maximal().contains(where: { effect(of: $0).writes.contains(key) }) {
          result.live.insert(key)
        }
      }
      return result
    }

    func effect(of event: Event<Operation>) -> Effect {
      if let known = effects[event.id] { return known }
      let view = categories(after: event.observed.sorted().compactMap { byID[$0] })
      var result: Effect = ([], nil, nil)
      func create(_ name: String) {
        let key = CategoryKey(normalizing: name)
        if view.resolved(key) == nil, !result.writes.contains(key) { result.writes.insert(key) }
      }
      switch event.operation {
      case .seedDefaults: HouseholdReplica.defaultCategoryNames.forEach(create)
      case .importLegacy: Legacy.categoryNames.forEach(create)
      case .createCategory(let name) where !blankNames.contains(name): create(name)
      case .renameCategory(let index, let name) where !blankNames.contains(name):
        let keys = view.live.sorted()
        guard !keys.isEmpty else { break }
        let from = keys[index % keys.count]
        let target = CategoryKey(normalizing: name)
        if target == from {
          result.writes = [from]
        } else if view.resolved(target).map({ $0 == from }) ?? true {
          result = ([target], from, (from, target))
        }
      default: break
      }
      effects[event.id] = result
      return result
    }

    return categories(after: events)
  }

  /// A slot's meal is a register nested in the map of meals: an assignment replaces the
  /// recipes its device had seen in the slot, clearing removes the meal, and the recipes of the
  /// assignments that survive show (ADR 0011's shared-context rule), newest stamp first.
  static func slotSpecification(of events: [Event<Operation>]) -> [SlotKey: [RecipeID]] {
    let byID = Dictionary(uniqueKeysWithValues: events.map { ($0.id, $0) })
    struct Assignment {
      var recipe: RecipeID
      var stamp: HybridTimestamp
    }
    /// The recipes the event's device knew, if it could assign `slot` (it knew the plan).
    func assignable(_ slot: SlotKey, by event: Event<Operation>) -> [RecipeID] {
      let seen = event.observed.compactMap { byID[$0] }
      guard planIsPresent(plan(of: slot), in: seen) else { return [] }
      return knownRecipes(in: seen).map(\.id)
    }
    let slotEvents = events.compactMap { event -> Event<Operation>? in
      switch event.operation {
      case .assign, .assignIfFree, .clearSlot: return event
      // Deleting a plan removes its meals: the meal of the plan's slot, as the device saw it.
      case .deletePlan(let deleted):
        return Event(
          id: event.id, replica: event.replica,
          operation: .clearSlot(slots[plans.firstIndex(of: deleted)!]),
          timestamp: event.timestamp, observed: event.observed)
      // With nothing to assign, clearing is all a reassignment does.
      case .reassign(_, let slot) where assignable(slot, by: event).isEmpty:
        return Event(
          id: event.id, replica: event.replica, operation: .clearSlot(slot),
          timestamp: event.timestamp, observed: event.observed)
      case .reassign: return event
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
        default: ""
        }
      },
      isRemoval: { if case .clearSlot = $0 { true } else { false } },
      write: { event, past -> CausalItems<Assignment>? in
        let index: Int
        let slot: SlotKey
        var past = past
        switch event.operation {
        case .assign(let assigned, let assignedSlot), .assignIfFree(let assigned, let assignedSlot):
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
        if case .assignIfFree = event.operation,
          let winner = past?.live.values.max(by: { $0.stamp < $1.stamp }), winner.recipe != recipe
        {
          return nil  // Occupied: nothing changes.
        }
        // Creating the meal takes a tick before the assignment's.
        let assignment = Assignment(
          recipe: recipe, stamp: stamp(of: event, tick: past == nil ? 2 : 1))
        return (past ?? CausalItems()).replacing(
          where: { _ in true }, with: assignment, by: event.id)
      })
    var result: [SlotKey: [RecipeID]] = [:]
    // A meal whose plan was deleted is hidden (cascade at read time).
    for (slot, store) in stores where planIsPresent(plan(of: SlotKey(rawValue: slot)!), in: events)
    {
      result[SlotKey(rawValue: slot)!] = store.live.values.sorted { $0.stamp > $1.stamp }.map(
        \.recipe)
    }
    return result
  }

  static func planIsPresent(_ plan: MealPlanID, in history: [Event<Operation>]) -> Bool {
    isPresent(
      in: history, created: { if case .createPlan(plan) = $0 { true } else { false } },
      deleted: { if case .deletePlan(plan) = $0 { true } else { false } })
  }

  /// A list or plan is present when a create of it has not been observed by a delete of it
  /// (add-wins).
  static func isPresent(
    in history: [Event<Operation>], created: (Operation) -> Bool, deleted: (Operation) -> Bool
  ) -> Bool {
    history.contains { create in
      created(create.operation)
        && !history.contains { deleted($0.operation) && create.isObserved(by: $0) }
    }
  }

  static func isLessThanOrEqual(_ a: HouseholdState, _ b: HouseholdState) -> Bool {
    a.isLessThanOrEqual(to: b)
  }

  static func invariantViolations(of state: HouseholdState) -> [String] {
    state.invariantViolations()
  }
}
