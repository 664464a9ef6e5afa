import CRDTTestSupport
import ForagerSimulation
import ForagerSync
import Foundation
import SemanticCRDT
import SharedSupport

/// Household workloads for `ReplicaScenario`: devices create categories and templates under
/// varied spellings, record uses, add recipes, fill slots, make lists, add and delete, while
/// gossip is lost, duplicated and reordered. The specification says what a device that has seen
/// a set of operations must show, with plain sets and counts.
package enum HouseholdModel: CRDTModel {
  package static let household = HouseholdID(uuid: uuid(1, 1))
  package static let member = MemberID(uuid: uuid(2, 2))
  package static let lists = (0..<3).map { WeeklyListID(uuid: uuid(3, UInt64($0))) }
  /// One meal plan per slot: every assignment to a slot goes into its plan, so the meal's
  /// plan never changes and a deleted plan hides the slot.
  package static let plans = (0..<2).map { MealPlanID(uuid: uuid(6, UInt64($0))) }
  package static func plan(of slot: SlotKey) -> MealPlanID { plans[slots.firstIndex(of: slot)!] }
  package static let guests = (0..<2).map { MemberID(uuid: uuid(7, UInt64($0))) }
  package static let slots = [
    SlotKey(rawValue: "2024-12-10-breakfast")!, SlotKey(rawValue: "2024-12-11-dinner")!,
  ]
  /// Names categories are renamed to besides the ones they are created with.
  package static let renamedCategoryNames = ["Milk", "milk ", "Herbs"]

  /// Names that show nothing: every operation that names a record refuses them.
  package static let blankNames: Set<String> = ["", " \t", "\u{00A0}", "\u{3000}\u{200B}"]
  package static let categoryNames =
    [
      "Produce", "produce ", "  PRODUCE", "Snacks", "snacks", "Café", "Cafe\u{301}",
      "Frozen\u{00A0}Foods",
      "frozen foods",
    ] + blankNames.sorted()
  package static let ingredientNames =
    [
      "Cilantro", "cilantro", "2 cups Fresh Basil", "basil", "bay leaves", "bay leaf",
      "a pinch of salt",
      "salt", "200g flour",
    ] + blankNames.sorted()
  package static let recipeTitles = ["Banana Bread", "banana bread!", "Pancakes", "Waffles"]
  /// Spellings of the ingredients' canonical names that keep the key.
  package static let ingredientRespellings = ["CILANTRO", "Basil", "Bay Leaf", "Salt", "Flour"]
  /// Texts of notes and instructions, an empty one included.
  package static let detailTexts = ["Stir well", "", "Café au lait", "Bake at 180 °C"]
  /// Names lists and plans are renamed to, a blank one included.
  package static let containerNames = ["Groceries", "Week 50", " \t"]

  /// A recipe's ingredient lines, blank ones included (adding its items skips them).
  package static func lines(of title: String) -> [String] {
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
  package static let legacyExport: LegacyExport = {
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
  package enum Legacy {
    /// Its categories by the name that keeps each key, and the oldest record's creation.
    package static let categories: [(name: String, milliseconds: UInt64)] = [
      ("produce ", 1_000), ("Pantry", 3_000),
    ]
    package static let recipe = (
      id: RecipeID(uuid: uuid(8, 6)), title: "Legacy Soup", uses: UInt64(1),
      milliseconds: UInt64(2_000), replica: ReplicaID("legacy:\(uuid(8, 6).uuidString)")
    )
    package static let list = WeeklyListID(uuid: uuid(8, 7))
    package static let listName = "Old List"
    package static let salt = IngredientKey(normalizing: "salt")
    /// Its templates, the uses their legacy records carry, and their creation stamps' wall
    /// time (the oldest record naming each).
    package static let templates: [IngredientKey: (uses: UInt64, milliseconds: UInt64)] = [
      salt: (3, 1_000), IngredientKey(normalizing: "2 lemons"): (0, 4_000),
    ]
    package static let stapleAndCategory = (
      template: salt, category: CategoryKey(normalizing: "Pantry")
    )
    /// Its items: id, text, creation's wall time, and whether checked (at its creation).
    package static let items:
      [(id: GroceryItemID, text: String, milliseconds: UInt64, checked: Bool)] = [
        (GroceryItemID(uuid: uuid(8, 8)), "salt", 3_000, true),
        (GroceryItemID(uuid: uuid(8, 9)), "2 lemons", 4_000, false),
      ]
  }

  package static func uuid(_ high: UInt64, _ low: UInt64) -> UUID {
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

  package enum Operation: CustomStringConvertible, Sendable {
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
    /// Changes the line of the `index`-th manual item the device shows.
    case editItem(index: Int, text: String)
    /// Files the `index`-th manual item under the `categoryIndex`-th category the device shows
    /// (in key order), or under none.
    case recategorizeItem(index: Int, categoryIndex: Int?)
    case removeItem(index: Int)
    /// Respells the `index`-th template the device knows (in key order): refused when the name
    /// names another ingredient.
    case renameIngredient(index: Int, to: String)
    /// Shelves the `index`-th known template under the `categoryIndex`-th category, or none.
    case recategorizeIngredient(index: Int, categoryIndex: Int?)
    case renameRecipe(index: Int, to: String)
    /// Gives the `index`-th known recipe the lines of the recipe titled `from`.
    case setRecipeLines(index: Int, from: String)
    case deleteRecipe(index: Int)
    case shareRecipe(index: Int, SharingScope)
    case renameList(WeeklyListID, to: String)
    case shareList(WeeklyListID, SharingScope)
    case renamePlan(MealPlanID, to: String)
    /// Puts the categories the device shows (in key order) in order, rotated by `rotation`.
    case reorderCategories(rotation: Int)
    /// Deletes the `index`-th category the device shows (in key order).
    case deleteCategory(index: Int)
    /// Edits a detail of a record: the `index`-th category the device shows (in key order) or
    /// recipe it knows (by id), or the `index`-th slot, plan or list of the model's.
    case editDetail(DetailEdit, index: Int, DetailEdit.Value)

    package var description: String {
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
      case .editItem(let index, let text): "edit item #\(index) to \(text.debugDescription)"
      case .recategorizeItem(let index, let category):
        "file item #\(index) under category #\(category.map(String.init) ?? "none")"
      case .removeItem(let index): "remove item #\(index)"
      case .renameIngredient(let index, let name):
        "respell template #\(index) as \(name.debugDescription)"
      case .recategorizeIngredient(let index, let category):
        "shelve template #\(index) under category #\(category.map(String.init) ?? "none")"
      case .renameRecipe(let index, let title): "rename recipe #\(index) \(title.debugDescription)"
      case .setRecipeLines(let index, let title):
        "give recipe #\(index) the lines of \(title.debugDescription)"
      case .deleteRecipe(let index): "delete recipe #\(index)"
      case .shareRecipe(let index, let scope): "share recipe #\(index) with \(scope)"
      case .renameList(let id, let name):
        "rename list \(HouseholdModel.lists.firstIndex(of: id)!) \(name.debugDescription)"
      case .shareList(let id, let scope):
        "share list \(HouseholdModel.lists.firstIndex(of: id)!) with \(scope)"
      case .renamePlan(let id, let name):
        "rename plan \(HouseholdModel.plans.firstIndex(of: id)!) \(name.debugDescription)"
      case .reorderCategories(let rotation): "reorder categories, rotated by \(rotation)"
      case .deleteCategory(let index): "delete category #\(index)"
      case .editDetail(let edit, let index, let value):
        "\(edit) \(edit.target) #\(index): \(edit.writes(value, at: HouseholdState.genesis))"
      }
    }
  }

  package struct Observation: Equatable, CustomStringConvertible {
    package var dissolved = false
    package var categories: Set<CategoryKey> = []
    /// Each category's sort order.
    package var categoryOrders: [CategoryKey: Int64] = [:]
    package var members: Set<MemberID> = []
    package var usage: [IngredientKey: UInt64] = [:]
    /// Each template's display name.
    package var ingredientNames: [IngredientKey: String] = [:]
    package var staples: Set<IngredientKey> = []
    /// Each shelved template's category, resolved through the moves.
    package var shelves: [IngredientKey: CategoryKey] = [:]
    /// Each recipe's title, lines and scope.
    package var recipes: [RecipeID: String] = [:]
    /// Uses of each recipe used at least once, summed over devices.
    package var recipeUses: [RecipeID: UInt64] = [:]
    /// Per slot, the recipes that survive: the winner, then the conflicting ones, newest first.
    package var slots: [SlotKey: [RecipeID]] = [:]
    /// Each list's and plan's name and scope, by id.
    package var containers: [UUID: String] = [:]
    /// Each item's text and category, with a check mark when checked.
    package var items: [String] = []
    /// The details written of each category, recipe, meal, plan and list that shows, by the
    /// record and the field's key.
    package var details: [String: String] = [:]

    package static func item(_ text: String, category: CategoryKey?, checked: Bool) -> String {
      text + " [\(category?.rawValue ?? "-")]" + (checked ? " ✓" : "")
    }

    package static func recipe(_ title: String, lines: [String], scope: SharingScope) -> String {
      "\(title): \(lines.map(\.debugDescription).joined(separator: ", ")) (\(scope))"
    }

    package static func container(_ name: String, scope: SharingScope) -> String {
      "\(name) (\(scope))"
    }

    /// Adds the details of `record`, under its kind and whole key.
    package mutating func note(details: [String: String], of record: RecordKey) {
      let name =
        switch record {
        case .category(let key): "category \(key.rawValue)"
        case .recipe(let id): "recipe \(id.uuid.uuidString)"
        case .meal(let slot): "meal \(slot.rawValue)"
        case .plan(let id): "plan \(id.uuid.uuidString)"
        case .list(let id): "list \(id.uuid.uuidString)"
        case .ingredient, .item, .member: "\(record)"
        }
      for (key, value) in details { self.details["\(name) \(key)"] = value }
    }

    package var description: String {
      func short(_ uuid: UUID) -> Substring { uuid.uuidString.suffix(8) }
      let parts = [
        dissolved ? "dissolved" : "open",
        "categories \(categoryOrders.map { "\($0.key)@\($0.value)" }.sorted())",
        "live \(categories.map(\.rawValue).sorted())", "members \(members.count)",
        "usage \(usage.map { "\($0.key)=\($0.value)" }.sorted())",
        "names \(ingredientNames.map { "\($0.key)=\($0.value.debugDescription)" }.sorted())",
        "staples \(staples.map(\.rawValue).sorted())",
        "shelves \(shelves.map { "\($0.key)→\($0.value)" }.sorted())",
        "recipes \(recipes.map { "\(short($0.key.uuid)) \($0.value)" }.sorted())",
        "recipe uses \(recipeUses.map { "\(short($0.key.uuid))=\($0.value)" }.sorted())",
        "slots \(slots.map { "\($0.key)=\($0.value.map { short($0.uuid) })" }.sorted())",
        "containers \(containers.map { "\(short($0.key)) \($0.value)" }.sorted())",
        "items \(items)",
        "details \(details.map { "\($0.key)=\($0.value.debugDescription)" }.sorted())",
      ]
      return parts.joined(separator: ", ")
    }
  }

  package static let name = "Household"
  /// Every device starts from the same household, created by a founding device before the
  /// scenario (older than any of its stamps); every device acts for the owner.
  package static let initialState = HouseholdReplica.create(
    household: household, owner: member, ownerName: "Owner", replica: "founder",
    // At 1 ms: a stamp at 0 ms could tie with the registers' initial stamp and lose to it.
    wallClock: .fixed(1)
  ).state
  package static func makeInitial() -> HouseholdState { initialState }

  package static func randomOperation(using random: inout SplitMix64) -> Operation {
    switch random.int(in: 0..<160) {
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
    case 116..<122: .editItem(index: random.int(in: 0...5), text: random.pick(ingredientNames))
    case 122..<125:
      .recategorizeItem(
        index: random.int(in: 0...5), categoryIndex: randomCategoryIndex(using: &random))
    case 125..<128: .removeItem(index: random.int(in: 0...5))
    case 128..<131:
      .renameIngredient(
        index: random.int(in: 0...7), to: random.pick(ingredientNames + ingredientRespellings))
    case 131..<134:
      .recategorizeIngredient(
        index: random.int(in: 0...7), categoryIndex: randomCategoryIndex(using: &random))
    case 134..<136:
      .renameRecipe(index: random.int(in: 0...3), to: random.pick(recipeTitles + [" \t"]))
    case 136..<138: .setRecipeLines(index: random.int(in: 0...3), from: random.pick(recipeTitles))
    case 138..<140: .deleteRecipe(index: random.int(in: 0...3))
    case 140..<141:
      .shareRecipe(index: random.int(in: 0...3), random.pick(SharingScope.allCases))
    case 141..<143: .renameList(random.pick(lists), to: random.pick(containerNames))
    case 143..<144: .shareList(random.pick(lists), random.pick(SharingScope.allCases))
    case 144..<145: .renamePlan(random.pick(plans), to: random.pick(containerNames))
    case 145..<147: .reorderCategories(rotation: random.int(in: 0...7))
    case 147..<150: .deleteCategory(index: random.int(in: 0...7))
    case 152..<160: randomDetailEdit(using: &random)
    // Dissolving ends a scenario's changes, so it is rare.
    default: random.chance(0.3) ? .dissolve : .importLegacy
    }
  }

  package static func randomDetailEdit(using random: inout SplitMix64) -> Operation {
    .editDetail(
      random.pick(DetailEdit.allCases), index: random.int(in: 0...7),
      randomDetailValue(using: &random))
  }

  package static func randomDetailValue(using random: inout SplitMix64) -> DetailEdit.Value {
    DetailEdit.Value(
      count: Int64(random.int(in: 1...12)), flag: random.chance(0.5),
      text: random.pick(detailTexts))
  }

  /// A category to pick by index among the shown ones, or none.
  package static func randomCategoryIndex(using random: inout SplitMix64) -> Int? {
    random.chance(0.2) ? nil : random.int(in: 0...7)
  }

  package static func apply(
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
    perform(operation, on: &device)
    state = device.state
    // The delta the replica collected from its own edits: the kit checks that it gives the
    // state after from the state before, and that the records it names as removed are all it
    // removes wherever it is merged.
    return device.takeLocalDelta()
  }

  package static func stateForm(of delta: HouseholdState) -> HouseholdState { delta.stateForm }

  /// Performs `operation` on `device`, skipping what the device cannot do yet (assigning with
  /// no recipe known, adding to a list it does not have). A blank name must be refused.
  package static func perform(_ operation: Operation, on device: inout HouseholdReplica) {
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
  package static func performRefused(_ operation: Operation, on device: inout HouseholdReplica) {
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
  package static func manualItems(on device: HouseholdReplica) -> [GroceryItemID] {
    device.weeklyLists().flatMap { device.items(in: $0.id) }.filter { $0.source == .manual }
      .map(\.id).sorted()
  }

  package static func performChecked(_ operation: Operation, on device: inout HouseholdReplica)
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
      case .editDetail(let edit, let index, let value):
        try performDetailEdit(edit, index: index, value, on: &device)
      case .reassign(let index, let slot):
        try clear(slot, on: &device)
        try performChecked(.assign(recipeIndex: index, slot: slot), on: &device)
      case .createList(let id): try device.createWeeklyList(name: "List", id: id)
      case .createPlan(let id): try device.createMealPlan(name: "Plan", id: id)
      case .deletePlan(let id):
        try refusing(device.state.plans.contains(id) ? nil : .unknownMealPlan(id), on: &device) {
          device throws(HouseholdError) in try device.deleteMealPlan(id)
        }
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
        try refusing(device.state.lists.contains(id) ? nil : .unknownList(id), on: &device) {
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
      case .editItem, .recategorizeItem, .removeItem:
        try performItemEdit(operation, on: &device)
      case .renameIngredient(let index, let name):
        let keys = device.ingredients().map(\.key).sorted()
        guard !keys.isEmpty else { break }
        let key = keys[index % keys.count]
        let named = IngredientKey(normalizing: name, version: device.state.normalizerVersion)
        let refusal: HouseholdError? =
          if blankNames.contains(name) {
            .blankName(name)
          } else if named != key {
            .ingredientRenameChangesKey(name: name, key: key, becomes: named)
          } else {
            nil
          }
        try refusing(refusal, on: &device) { device throws(HouseholdError) in
          try device.renameIngredient(key, to: name)
        }
      case .recategorizeIngredient(let index, let categoryIndex):
        let keys = device.ingredients().map(\.key).sorted()
        let (category, picked) = pickedCategory(categoryIndex, on: device)
        if !keys.isEmpty, picked {
          try device.setCategory(category, ofIngredient: keys[index % keys.count])
        }
      case .renameRecipe(let index, let title):
        guard let recipe = knownRecipe(index, on: device) else { break }
        try refusing(blankNames.contains(title) ? .blankName(title) : nil, on: &device) {
          device throws(HouseholdError) in try device.renameRecipe(recipe, to: title)
        }
      case .setRecipeLines(let index, let title):
        if let recipe = knownRecipe(index, on: device) {
          try device.setIngredientLines(lines(of: title), ofRecipe: recipe)
        }
      case .deleteRecipe(let index):
        if let recipe = knownRecipe(index, on: device) { try device.deleteRecipe(recipe) }
      case .shareRecipe(let index, let scope):
        if let recipe = knownRecipe(index, on: device) {
          try device.setSharingScope(scope, of: .recipe(recipe))
        }
      case .renameList(let id, let name):
        try refusing(
          !device.state.lists.contains(id)
            ? .unknownList(id) : blankNames.contains(name) ? .blankName(name) : nil, on: &device
        ) { device throws(HouseholdError) in try device.renameWeeklyList(id, to: name) }
      case .shareList(let id, let scope):
        try refusing(device.state.lists.contains(id) ? nil : .unknownList(id), on: &device) {
          device throws(HouseholdError) in try device.setSharingScope(scope, of: .list(id))
        }
      case .renamePlan(let id, let name):
        try refusing(
          !device.state.plans.contains(id)
            ? .unknownMealPlan(id) : blankNames.contains(name) ? .blankName(name) : nil,
          on: &device
        ) { device throws(HouseholdError) in try device.renameMealPlan(id, to: name) }
      case .reorderCategories(let rotation):
        let keys = device.categories().map(\.key).sorted()
        if !keys.isEmpty {
          try device.reorderCategories(keys.indices.map { keys[($0 + rotation) % keys.count] })
        }
      case .deleteCategory(let index):
        let keys = device.categories().map(\.key).sorted()
        if !keys.isEmpty { try device.deleteCategory(keys[index % keys.count]) }
      }
    }
  }

  /// Edits the `index`-th manual item the device shows, if it shows any.
  package static func performItemEdit(_ operation: Operation, on device: inout HouseholdReplica)
    throws(HouseholdError)
  {
    let items = manualItems(on: device)
    guard !items.isEmpty else { return }
    switch operation {
    case .editItem(let index, let text):
      try refusing(blankNames.contains(text) ? .blankName(text) : nil, on: &device) {
        device throws(HouseholdError) in try device.editItem(items[index % items.count], text: text)
      }
    case .recategorizeItem(let index, let categoryIndex):
      let (category, picked) = pickedCategory(categoryIndex, on: device)
      if picked { try device.setCategory(category, ofItem: items[index % items.count]) }
    case .removeItem(let index): try device.removeItem(items[index % items.count])
    default: fatalError("\(operation) is not an item edit")
    }
  }

  /// Edits a detail of the record `index` picks, if the device shows one to pick: a slot, plan
  /// or list it does not show must be refused with nothing changed.
  package static func performDetailEdit(
    _ edit: DetailEdit, index: Int, _ value: DetailEdit.Value, on device: inout HouseholdReplica
  ) throws(HouseholdError) {
    let record: RecordKey
    var refusal: HouseholdError?
    switch edit.target {
    case .category:
      let keys = device.categories().map(\.key).sorted()
      guard !keys.isEmpty else { return }
      record = .category(keys[index % keys.count])
    case .recipe:
      guard let id = knownRecipe(index, on: device) else { return }
      record = .recipe(id)
    case .meal:
      let slot = slots[index % slots.count]
      record = .meal(slot)
      if device.plannedMeal(slot) == nil { refusal = .emptySlot(slot) }
    case .plan:
      let id = plans[index % plans.count]
      record = .plan(id)
      if !device.mealPlans().contains(where: { $0.id == id }) { refusal = .unknownMealPlan(id) }
    case .list:
      let id = lists[index % lists.count]
      record = .list(id)
      if !device.weeklyLists().contains(where: { $0.id == id }) { refusal = .unknownList(id) }
    }
    try refusing(refusal, on: &device) { device throws(HouseholdError) in
      try edit.perform(value, on: record, of: &device)
    }
  }

  /// The `index`-th category the device shows (in key order), `nil` for none, or `nil` and
  /// `false` when it shows none to pick.
  package static func pickedCategory(_ index: Int?, on device: HouseholdReplica) -> (
    CategoryKey?, picked: Bool
  ) {
    guard let index else { return (nil, true) }
    let keys = device.categories().map(\.key).sorted()
    return keys.isEmpty ? (nil, false) : (keys[index % keys.count], true)
  }

  /// The `index`-th recipe the device shows (by id), if any.
  package static func knownRecipe(_ index: Int, on device: HouseholdReplica) -> RecipeID? {
    let known = device.recipes().map(\.id).sorted()
    return known.isEmpty ? nil : known[index % known.count]
  }

  /// Clears `slot`: a slot that holds no meal must be refused with nothing changed.
  package static func clear(_ slot: SlotKey, on device: inout HouseholdReplica)
    throws(HouseholdError)
  {
    try refusing(device.state.meals.contains(slot) ? nil : .emptySlot(slot), on: &device) {
      device throws(HouseholdError) in try device.clearSlot(slot)
    }
  }

  /// Performs `change`, which must be refused with `refusal`, when there is one, and change
  /// nothing then.
  package static func refusing(
    _ refusal: HouseholdError?, on device: inout HouseholdReplica,
    _ change: (inout HouseholdReplica) throws(HouseholdError) -> Void
  ) throws(HouseholdError) {
    guard let refusal else { return try change(&device) }
    let before = device.state
    do {
      try change(&device)
      fatalError("a change was not refused with \(refusal)")
    } catch {
      if case .householdDissolved = error { throw error }
      guard error == refusal, device.state == before else {
        fatalError("a change was refused with \(error), not \(refusal), or changed the state")
      }
    }
  }

  package static func observe(_ state: HouseholdState) -> Observation {
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
    for template in device.ingredients() {
      observation.ingredientNames[template.key] = template.displayName
    }
    for category in device.categories() {
      observation.categoryOrders[category.key] = category.sortOrder
    }
    for target in DetailEdit.Target.allCases {
      for record in target.records(shownBy: device) {
        observation.note(details: DetailEdit.writtenDetails(of: record, in: state), of: record)
      }
    }
    for recipe in device.recipes() {
      observation.recipes[recipe.id] = Observation.recipe(
        recipe.displayName, lines: recipe.ingredientLines, scope: recipe.sharingScope)
      if recipe.usageCount > 0 { observation.recipeUses[recipe.id] = recipe.usageCount }
    }
    for meal in device.plannedMeals() {
      observation.slots[meal.slot] = [meal.recipe].compactMap { $0 } + meal.conflictingRecipes
    }
    for list in device.weeklyLists() {
      observation.containers[list.id.uuid] = Observation.container(
        list.displayName, scope: list.sharingScope)
    }
    for plan in device.mealPlans() {
      observation.containers[plan.id.uuid] = Observation.container(
        plan.displayName, scope: plan.sharingScope)
    }
    observation.items = device.weeklyLists().flatMap { device.items(in: $0.id) }
      .map {
        Observation.item(
          $0.displayName, category: $0.categoryKey.flatMap(state.resolvedCategory),
          checked: $0.isChecked)
      }.sorted()
    return observation
  }

  /// The stamp of the `tick`-th tick of the event's device. Its clock starts at the event's
  /// timestamp, which the scenario draws after every stamp the device holds, and its wall
  /// clock stands still, so ticks count up the logical part.
  package static func stamp(of event: Event<Operation>, tick: UInt32) -> HybridTimestamp {
    HybridTimestamp(
      wallMilliseconds: event.timestamp.wallMilliseconds, logical: event.timestamp.logical + tick,
      replica: event.replica)
  }

  /// The stamp the import gives a legacy record dated `milliseconds` after 1970.
  package static func legacyStamp(_ milliseconds: UInt64, by event: Event<Operation>)
    -> HybridTimestamp
  {
    HybridTimestamp(wallMilliseconds: milliseconds, replica: event.replica)
  }

  /// The events that had an effect: a device that had seen the household dissolved changed
  /// nothing.
  package static func effective(_ events: [Event<Operation>]) -> [Event<Operation>] {
    let dissolutions = Set(
      events.filter { if case .dissolve = $0.operation { true } else { false } }.map(\.id))
    return events.filter { $0.observed.isDisjoint(with: dissolutions) }
  }

  package static func isLessThanOrEqual(_ a: HouseholdState, _ b: HouseholdState) -> Bool {
    a.isLessThanOrEqual(to: b)
  }

  package static func invariantViolations(of state: HouseholdState) -> [String] {
    state.invariantViolations()
  }
}
