import ForagerSync
import SemanticCRDT

/// A record of a household, by the key its map holds it under.
enum RecordRef: Hashable, Sendable, CustomStringConvertible {
  case category(CategoryKey)
  case ingredient(IngredientKey)
  case recipe(RecipeID)
  case list(WeeklyListID)
  case item(GroceryItemID)
  case plan(MealPlanID)
  case meal(SlotKey)
  case member(MemberID)

  var description: String {
    switch self {
    case .category(let key): "category \(key.rawValue.debugDescription)"
    case .ingredient(let key): "template \(key.rawValue.debugDescription)"
    case .recipe(let id): "recipe \(id.uuid.uuidString.prefix(8))"
    case .list(let id): "list \(id.uuid.uuidString.prefix(8))"
    case .item(let id): "item \(id.uuid.uuidString.prefix(8))"
    case .plan(let id): "plan \(id.uuid.uuidString.prefix(8))"
    case .meal(let slot): "slot \(slot.rawValue)"
    case .member(let id): "member \(id.uuid.uuidString.prefix(8))"
    }
  }
}

/// A last-writer-wins field that the workload writes.
enum FieldRef: Hashable, Sendable, CustomStringConvertible {
  case categoryName(CategoryKey)
  case staple(IngredientKey)
  case checked(GroceryItemID)

  var record: RecordRef {
    switch self {
    case .categoryName(let key): .category(key)
    case .staple(let key): .ingredient(key)
    case .checked(let id): .item(id)
    }
  }

  var description: String {
    switch self {
    case .categoryName: "name of \(record)"
    case .staple: "staple flag of \(record)"
    case .checked: "checked flag of \(record)"
    }
  }
}

/// A usage counter.
enum CounterRef: Hashable, Sendable, CustomStringConvertible {
  case ingredientUses(IngredientKey)
  case recipeUses(RecipeID)

  var record: RecordRef {
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
  let record: RecordRef
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
  let record: RecordRef
  /// The logged writes of the record that the removal had seen (and so removed).
  let seen: Set<Dot>
}

extension HouseholdState {
  /// Whether `record` is present.
  func contains(_ record: RecordRef) -> Bool {
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
  func context(of record: RecordRef) -> CausalContext {
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
  func newestDot(of record: RecordRef, by replica: ReplicaID) -> Dot? {
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
  func hasSeen(_ dot: Dot, of record: RecordRef) -> Bool {
    context(of: record).contains(dot)
  }

  /// The field's current stamp and value, or `nil` when its record is absent.
  func field(_ field: FieldRef) -> (stamp: HybridTimestamp, value: String)? {
    switch field {
    case .categoryName(let key):
      categories[key].map { ($0.name.timestamp, $0.name.value) }
    case .staple(let key):
      ingredients[key].map { ($0.staple.timestamp, String($0.staple.value)) }
    case .checked(let id):
      items[id].map { ($0.checked.timestamp, String($0.checked.value)) }
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
