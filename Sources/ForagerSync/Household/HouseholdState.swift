import SemanticCRDT

/// The replicated state of one household: every entity in an add-wins map keyed by its
/// semantic key (categories, ingredient templates, planned-meal slots) or its UUID (recipes,
/// lists, items, plans, members).
///
/// ## Merge semantics
///
/// Each map merges as ``ORMap``: records created under the same key on different devices
/// become one record whose fields merge field by field (last writer wins per field, counters
/// add up, slot assignments keep concurrent choices as conflicts). A merge is a join of two
/// states **of one household**. States of different households are not in one lattice:
/// ``HouseholdReplica/merge(_:)`` refuses them with ``HouseholdError/differentHousehold(local:remote:)``,
/// and this type's own `merge` leaves `self` unchanged when given one.
public struct HouseholdState: Equatable, Codable, Sendable {
  /// The household every record belongs to.
  public let householdID: HouseholdID
  /// The normalizer rules the semantic keys were computed with.
  public internal(set) var normalizerVersion: NormalizerVersion
  package var owner: LWWRegister<MemberID?>
  package var dissolved: LWWRegister<Bool>
  package var members: ORMap<MemberID, Member>
  package var categories: ORMap<CategoryKey, Category>
  package var ingredients: ORMap<IngredientKey, IngredientTemplate>
  package var recipes: ORMap<RecipeID, Recipe>
  package var lists: ORMap<WeeklyListID, WeeklyList>
  package var items: ORMap<GroceryItemID, GroceryListItem>
  package var plans: ORMap<MealPlanID, MealPlan>
  package var meals: ORMap<SlotKey, PlannedMeal>
  /// Where each category key that a rename moved went: old key to new key, the later move
  /// winning (see ``moves``). Stored only once a category has moved, so a state without a move
  /// encodes as before and builds that predate moves still read it.
  package private(set) var categoryMoves: ORMap<CategoryKey, LWWRegister<CategoryKey>>?

  /// The state's keys in both codecs, in the order they are written.
  enum CodingKeys: String, CodingKey, CaseIterable, Sendable {
    case categories, categoryMoves, dissolved, householdID, ingredients, items, lists, meals
    case members, normalizerVersion, owner, plans, recipes
  }

  /// The stamp of the initial, empty registers: older than any real write, the same everywhere.
  package static let genesis = HybridTimestamp(wallMilliseconds: 0, replica: "genesis")

  /// An empty state of `householdID`, keyed with the current normalizer.
  public init(householdID: HouseholdID) {
    self.householdID = householdID
    normalizerVersion = .current
    owner = LWWRegister(nil, at: Self.genesis)
    dissolved = LWWRegister(false, at: Self.genesis)
    members = ORMap()
    categories = ORMap()
    ingredients = ORMap()
    recipes = ORMap()
    lists = ORMap()
    items = ORMap()
    plans = ORMap()
    meals = ORMap()
  }

  /// Where each moved category key went (empty when none has moved).
  package var moves: ORMap<CategoryKey, LWWRegister<CategoryKey>> {
    get { categoryMoves ?? ORMap() }
    set { categoryMoves = newValue.isEmpty && newValue.context.isEmpty ? nil : newValue }
  }

  /// The number of records of every kind.
  public var recordCount: Int {
    members.count + categories.count + ingredients.count + recipes.count + lists.count
      + items.count + plans.count + meals.count
  }
}

extension HouseholdState: Mergeable {
  /// Joins a state of the same household; a state of another household is ignored (see the
  /// type's documentation).
  ///
  /// - Complexity: O(*n* + *m*) hash lookups over all records.
  public mutating func merge(_ other: HouseholdState) {
    guard other.householdID == householdID else { return }
    normalizerVersion = max(normalizerVersion, other.normalizerVersion)
    owner.merge(other.owner)
    dissolved.merge(other.dissolved)
    members.merge(other.members)
    categories.merge(other.categories)
    ingredients.merge(other.ingredients)
    recipes.merge(other.recipes)
    lists.merge(other.lists)
    items.merge(other.items)
    plans.merge(other.plans)
    meals.merge(other.meals)
    if let theirs = other.categoryMoves { moves.merge(theirs) }
  }

  /// Merges `other` like ``merge(_:)`` and adds to `report` what the merge added, merged and
  /// removed, and which slots it left newly conflicted, to `changes` the keys whose records
  /// the merge changed, and to `removed` the records it removed: gathered as the maps merge,
  /// from the keys whose writes changed, so none costs a pass of its own.
  mutating func merge(
    _ other: HouseholdState, reporting report: inout MergeReport,
    changes: inout HouseholdChanges, removed: inout RemovalCollector
  ) {
    guard other.householdID == householdID else { return }
    normalizerVersion = max(normalizerVersion, other.normalizerVersion)
    owner.merge(other.owner)
    dissolved.merge(other.dissolved)
    members.merge(other.members) { key, change in
      report.count(change)
      removed.keep(key, change, in: \.members)
    }
    categories.merge(other.categories) { key, change in
      report.count(change)
      changes.note(key, change, in: \.categories) {
        $0.key != $1.key || $0.displayName != $1.displayName
      }
      if change.isAbsent, let before = change.before { removed.categories.append((key, before)) }
    }
    ingredients.merge(other.ingredients) { key, change in
      report.count(change)
      changes.note(key, change, in: \.ingredients) {
        $0.key != $1.key || $0.categoryKey != $1.categoryKey
      }
      removed.keep(key, change, in: \.ingredients)
    }
    recipes.merge(other.recipes) { key, change in
      report.count(change)
      changes.noteRemoval(change)
      removed.keep(key, change, in: \.recipes)
    }
    lists.merge(other.lists) { key, change in
      report.count(change)
      removed.keep(key, change, in: \.lists)
    }
    items.merge(other.items) { key, change in
      report.count(change)
      changes.note(key, change, in: \.items) {
        $0.templateKey != $1.templateKey || $0.categoryKey != $1.categoryKey
      }
      removed.keep(key, change, in: \.items)
    }
    plans.merge(other.plans) { key, change in
      report.count(change)
      removed.keep(key, change, in: \.plans)
    }
    meals.merge(other.meals) { slot, change in
      report.count(change)
      changes.note(slot, change, in: \.meals) {
        $0.slot != $1.slot || $0.assignment != $1.assignment
      }
      if change.after?.assignment.isConflicted == true
        && change.before?.assignment.isConflicted != true
      {
        report.newConflicts.append(slot)
      }
      removed.keep(slot, change, in: \.meals) { meal in
        meal.rewritten {
          HybridTimestamp(
            wallMilliseconds: $0.wallMilliseconds, logical: $0.logical,
            replica: RemovedRecords.archiveReplica)
        }
      }
    }
    if let theirs = other.categoryMoves {
      let before = moves
      moves.merge(theirs)
      if moves != before { changes.referencesMayDangle = true }
    }
    removed.keepCategories(except: moves)
    report.newConflicts.sort()
  }
}

/// What a household state has seen: one version per map.
public struct HouseholdVersion: Hashable, Codable, Sendable {
  public var owner: HybridTimestamp
  public var dissolved: HybridTimestamp
  public var members: VersionVector
  public var categories: VersionVector
  public var ingredients: VersionVector
  public var recipes: VersionVector
  public var lists: VersionVector
  public var items: VersionVector
  public var plans: VersionVector
  public var meals: VersionVector
  public var categoryMoves: VersionVector
}

extension HouseholdVersion: Mergeable {
  public mutating func merge(_ other: HouseholdVersion) {
    owner.merge(other.owner)
    dissolved.merge(other.dissolved)
    members.merge(other.members)
    categories.merge(other.categories)
    ingredients.merge(other.ingredients)
    recipes.merge(other.recipes)
    lists.merge(other.lists)
    items.merge(other.items)
    plans.merge(other.plans)
    meals.merge(other.meals)
    categoryMoves.merge(other.categoryMoves)
  }
}

extension HouseholdState: DeltaMergeable {
  public var version: HouseholdVersion {
    HouseholdVersion(
      owner: owner.version, dissolved: dissolved.version, members: members.version,
      categories: categories.version, ingredients: ingredients.version, recipes: recipes.version,
      lists: lists.version, items: items.version, plans: plans.version, meals: meals.version,
      categoryMoves: moves.version)
  }

  /// What a peer whose state has seen `version` lacks: each map's delta, or `nil` when there
  /// is none. Its size grows with the changes, not with the household.
  public func delta(since version: HouseholdVersion) -> HouseholdState? {
    var delta = HouseholdState(householdID: householdID)
    delta.normalizerVersion = normalizerVersion
    var changed = false
    func take<Value>(_ part: Value?, into slot: inout Value) {
      if let part {
        slot = part
        changed = true
      }
    }
    take(owner.delta(since: version.owner), into: &delta.owner)
    take(dissolved.delta(since: version.dissolved), into: &delta.dissolved)
    take(members.delta(since: version.members), into: &delta.members)
    take(categories.delta(since: version.categories), into: &delta.categories)
    take(ingredients.delta(since: version.ingredients), into: &delta.ingredients)
    take(recipes.delta(since: version.recipes), into: &delta.recipes)
    take(lists.delta(since: version.lists), into: &delta.lists)
    take(items.delta(since: version.items), into: &delta.items)
    take(plans.delta(since: version.plans), into: &delta.plans)
    take(meals.delta(since: version.meals), into: &delta.meals)
    if let part = moves.delta(since: version.categoryMoves) {
      delta.moves = part
      changed = true
    }
    return changed ? delta : nil
  }
}

extension HouseholdState: HybridTimestamped {
  /// The greatest timestamp of any record.
  ///
  /// - Complexity: O(*n*) over all records.
  public var greatestTimestamp: HybridTimestamp? {
    [
      owner.greatestTimestamp, dissolved.greatestTimestamp, members.greatestTimestamp,
      categories.greatestTimestamp, ingredients.greatestTimestamp, recipes.greatestTimestamp,
      lists.greatestTimestamp, items.greatestTimestamp, plans.greatestTimestamp,
      meals.greatestTimestamp, categoryMoves?.greatestTimestamp,
    ].compactMap { $0 }.max()
  }
}
