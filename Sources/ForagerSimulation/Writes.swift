import ForagerSync
import SemanticCRDT

/// A last-writer-wins field that the workload writes, named by its record and its key in the
/// record's declaration (ADR 0036), so that the simulator reads every field the way the codecs
/// do and a field added to a record needs no case here. Every write of one is logged, a
/// creation's included: a keyed record (a category, a template) and an imported one (under its
/// legacy id) may be created on several devices at once, and an edit lost in a crash leaves
/// the creation's value.
struct FieldRef: Hashable, Sendable, CustomStringConvertible {
  let record: RecordKey
  /// The field's key in its record's declaration: `"name"`, or `"note:lww"` for a field
  /// added since format 3.
  let key: String

  var description: String { "\(key) of \(record)" }

  /// A register's value as reports and ``HouseholdState/field(_:)`` show it.
  static func shown(_ value: Any) -> String { String(describing: value) }

  static func categoryName(_ key: CategoryKey) -> FieldRef {
    FieldRef(record: .category(key), key: "name")
  }
  static func categoryOrder(_ key: CategoryKey) -> FieldRef {
    FieldRef(record: .category(key), key: "order")
  }
  static func templateName(_ key: IngredientKey) -> FieldRef {
    FieldRef(record: .ingredient(key), key: "name")
  }
  static func templateCategory(_ key: IngredientKey) -> FieldRef {
    FieldRef(record: .ingredient(key), key: "category")
  }
  static func staple(_ key: IngredientKey) -> FieldRef {
    FieldRef(record: .ingredient(key), key: "staple")
  }
  static func recipeTitle(_ id: RecipeID) -> FieldRef {
    FieldRef(record: .recipe(id), key: "title")
  }
  static func recipeLines(_ id: RecipeID) -> FieldRef {
    FieldRef(record: .recipe(id), key: "lines")
  }
  static func listName(_ id: WeeklyListID) -> FieldRef { FieldRef(record: .list(id), key: "name") }
  static func planName(_ id: MealPlanID) -> FieldRef { FieldRef(record: .plan(id), key: "name") }
  static func itemText(_ id: GroceryItemID) -> FieldRef { FieldRef(record: .item(id), key: "text") }
  static func itemTemplate(_ id: GroceryItemID) -> FieldRef {
    FieldRef(record: .item(id), key: "template")
  }
  static func itemCategory(_ id: GroceryItemID) -> FieldRef {
    FieldRef(record: .item(id), key: "category")
  }
  static func checked(_ id: GroceryItemID) -> FieldRef {
    FieldRef(record: .item(id), key: "checked")
  }
  static func scope(_ record: RecordKey) -> FieldRef { FieldRef(record: record, key: "scope") }
}

extension FieldRef {
  /// The fields of `record` that the workload logs: what creating it writes, every
  /// last-writer-wins field its kind declares. A planned meal's and a member's are not: a meal
  /// is created by an assignment, logged as one, and members are not followed field by field.
  static func fields(of record: RecordKey) -> [FieldRef] {
    switch record {
    case .member, .meal: []
    default: HouseholdState.registerKeys(of: record).map { FieldRef(record: record, key: $0) }
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

/// A write a device saved, which a restore from an older file may lose.
protocol SavedWrite {
  var household: Int { get }
  /// Whether `state` has seen the write.
  func isSeen(by state: HouseholdState) -> Bool
}

/// One write a device made and saved (acknowledged), with the dot that names it in its map.
struct LoggedWrite: Sendable, SavedWrite {
  let household: Int
  let device: Int
  let step: Int
  let operation: String
  let record: RecordKey
  /// The dot the write added to the record's map.
  let dot: Dot
  let effect: WriteEffect

  func isSeen(by state: HouseholdState) -> Bool { state.hasSeen(dot, of: record) }
}

/// A removal a device made and saved, with what its map had seen when it was made.
struct LoggedRemoval: Sendable {
  let household: Int
  let device: Int
  let step: Int
  let operation: String
  let record: RecordKey
  /// The dots of the logged writes of the record that the removal had seen (and so removed),
  /// ascending and each once: a few per removal, for which a set's table (with room to grow)
  /// was 15 MB of the 50-device run's 100,000 steps.
  let seen: [Dot]

  /// Whether the removal had seen a logged write of `dot`.
  ///
  /// - Complexity: O(log *n*) for *n* dots seen.
  func hasSeen(_ dot: Dot) -> Bool {
    let position = seen.partitioningIndex { $0 >= dot }
    return position < seen.count && seen[position] == dot
  }
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
    withRecord(field.record) { record in
      func read<Record: DeclaredRecord>(_ record: Record) -> (HybridTimestamp, String)? {
        var reading = RegisterReading(key: field.key)
        var copy = record
        Record.fields(&reading, &copy, Record.blank)
        return reading.found
      }
      return read(record)
    } ?? nil
  }

  /// The keys of the last-writer-wins fields `record`'s kind declares.
  static func registerKeys(of record: RecordKey) -> [String] {
    func keys<Record: DeclaredRecord>(_ kind: Record.Type) -> [String] {
      var reading = RegisterReading(key: nil)
      var blank = Record.blank
      Record.fields(&reading, &blank, Record.blank)
      return reading.keys
    }
    return switch record {
    case .member: keys(Member.self)
    case .category: keys(GroceryCategory.self)
    case .ingredient: keys(IngredientTemplate.self)
    case .recipe: keys(Recipe.self)
    case .list: keys(WeeklyList.self)
    case .item: keys(GroceryListItem.self)
    case .plan: keys(MealPlan.self)
    case .meal: keys(PlannedMeal.self)
    }
  }

  /// Calls `body` with the record `key` names, as whichever kind it is; `nil` when absent.
  func withRecord<Result>(_ key: RecordKey, _ body: (any DeclaredRecord) -> Result) -> Result? {
    switch key {
    case .member(let id): members[id].map(body)
    case .category(let key): categories[key].map(body)
    case .ingredient(let key): ingredients[key].map(body)
    case .recipe(let id): recipes[id].map(body)
    case .list(let id): lists[id].map(body)
    case .item(let id): items[id].map(body)
    case .plan(let id): plans[id].map(body)
    case .meal(let slot): meals[slot].map(body)
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

/// Reads one last-writer-wins field of a record by its key, or lists the keys of them all.
private struct RegisterReading: FieldVisitor {
  typealias Failure = Never
  /// The key to read; `nil` to list the keys.
  let key: String?
  var found: (HybridTimestamp, String)?
  var keys: [String] = []

  mutating func identity<Value: IdentityValue>(
    _ name: StaticString, _ value: inout Value, _ other: Value
  ) {}

  mutating func creation(_ value: inout Creation, _ other: Creation) {}

  mutating func field<Field: RecordField>(_ name: FieldName, _ value: inout Field, _ other: Field) {
    guard Field.kind == .lastWriterWins else { return }
    let fieldKey = name.key(Field.kind)
    guard let key else { return keys.append(fieldKey) }
    guard fieldKey == key, let stamp = value.fieldTimestamp else { return }
    found = (stamp, (value as? any ShownRegister)?.shownValue ?? "\(value)")
  }
}

/// A register's value as the reports show it, read without reflection: a `Mirror` of each field
/// read was most of the checks' reading of fields.
private protocol ShownRegister {
  var shownValue: String { get }
}

extension LWWRegister: ShownRegister {
  fileprivate var shownValue: String { FieldRef.shown(value) }
}
