import SemanticCRDT

/// Fields every household record has: creation, sharing scope, and `updatedAt` derived from
/// the clocks of its fields.
public protocol HouseholdRecord: Nestable, HybridTimestamped, Codable, Sendable {
  /// Who created the record and when (the earliest creation after merges).
  var creation: Creation { get }
  /// Who may see it.
  var sharingScope: SharingScope { get }
}

extension HouseholdRecord {
  /// The creating member, who owns the record.
  public var owner: MemberID { creation.member }
  /// When the record was created.
  public var createdAt: HybridTimestamp { creation.timestamp }
  /// The latest write to any field.
  public var updatedAt: HybridTimestamp { greatestTimestamp ?? creation.timestamp }
}

/// A grocery category, unique by ``CategoryKey``.
///
/// Named `GroceryCategory`, not `Category`, because the Objective-C runtime that Foundation
/// re-exports on Apple platforms declares a `Category` (docs/decisions/0020).
public struct GroceryCategory: HouseholdRecord {
  /// The semantic key, from the display name.
  public internal(set) var key: CategoryKey
  public private(set) var creation: Creation
  package var name: LWWRegister<String>
  package var order: LWWRegister<Int64>
  package var scope: LWWRegister<SharingScope>

  /// The record's keys in both codecs, in the order they are written.
  enum CodingKeys: String, CodingKey, CaseIterable, Sendable {
    case creation, key, name, order, scope
  }

  /// The name as a person wrote it; the last write wins.
  public var displayName: String { name.value }
  /// The semantic key by the name the app's design gives it: the display name normalized.
  public var normalizedName: CategoryKey { key }
  /// Position in lists; categories sort by this, then display name.
  public var sortOrder: Int64 { order.value }
  public var sharingScope: SharingScope { scope.value }

  public mutating func merge(_ other: GroceryCategory) {
    creation.merge(other.creation)
    name.merge(other.name)
    order.merge(other.order)
    scope.merge(other.scope)
  }

  public var greatestTimestamp: HybridTimestamp? {
    max(name.timestamp, order.timestamp, scope.timestamp)
  }
}

/// An ingredient template, unique by ``IngredientKey``; grocery items and recipes refer to it
/// by that key.
public struct IngredientTemplate: HouseholdRecord {
  public internal(set) var key: IngredientKey
  public private(set) var creation: Creation
  package var name: LWWRegister<String>
  package var staple: LWWRegister<Bool>
  package var category: LWWRegister<CategoryKey?>
  package var uses: GCounter
  package var scope: LWWRegister<SharingScope>

  /// The record's keys in both codecs, in the order they are written.
  enum CodingKeys: String, CodingKey, CaseIterable, Sendable {
    case category, creation, key, name, scope, staple, uses
  }

  public var displayName: String { name.value }
  /// The semantic key by the name the app's design gives it: the ingredient's canonical name.
  public var canonicalName: IngredientKey { key }
  /// Whether the household keeps it stocked; last write wins.
  public var isStaple: Bool { staple.value }
  /// The category it is shelved under, by key.
  public var categoryKey: CategoryKey? { category.value }
  /// How often it has been used, summed over every device: increments are never lost.
  public var usageCount: UInt64 { uses.value }
  public var sharingScope: SharingScope { scope.value }

  public mutating func merge(_ other: IngredientTemplate) {
    creation.merge(other.creation)
    name.merge(other.name)
    staple.merge(other.staple)
    category.merge(other.category)
    uses.merge(other.uses)
    scope.merge(other.scope)
  }

  public var greatestTimestamp: HybridTimestamp? {
    max(name.timestamp, staple.timestamp, category.timestamp, scope.timestamp)
  }
}

/// A recipe. Identified by UUID: two recipes may share a title, and
/// ``HouseholdReplica/findSimilarRecipes(title:)`` finds them.
public struct Recipe: HouseholdRecord {
  public let id: RecipeID
  public private(set) var creation: Creation
  package var title: LWWRegister<String>
  package var lines: LWWRegister<[String]>
  package var uses: GCounter
  package var scope: LWWRegister<SharingScope>

  /// The record's keys in both codecs, in the order they are written.
  enum CodingKeys: String, CodingKey, CaseIterable, Sendable {
    case creation, id, lines, scope, title, uses
  }

  public var displayName: String { title.value }
  /// The title's similarity key.
  public var titleKey: RecipeTitleKey { RecipeTitleKey(normalizing: title.value) }
  /// The ingredient lines as written ("2 cups flour").
  public var ingredientLines: [String] { lines.value }
  public var usageCount: UInt64 { uses.value }
  public var sharingScope: SharingScope { scope.value }

  public mutating func merge(_ other: Recipe) {
    creation.merge(other.creation)
    title.merge(other.title)
    lines.merge(other.lines)
    uses.merge(other.uses)
    scope.merge(other.scope)
  }

  public var greatestTimestamp: HybridTimestamp? {
    max(title.timestamp, lines.timestamp, scope.timestamp)
  }
}

/// The keys of a ``NamedContainer`` in both codecs, in the order they are written: outside the
/// generic type, so one table of them serves every kind of container.
enum NamedContainerField: String, CodingKey, CaseIterable, Sendable {
  case creation, id, name, scope
}

/// A named container of other records, with no uniqueness: a weekly list holds
/// grocery items, a meal plan holds planned meals. Deleting it hides its children.
public struct NamedContainer<ID: UUIDIdentifier>: HouseholdRecord {
  public let id: ID
  public private(set) var creation: Creation
  package var name: LWWRegister<String>
  package var scope: LWWRegister<SharingScope>
  typealias CodingKeys = NamedContainerField

  public var displayName: String { name.value }
  public var sharingScope: SharingScope { scope.value }

  public mutating func merge(_ other: NamedContainer) {
    creation.merge(other.creation)
    name.merge(other.name)
    scope.merge(other.scope)
  }

  public var greatestTimestamp: HybridTimestamp? { max(name.timestamp, scope.timestamp) }
}

/// A weekly grocery list: a container of items; a household may keep several for one week.
public typealias WeeklyList = NamedContainer<WeeklyListID>

/// A meal plan ("This Week", "Meal Prep Ideas"): a container of planned meals.
public typealias MealPlan = NamedContainer<MealPlanID>

/// One line of a grocery list; no uniqueness. It names its ingredient template and
/// category by semantic key, so references survive two records becoming one.
public struct GroceryListItem: HouseholdRecord {
  public let id: GroceryItemID
  public let listID: WeeklyListID
  public let source: ItemSource
  public private(set) var creation: Creation
  package var template: LWWRegister<IngredientKey>
  package var category: LWWRegister<CategoryKey?>
  package var text: LWWRegister<String>
  package var checked: LWWRegister<Bool>
  package var scope: LWWRegister<SharingScope>

  /// The record's keys in both codecs, in the order they are written.
  enum CodingKeys: String, CodingKey, CaseIterable, Sendable {
    case category, checked, creation, id, listID, scope, source, template, text
  }

  /// The line as written, quantity included ("2 cups flour").
  public var displayName: String { text.value }
  public var templateKey: IngredientKey { template.value }
  public var categoryKey: CategoryKey? { category.value }
  public var isChecked: Bool { checked.value }
  public var sharingScope: SharingScope { scope.value }

  public mutating func merge(_ other: GroceryListItem) {
    creation.merge(other.creation)
    template.merge(other.template)
    category.merge(other.category)
    text.merge(other.text)
    checked.merge(other.checked)
    scope.merge(other.scope)
  }

  public var greatestTimestamp: HybridTimestamp? {
    max(template.timestamp, category.timestamp, text.timestamp, checked.timestamp, scope.timestamp)
  }
}

/// The meal in one slot (day and meal type), unique by ``SlotKey``.
///
/// The recipe is a multi-value register: two devices assigning different recipes to one slot
/// offline both survive the merge; ``recipe`` is the deterministic winner and
/// ``conflictingRecipes`` the others, until a later assignment resolves them.
public struct PlannedMeal: HouseholdRecord {
  public let slot: SlotKey
  public private(set) var creation: Creation
  package var assignment: MVRegister<RecipeID>
  package var plan: LWWRegister<MealPlanID?>
  package var scope: LWWRegister<SharingScope>

  /// The record's keys in both codecs, in the order they are written.
  enum CodingKeys: String, CodingKey, CaseIterable, Sendable {
    case assignment, creation, plan, scope, slot
  }

  /// The recipe in the slot: the winner of concurrent assignments; `nil` when empty.
  public var recipe: RecipeID? { assignment.winner }
  /// Recipes assigned concurrently and not yet resolved; empty when there is no conflict.
  public var conflictingRecipes: [RecipeID] { assignment.conflicts }
  public var mealPlanID: MealPlanID? { plan.value }
  /// The semantic key by the name the app's design gives it: the day and meal type.
  public var slotKey: SlotKey { slot }
  public var displayName: String { slot.rawValue }
  public var sharingScope: SharingScope { scope.value }

  public mutating func merge(_ other: PlannedMeal) {
    creation.merge(other.creation)
    assignment.merge(other.assignment)
    plan.merge(other.plan)
    scope.merge(other.scope)
  }

  public var greatestTimestamp: HybridTimestamp? {
    let registers = max(plan.timestamp, scope.timestamp)
    return assignment.greatestTimestamp.map { max($0, registers) } ?? registers
  }
}

/// A member of the household.
public struct Member: HouseholdRecord {
  public let id: MemberID
  public private(set) var creation: Creation
  package var name: LWWRegister<String>
  package var roleRegister: LWWRegister<MemberRole>

  /// The record's keys in both codecs, in the order they are written.
  enum CodingKeys: String, CodingKey, CaseIterable, Sendable {
    case creation, id, name, roleRegister
  }

  public var displayName: String { name.value }
  public var role: MemberRole { roleRegister.value }
  public var sharingScope: SharingScope { .household }

  public mutating func merge(_ other: Member) {
    creation.merge(other.creation)
    name.merge(other.name)
    roleRegister.merge(other.roleRegister)
  }

  public var greatestTimestamp: HybridTimestamp? { max(name.timestamp, roleRegister.timestamp) }
}

// MARK: - Field-by-field initializers, for decoding

extension GroceryCategory {
  /// A new category whose name and position were chosen at `chosenAt`: its creation's stamp,
  /// or ``HouseholdState/genesis`` for a default no one chose.
  init(
    key: CategoryKey, displayName: String, sortOrder: Int64, creation: Creation,
    chosenAt: HybridTimestamp? = nil
  ) {
    self.key = key
    self.creation = creation
    name = LWWRegister(displayName, at: chosenAt ?? creation.timestamp)
    order = LWWRegister(sortOrder, at: chosenAt ?? creation.timestamp)
    scope = LWWRegister(unchosen: .household)
  }
}

extension IngredientTemplate {
  /// A new template shows its key until someone respells it; that name is no one's choice, so
  /// a device's first use of the ingredient does not undo a respelling made elsewhere.
  init(key: IngredientKey, category: CategoryKey?, creation: Creation) {
    self.key = key
    self.creation = creation
    name = LWWRegister(unchosen: key.rawValue)
    staple = LWWRegister(unchosen: false)
    self.category = LWWRegister(category, chosenAt: creation.timestamp)
    uses = GCounter()
    scope = LWWRegister(unchosen: .household)
  }
}

extension Recipe {
  init(id: RecipeID, title: String, ingredientLines: [String], creation: Creation) {
    self.id = id
    self.creation = creation
    self.title = LWWRegister(title, at: creation.timestamp)
    lines = LWWRegister(ingredientLines, at: creation.timestamp)
    uses = GCounter()
    scope = LWWRegister(unchosen: .household)
  }
}

extension NamedContainer {
  init(id: ID, name: String, creation: Creation) {
    self.id = id
    self.creation = creation
    self.name = LWWRegister(name, at: creation.timestamp)
    scope = LWWRegister(unchosen: .household)
  }
}

extension GroceryListItem {
  init(
    id: GroceryItemID, listID: WeeklyListID, source: ItemSource, text: String,
    template: IngredientKey, category: CategoryKey?, creation: Creation
  ) {
    self.id = id
    self.listID = listID
    self.source = source
    self.creation = creation
    self.template = LWWRegister(template, at: creation.timestamp)
    self.category = LWWRegister(category, chosenAt: creation.timestamp)
    self.text = LWWRegister(text, at: creation.timestamp)
    checked = LWWRegister(unchosen: false)
    scope = LWWRegister(unchosen: .household)
  }
}

extension PlannedMeal {
  init(slot: SlotKey, plan: MealPlanID?, creation: Creation) {
    self.slot = slot
    self.creation = creation
    assignment = MVRegister()
    self.plan = LWWRegister(plan, chosenAt: creation.timestamp)
    scope = LWWRegister(unchosen: .household)
  }
}

extension Member {
  init(id: MemberID, name: String, role: MemberRole, creation: Creation) {
    self.id = id
    self.creation = creation
    self.name = LWWRegister(name, at: creation.timestamp)
    roleRegister = LWWRegister(role, at: creation.timestamp)
  }
}
