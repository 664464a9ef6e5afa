import ForagerSync
import SemanticCRDT

/// A last-writer-wins field that the workload writes. Every write of one is logged, a
/// creation's included: a keyed record (a category, a template) and an imported one (under its
/// legacy id) may be created on several devices at once, and an edit lost in a crash leaves
/// the creation's value.
enum FieldRef: Hashable, Sendable, CustomStringConvertible {
  case categoryName(CategoryKey)
  case categoryOrder(CategoryKey)
  case templateName(IngredientKey)
  case templateCategory(IngredientKey)
  case staple(IngredientKey)
  case recipeTitle(RecipeID)
  case recipeLines(RecipeID)
  case listName(WeeklyListID)
  case planName(MealPlanID)
  case itemText(GroceryItemID)
  case itemCategory(GroceryItemID)
  case checked(GroceryItemID)
  case scope(RecordKey)

  var record: RecordKey {
    switch self {
    case .categoryName(let key), .categoryOrder(let key): .category(key)
    case .templateName(let key), .templateCategory(let key), .staple(let key): .ingredient(key)
    case .recipeTitle(let id), .recipeLines(let id): .recipe(id)
    case .listName(let id): .list(id)
    case .planName(let id): .plan(id)
    case .itemText(let id), .itemCategory(let id), .checked(let id): .item(id)
    case .scope(let record): record
    }
  }

  var description: String {
    let field =
      switch self {
      case .categoryName, .templateName, .listName, .planName: "name"
      case .categoryOrder: "sort order"
      case .templateCategory, .itemCategory: "category"
      case .staple: "staple flag"
      case .recipeTitle: "title"
      case .recipeLines: "ingredient lines"
      case .itemText: "text"
      case .checked: "checked flag"
      case .scope: "sharing scope"
      }
    return "\(field) of \(record)"
  }
}

extension FieldRef {
  /// The fields of `record` that the workload logs: what creating it writes.
  static func fields(of record: RecordKey) -> [FieldRef] {
    switch record {
    case .member, .meal: []
    case .category(let key): [.categoryName(key), .categoryOrder(key), .scope(record)]
    case .ingredient(let key):
      [.templateName(key), .templateCategory(key), .staple(key), .scope(record)]
    case .recipe(let id): [.recipeTitle(id), .recipeLines(id), .scope(record)]
    case .list(let id): [.listName(id), .scope(record)]
    case .plan(let id): [.planName(id), .scope(record)]
    case .item(let id): [.itemText(id), .itemCategory(id), .checked(id), .scope(record)]
    }
  }
}

/// A usage counter.
enum CounterRef: Hashable, Sendable, CustomStringConvertible {
  case ingredientUses(IngredientKey)
  case recipeUses(RecipeID)

  var record: RecordKey {
    switch self {
    case .ingredientUses(let key): .ingredient(key)
    case .recipeUses(let id): .recipe(id)
    }
  }

  var description: String { "uses of \(record)" }
}

/// What an acknowledged write did, in terms the final state can be checked against.
enum WriteEffect: Hashable, Sendable {
  /// The record was created or rewritten: it must be present at the end unless a removal that
  /// had seen this write took it away.
  case record
  /// A field was set: at the end it holds this write or one with a greater timestamp.
  case field(FieldRef, HybridTimestamp, value: String)
  /// The `count`-th increment of a counter by `from`: the writing replica, or the legacy
  /// record whose count an import carried.
  case increment(CounterRef, count: UInt64, from: ReplicaID)
  /// A recipe was assigned to a slot: at the end the slot shows it (as the choice or a
  /// conflict), unless a clear or another assignment that had seen this one replaced it.
  case assignment(SlotKey, RecipeID, HybridTimestamp)
}

/// One write a device made and saved (acknowledged), with the dot that names it in its map.
struct LoggedWrite: Sendable {
  let household: Int
  let device: Int
  let step: Int
  let operation: String
  let record: RecordKey
  /// The dot the write added to the record's map.
  let dot: Dot
  let effect: WriteEffect
}

/// A removal a device made and saved, with what its map had seen when it was made.
struct LoggedRemoval: Sendable {
  let household: Int
  let device: Int
  let step: Int
  let operation: String
  let record: RecordKey
  /// The logged writes of the record that the removal had seen (and so removed).
  let seen: Set<Dot>
}

extension HouseholdState {
  /// Whether `record` is present.
  func contains(_ record: RecordKey) -> Bool {
    switch record {
    case .category(let key): categories.contains(key)
    case .ingredient(let key): ingredients.contains(key)
    case .recipe(let id): recipes.contains(id)
    case .list(let id): lists.contains(id)
    case .item(let id): items.contains(id)
    case .plan(let id): plans.contains(id)
    case .meal(let slot): meals.contains(slot)
    case .member(let id): members.contains(id)
    }
  }

  /// The causal context of the map that holds `record`.
  func context(of record: RecordKey) -> CausalContext {
    switch record {
    case .category: categories.context
    case .ingredient: ingredients.context
    case .recipe: recipes.context
    case .list: lists.context
    case .item: items.context
    case .plan: plans.context
    case .meal: meals.context
    case .member: members.context
    }
  }

  /// The newest surviving write of `replica` to `record`.
  func newestDot(of record: RecordKey, by replica: ReplicaID) -> Dot? {
    switch record {
    case .category(let key): categories.newestDot(of: key, by: replica)
    case .ingredient(let key): ingredients.newestDot(of: key, by: replica)
    case .recipe(let id): recipes.newestDot(of: id, by: replica)
    case .list(let id): lists.newestDot(of: id, by: replica)
    case .item(let id): items.newestDot(of: id, by: replica)
    case .plan(let id): plans.newestDot(of: id, by: replica)
    case .meal(let slot): meals.newestDot(of: slot, by: replica)
    case .member(let id): members.newestDot(of: id, by: replica)
    }
  }

  /// Whether this state has seen the write `dot` to `record`'s map.
  func hasSeen(_ dot: Dot, of record: RecordKey) -> Bool {
    context(of: record).contains(dot)
  }

  /// The field's current stamp and value, or `nil` when its record is absent.
  func field(_ field: FieldRef) -> (stamp: HybridTimestamp, value: String)? {
    func read<Value>(_ register: LWWRegister<Value>?) -> (stamp: HybridTimestamp, value: String)? {
      register.map { ($0.timestamp, String(describing: $0.value)) }
    }
    return switch field {
    case .categoryName(let key): read(categories[key]?.name)
    case .categoryOrder(let key): read(categories[key]?.order)
    case .templateName(let key): read(ingredients[key]?.name)
    case .templateCategory(let key): read(ingredients[key]?.category)
    case .staple(let key): read(ingredients[key]?.staple)
    case .recipeTitle(let id): read(recipes[id]?.title)
    case .recipeLines(let id): read(recipes[id]?.lines)
    case .listName(let id): read(lists[id]?.name)
    case .planName(let id): read(plans[id]?.name)
    case .itemText(let id): read(items[id]?.text)
    case .itemCategory(let id): read(items[id]?.category)
    case .checked(let id): read(items[id]?.checked)
    case .scope(let record): read(scope(of: record))
    }
  }

  /// The sharing-scope register of `record`, or `nil` when it is absent (or a member, whose
  /// scope is the household's).
  func scope(of record: RecordKey) -> LWWRegister<SharingScope>? {
    switch record {
    case .member: nil
    case .category(let key): categories[key]?.scope
    case .ingredient(let key): ingredients[key]?.scope
    case .recipe(let id): recipes[id]?.scope
    case .list(let id): lists[id]?.scope
    case .item(let id): items[id]?.scope
    case .plan(let id): plans[id]?.scope
    case .meal(let slot): meals[slot]?.scope
    }
  }

  /// The counter's contributions per replica, or `nil` when its record is absent.
  func contributions(_ counter: CounterRef) -> [ReplicaID: UInt64]? {
    switch counter {
    case .ingredientUses(let key): ingredients[key]?.uses.contributions
    case .recipeUses(let id): recipes[id]?.uses.contributions
    }
  }
}
