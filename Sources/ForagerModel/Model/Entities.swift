import Foundation
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
  /// The semantic key, from the display name: public as ``normalizedName``, the one name the
  /// API gives it.
  package internal(set) var key: CategoryKey
  public private(set) var creation: Creation
  package var color = LWWRegister<String?>(unchosen: nil)
  package var name = LWWRegister(unchosen: "")
  package var order = LWWRegister<Int64>(unchosen: 0)
  package var scope = LWWRegister(unchosen: SharingScope.household)
  package var seeded = MaxRegister<Int64>(0)
  package var unknownFields = UnknownFields()

  package static func fields<Visitor: FieldVisitor>(
    _ visitor: inout Visitor, _ record: inout Self, _ other: Self
  ) throws(Visitor.Failure) {
    try visitor.field("color", &record.color, other.color)
    try visitor.creation(&record.creation, other.creation)
    try visitor.identity("key", &record.key, other.key)
    try visitor.field(.bare("name"), &record.name, other.name)
    try visitor.field(.bare("order"), &record.order, other.order)
    try visitor.field(.bare("scope"), &record.scope, other.scope)
    try visitor.field("seeded", &record.seeded, other.seeded)
  }

  package static let blank = GroceryCategory(key: CategoryKey(rawValue: ""), creation: .placeholder)

  /// The name as a person wrote it; the last write wins.
  public var displayName: String { name.value }
  /// The semantic key, by the name the app's design gives it (the only public one): the display
  /// name normalized.
  public var normalizedName: CategoryKey { key }
  /// Position in lists; categories sort by this, then display name.
  public var sortOrder: Int64 { order.value }
  public var sharingScope: SharingScope { scope.value }
  /// The color the app shows the category in, as the app wrote it (a name or a hex string, say);
  /// `nil` for none. A last-writer-wins register.
  public var displayColor: String? { color.value }
  /// Whether seeding the household's defaults (``HouseholdReplica/seedDefaultCategories()``)
  /// created the category, on any device. A max register: a default created on one device and
  /// the same category made by a person on another, concurrently, merge to a default; a
  /// category a person made before a device seeded stays a person's.
  public var isDefault: Bool { seeded.value > 0 }
}

/// An ingredient template, unique by ``IngredientKey``; grocery items and recipes refer to it
/// by that key.
public struct IngredientTemplate: HouseholdRecord {
  /// The semantic key: public as ``canonicalName``, the one name the API gives it.
  package internal(set) var key: IngredientKey
  public private(set) var creation: Creation
  package var name = LWWRegister(unchosen: "")
  package var staple = LWWRegister(unchosen: false)
  package var category = LWWRegister<CategoryKey?>(unchosen: nil)
  package var uses = GCounter()
  package var scope = LWWRegister(unchosen: SharingScope.household)
  package var unknownFields = UnknownFields()

  package static func fields<Visitor: FieldVisitor>(
    _ visitor: inout Visitor, _ record: inout Self, _ other: Self
  ) throws(Visitor.Failure) {
    try visitor.field(.bare("category"), &record.category, other.category)
    try visitor.creation(&record.creation, other.creation)
    try visitor.identity("key", &record.key, other.key)
    try visitor.field(.bare("name"), &record.name, other.name)
    try visitor.field(.bare("scope"), &record.scope, other.scope)
    try visitor.field(.bare("staple"), &record.staple, other.staple)
    try visitor.field(.bare("uses"), &record.uses, other.uses)
  }

  package static let blank = IngredientTemplate(
    key: IngredientKey(rawValue: ""), creation: .placeholder)

  public var displayName: String { name.value }
  /// The semantic key, by the name the app's design gives it (the only public one): the
  /// ingredient's canonical name.
  public var canonicalName: IngredientKey { key }
  /// Whether the household keeps it stocked; last write wins.
  public var isStaple: Bool { staple.value }
  /// The category it is shelved under, by key.
  public var categoryKey: CategoryKey? { category.value }
  /// How often it has been used, summed over every device: increments are never lost.
  public var usageCount: UInt64 { uses.value }
  public var sharingScope: SharingScope { scope.value }
}

/// A recipe. Identified by UUID: two recipes may share a title, and
/// ``HouseholdReplica/findSimilarRecipes(title:)`` finds them.
public struct Recipe: HouseholdRecord {
  public private(set) var id: RecipeID
  public private(set) var creation: Creation
  package var title = LWWRegister(unchosen: "")
  package var lines = LWWRegister<[String]>(unchosen: [])
  package var uses = GCounter()
  package var scope = LWWRegister(unchosen: SharingScope.household)
  package var directions = LWWRegister(unchosen: "")
  package var prepMinutes = LWWRegister<Int64?>(unchosen: nil)
  package var cookMinutes = LWWRegister<Int64?>(unchosen: nil)
  package var serves = LWWRegister<Int64?>(unchosen: nil)
  package var source = LWWRegister<String?>(unchosen: nil)
  package var favorite = LWWRegister(unchosen: false)
  package var lastUse = MaxRegister<Int64>(0)
  package var unknownFields = UnknownFields()

  package static func fields<Visitor: FieldVisitor>(
    _ visitor: inout Visitor, _ record: inout Self, _ other: Self
  ) throws(Visitor.Failure) {
    try visitor.field("cookMinutes", &record.cookMinutes, other.cookMinutes)
    try visitor.creation(&record.creation, other.creation)
    try visitor.field("directions", &record.directions, other.directions)
    try visitor.field("favorite", &record.favorite, other.favorite)
    try visitor.identity("id", &record.id, other.id)
    try visitor.field("lastUse", &record.lastUse, other.lastUse)
    try visitor.field(.bare("lines"), &record.lines, other.lines)
    try visitor.field("prepMinutes", &record.prepMinutes, other.prepMinutes)
    try visitor.field(.bare("scope"), &record.scope, other.scope)
    try visitor.field("serves", &record.serves, other.serves)
    try visitor.field("source", &record.source, other.source)
    try visitor.field(.bare("title"), &record.title, other.title)
    try visitor.field(.bare("uses"), &record.uses, other.uses)
  }

  package static let blank = Recipe(id: .placeholder, creation: .placeholder)

  public var displayName: String { title.value }
  /// The title's similarity key.
  public var titleKey: RecipeTitleKey { RecipeTitleKey(normalizing: title.value) }
  /// The ingredient lines as written ("2 cups flour").
  public var ingredientLines: [String] { lines.value }
  public var usageCount: UInt64 { uses.value }
  public var sharingScope: SharingScope { scope.value }
  /// How to make it, as written; empty when no one has written any. A last-writer-wins
  /// register, like each detail below: the latest edit of it wins, whichever device made it.
  public var instructions: String { directions.value }
  /// Minutes of preparation; `nil` when not given.
  public var prepTimeMinutes: Int64? { prepMinutes.value }
  /// Minutes of cooking; `nil` when not given.
  public var cookTimeMinutes: Int64? { cookMinutes.value }
  /// How many it serves; `nil` when not given.
  public var servings: Int64? { serves.value }
  /// Where the recipe came from; `nil` when not given.
  public var sourceURL: URL? { source.value.flatMap { URL(string: $0) } }
  /// Whether it is a favorite.
  public var isFavorite: Bool { favorite.value }
  /// When it was last used (``HouseholdReplica/recordUse(ofRecipe:)``); `nil` before the first
  /// use. A max register: it only moves forward, so a device whose use comes in late never
  /// moves it back.
  public var lastUsed: Date? {
    lastUse.value > 0 ? Date(millisecondsSince1970: lastUse.value) : nil
  }
}

/// A weekly grocery list: a container of items, with no uniqueness; a household may keep
/// several for one week. Deleting it deletes its items.
public struct WeeklyList: HouseholdRecord {
  public private(set) var id: WeeklyListID
  public private(set) var creation: Creation
  package var name = LWWRegister(unchosen: "")
  package var scope = LWWRegister(unchosen: SharingScope.household)
  package var note = LWWRegister(unchosen: "")
  package var completion = LWWRegister<Int64?>(unchosen: nil)
  package var unknownFields = UnknownFields()

  package static func fields<Visitor: FieldVisitor>(
    _ visitor: inout Visitor, _ record: inout Self, _ other: Self
  ) throws(Visitor.Failure) {
    try visitor.field("completion", &record.completion, other.completion)
    try visitor.creation(&record.creation, other.creation)
    try visitor.identity("id", &record.id, other.id)
    try visitor.field(.bare("name"), &record.name, other.name)
    try visitor.field("note", &record.note, other.note)
    try visitor.field(.bare("scope"), &record.scope, other.scope)
  }

  package static let blank = WeeklyList(id: .placeholder, creation: .placeholder)

  public var displayName: String { name.value }
  public var sharingScope: SharingScope { scope.value }
  /// Notes on the list, as written; empty when none. A last-writer-wins register.
  public var notes: String { note.value }
  /// Whether the list is done. One last-writer-wins register holds it with ``completedAt``, so
  /// the two always change together.
  public var isCompleted: Bool { completion.value != nil }
  /// When the list was marked done; `nil` while it is not.
  public var completedAt: Date? { completion.value.map(Date.init(millisecondsSince1970:)) }
}

/// A meal plan ("This Week", "Meal Prep Ideas"): a container of planned meals, with no
/// uniqueness. Deleting it deletes its meals.
public struct MealPlan: HouseholdRecord {
  public private(set) var id: MealPlanID
  public private(set) var creation: Creation
  package var name = LWWRegister(unchosen: "")
  package var scope = LWWRegister(unchosen: SharingScope.household)
  package var start = LWWRegister<CalendarDay?>(unchosen: nil)
  package var days = LWWRegister<Int64?>(unchosen: nil)
  package var active = LWWRegister(unchosen: false)
  package var completion = LWWRegister<Int64?>(unchosen: nil)
  package var unknownFields = UnknownFields()

  package static func fields<Visitor: FieldVisitor>(
    _ visitor: inout Visitor, _ record: inout Self, _ other: Self
  ) throws(Visitor.Failure) {
    try visitor.field("active", &record.active, other.active)
    try visitor.field("completion", &record.completion, other.completion)
    try visitor.creation(&record.creation, other.creation)
    try visitor.field("days", &record.days, other.days)
    try visitor.identity("id", &record.id, other.id)
    try visitor.field(.bare("name"), &record.name, other.name)
    try visitor.field(.bare("scope"), &record.scope, other.scope)
    try visitor.field("start", &record.start, other.start)
  }

  package static let blank = MealPlan(id: .placeholder, creation: .placeholder)

  public var displayName: String { name.value }
  public var sharingScope: SharingScope { scope.value }
  /// The first day it plans; `nil` when not given. A last-writer-wins register, like the
  /// duration and the active flag.
  public var startDay: CalendarDay? { start.value }
  /// How many days it plans; `nil` when not given.
  public var durationDays: Int64? { days.value }
  /// Whether it is the plan the household is following.
  public var isActive: Bool { active.value }
  /// Whether the plan is done. One last-writer-wins register holds it with ``completedAt``, so
  /// the two always change together.
  public var isCompleted: Bool { completion.value != nil }
  /// When the plan was marked done; `nil` while it is not.
  public var completedAt: Date? { completion.value.map(Date.init(millisecondsSince1970:)) }
}

/// One line of a grocery list; no uniqueness. It names its ingredient template and
/// category by semantic key, so references survive two records becoming one.
public struct GroceryListItem: HouseholdRecord {
  public private(set) var id: GroceryItemID
  public private(set) var listID: WeeklyListID
  public private(set) var source: ItemSource
  public private(set) var creation: Creation
  package var template = LWWRegister(unchosen: IngredientKey(rawValue: ""))
  package var category = LWWRegister<CategoryKey?>(unchosen: nil)
  package var text = LWWRegister(unchosen: "")
  package var checked = LWWRegister(unchosen: false)
  package var scope = LWWRegister(unchosen: SharingScope.household)
  package var unknownFields = UnknownFields()

  package static func fields<Visitor: FieldVisitor>(
    _ visitor: inout Visitor, _ record: inout Self, _ other: Self
  ) throws(Visitor.Failure) {
    try visitor.field(.bare("category"), &record.category, other.category)
    try visitor.field(.bare("checked"), &record.checked, other.checked)
    try visitor.creation(&record.creation, other.creation)
    try visitor.identity("id", &record.id, other.id)
    try visitor.identity("listID", &record.listID, other.listID)
    try visitor.field(.bare("scope"), &record.scope, other.scope)
    try visitor.identity("source", &record.source, other.source)
    try visitor.field(.bare("template"), &record.template, other.template)
    try visitor.field(.bare("text"), &record.text, other.text)
  }

  package static let blank = GroceryListItem(
    id: .placeholder, listID: .placeholder, source: .manual, creation: .placeholder)

  /// The line as written, quantity included ("2 cups flour").
  public var displayName: String { text.value }
  public var templateKey: IngredientKey { template.value }
  public var categoryKey: CategoryKey? { category.value }
  public var isChecked: Bool { checked.value }
  public var sharingScope: SharingScope { scope.value }
}

/// The meal in one slot (day and meal type), unique by ``SlotKey``.
///
/// The recipe is a multi-value register: two devices assigning different recipes to one slot
/// offline both survive the merge; ``recipe`` is the deterministic winner and
/// ``conflictingRecipes`` the others, until a later assignment resolves them.
public struct PlannedMeal: HouseholdRecord {
  /// The semantic key: public as ``slotKey``, the one name the API gives it.
  package private(set) var slot: SlotKey
  public private(set) var creation: Creation
  package var assignment = MVRegister<RecipeID>()
  package var plan = LWWRegister<MealPlanID?>(unchosen: nil)
  package var scope = LWWRegister(unchosen: SharingScope.household)
  package var note = LWWRegister(unchosen: "")
  package var serves = LWWRegister<Int64?>(unchosen: nil)
  package var scale = LWWRegister<Int64>(unchosen: 1_000)
  package var completion = LWWRegister<Int64?>(unchosen: nil)
  package var unknownFields = UnknownFields()

  package static func fields<Visitor: FieldVisitor>(
    _ visitor: inout Visitor, _ record: inout Self, _ other: Self
  ) throws(Visitor.Failure) {
    try visitor.field(.bare("assignment"), &record.assignment, other.assignment)
    try visitor.field("completion", &record.completion, other.completion)
    try visitor.creation(&record.creation, other.creation)
    try visitor.field("note", &record.note, other.note)
    try visitor.field(.bare("plan"), &record.plan, other.plan)
    try visitor.field("scale", &record.scale, other.scale)
    try visitor.field(.bare("scope"), &record.scope, other.scope)
    try visitor.field("serves", &record.serves, other.serves)
    try visitor.identity("slot", &record.slot, other.slot)
  }

  package static let blank = PlannedMeal(
    slot: SlotKey(day: CalendarDay(year: 2000, month: 1, day: 1)!, mealType: .breakfast),
    creation: .placeholder)

  /// The recipe in the slot: the winner of concurrent assignments; `nil` when empty.
  public var recipe: RecipeID? { assignment.winner }
  /// Recipes assigned concurrently and not yet resolved; empty when there is no conflict.
  public var conflictingRecipes: [RecipeID] { assignment.conflicts }
  public var mealPlanID: MealPlanID? { plan.value }
  /// The semantic key, by the name the app's design gives it (the only public one): the day
  /// and meal type.
  public var slotKey: SlotKey { slot }
  public var displayName: String { slot.rawValue }
  public var sharingScope: SharingScope { scope.value }
  /// Notes on the meal, as written; empty when none. A last-writer-wins register, like the
  /// servings and the scale.
  public var notes: String { note.value }
  /// How many it is for; `nil` when not given.
  public var servings: Int64? { serves.value }
  /// How much of the recipe to make: 1 for as written, 0.5 for half. Kept in thousandths, so
  /// that it is the same number on every device (a binary fraction is not).
  public var scaleFactor: Double { Double(scale.value) / 1_000 }
  /// Whether the meal was made. One last-writer-wins register holds it with ``completedAt``,
  /// so the two always change together.
  public var isCompleted: Bool { completion.value != nil }
  /// When the meal was marked made; `nil` while it is not.
  public var completedAt: Date? { completion.value.map(Date.init(millisecondsSince1970:)) }
}

/// A member of the household.
public struct Member: HouseholdRecord {
  public private(set) var id: MemberID
  public private(set) var creation: Creation
  package var name = LWWRegister(unchosen: "")
  package var roleRegister = LWWRegister(unchosen: MemberRole.member)
  package var unknownFields = UnknownFields()

  package static func fields<Visitor: FieldVisitor>(
    _ visitor: inout Visitor, _ record: inout Self, _ other: Self
  ) throws(Visitor.Failure) {
    try visitor.creation(&record.creation, other.creation)
    try visitor.identity("id", &record.id, other.id)
    try visitor.field(.bare("name"), &record.name, other.name)
    try visitor.field(.bare("roleRegister"), &record.roleRegister, other.roleRegister)
  }

  package static let blank = Member(id: .placeholder, creation: .placeholder)

  public var displayName: String { name.value }
  public var role: MemberRole { roleRegister.value }
  public var sharingScope: SharingScope { .household }
}

// MARK: - New records

extension GroceryCategory {
  /// A new category whose name and position were chosen at `chosenAt`: its creation's stamp,
  /// or ``HouseholdState/genesis`` for a default no one chose.
  init(
    key: CategoryKey, displayName: String, sortOrder: Int64, creation: Creation,
    chosenAt: HybridTimestamp? = nil
  ) {
    self.init(key: key, creation: creation)
    name = LWWRegister(displayName, at: chosenAt ?? creation.timestamp)
    order = LWWRegister(sortOrder, at: chosenAt ?? creation.timestamp)
  }
}

extension IngredientTemplate {
  /// A new template shows its key until someone respells it; that name is no one's choice, so
  /// a device's first use of the ingredient does not undo a respelling made elsewhere.
  init(key: IngredientKey, category: CategoryKey?, creation: Creation) {
    self.init(key: key, creation: creation)
    name = LWWRegister(unchosen: key.rawValue)
    self.category = LWWRegister(category, chosenAt: creation.timestamp)
  }
}

extension Recipe {
  init(id: RecipeID, title: String, ingredientLines: [String], creation: Creation) {
    self.init(id: id, creation: creation)
    self.title = LWWRegister(title, at: creation.timestamp)
    lines = LWWRegister(ingredientLines, at: creation.timestamp)
  }
}

extension WeeklyList {
  init(id: WeeklyListID, name: String, creation: Creation) {
    self.init(id: id, creation: creation)
    self.name = LWWRegister(name, at: creation.timestamp)
  }
}

extension MealPlan {
  init(id: MealPlanID, name: String, creation: Creation) {
    self.init(id: id, creation: creation)
    self.name = LWWRegister(name, at: creation.timestamp)
  }
}

extension GroceryListItem {
  init(
    id: GroceryItemID, listID: WeeklyListID, source: ItemSource, text: String,
    template: IngredientKey, category: CategoryKey?, creation: Creation
  ) {
    self.init(id: id, listID: listID, source: source, creation: creation)
    self.template = LWWRegister(template, at: creation.timestamp)
    self.category = LWWRegister(category, chosenAt: creation.timestamp)
    self.text = LWWRegister(text, at: creation.timestamp)
  }
}

extension PlannedMeal {
  init(slot: SlotKey, plan: MealPlanID?, creation: Creation) {
    self.init(slot: slot, creation: creation)
    self.plan = LWWRegister(plan, chosenAt: creation.timestamp)
  }
}

extension Member {
  init(id: MemberID, name: String, role: MemberRole, creation: Creation) {
    self.init(id: id, creation: creation)
    self.name = LWWRegister(name, at: creation.timestamp)
    roleRegister = LWWRegister(role, at: creation.timestamp)
  }
}
