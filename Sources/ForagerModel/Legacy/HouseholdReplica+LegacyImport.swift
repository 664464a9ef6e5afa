import Foundation
import SemanticCRDT

/// What a legacy import did.
public struct LegacyImportReport: Hashable, Sendable {
  /// Records written into the household.
  public var imported = 0
  /// Legacy records folded into a keeper with the same semantic key.
  public var duplicatesCollapsed = 0
  /// Records already in the household (by semantic key or UUID), left as they are.
  public var alreadyPresent = 0
  /// Planned meals that lost their slot to a keeper (two meals in one slot).
  public var displacedMeals: [UUID] = []

  public init() {}
}

extension HouseholdReplica {
  /// Imports the old app's UUID-keyed records under semantic keys.
  ///
  /// - Duplicates (records whose names share a semantic key) collapse into one keeper: the one
  ///   with the most relationships, then the oldest creation date, then the smallest UUID.
  ///   The keeper gives the display name; the record is as old as the oldest of the records
  ///   that name its key (for a template, items that name it by text included).
  /// - References are re-pointed: items and templates name the keepers' semantic keys.
  /// - Usage counts of collapsed duplicates add up. Each legacy record's count is its own
  ///   counter contribution, so importing again, or on two devices, never counts it twice.
  /// - Importing the same export twice changes nothing: records already present (by key or
  ///   UUID) are left alone.
  /// - The result does not depend on the order of the export's records: any permutation of an
  ///   export gives the same state, byte for byte, on a replica with the same id and clock.
  ///
  /// The whole export is checked before anything is written.
  ///
  /// - Throws: ``LegacyImportError`` for a planned meal without a valid slot, a reference to a
  ///   record the export lacks, or a dissolved household; nothing is imported then.
  @discardableResult
  public mutating func importLegacy(_ export: LegacyExport) throws(LegacyImportError)
    -> LegacyImportReport
  {
    do { try requireOpen() } catch { throw .household(error) }
    let plan = try LegacyImportPlan(export, version: state.normalizerVersion)
    var report = LegacyImportReport()
    /// The live category a legacy category id names, once the categories are in.
    func shelf(_ legacyCategory: UUID?) -> CategoryKey? {
      legacyCategory.flatMap { plan.categoryKey[$0] }.flatMap(state.resolvedCategory)
    }
    report.duplicatesCollapsed = plan.duplicatesCollapsed
    report.displacedMeals = plan.displacedMeals

    // A category found by its key, or through the moves of a rename, is present: importing
    // must not bring back a name a rename moved away (a create does not either).
    for keeper in plan.categories {
      if state.resolvedCategory(keeper.key) != nil {
        report.alreadyPresent += 1
        continue
      }
      let category = GroceryCategory(
        key: keeper.key, displayName: keeper.record.name, sortOrder: keeper.record.sortOrder ?? 100,
        creation: legacyCreation(keeper.oldest))
      write(\.categories, keeper.key, category)
      report.imported += 1
    }

    for keeper in plan.templates {
      let key = keeper.key
      var template =
        state.ingredients[key]
        ?? IngredientTemplate(
          key: key,
          category: shelf(keeper.record.categoryID),
          creation: legacyCreation(plan.templateCreation[key] ?? keeper.oldest))
      let existed = state.ingredients.contains(key)
      let before = template
      if !existed, keeper.members.contains(where: { $0.isStaple == true }) {
        template.staple = LWWRegister(true, at: template.creation.timestamp)
      }
      for member in keeper.members {
        let legacyReplica = ReplicaID("legacy:\(member.id.uuidString)")
        let missing =
          (member.usageCount ?? 0)
          - min(member.usageCount ?? 0, template.uses.contributions[legacyReplica] ?? 0)
        if missing > 0 { template.uses.increment(by: missing, replica: legacyReplica) }
      }
      if !existed || template != before {
        write(\.ingredients, key, template)
        report.imported += 1
      } else {
        report.alreadyPresent += 1
      }
    }

    // In order of id, so that the dots the writes take do not depend on the export's order.
    for legacy in export.recipes.sorted(by: { $0.id.uuidString < $1.id.uuidString }) {
      let id = RecipeID(uuid: legacy.id)
      guard !state.recipes.contains(id) else {
        report.alreadyPresent += 1
        continue
      }
      var recipe = Recipe(
        id: id, title: legacy.title, ingredientLines: legacy.ingredients ?? [],
        creation: legacyCreation(legacy.createdAt))
      if let count = legacy.usageCount, count > 0 {
        recipe.uses.increment(by: count, replica: ReplicaID("legacy:\(legacy.id.uuidString)"))
      }
      write(\.recipes, id, recipe)
      report.imported += 1
    }

    for legacy in export.weeklyLists.sorted(by: { $0.id.uuidString < $1.id.uuidString }) {
      let id = WeeklyListID(uuid: legacy.id)
      guard !state.lists.contains(id) else {
        report.alreadyPresent += 1
        continue
      }
      let list = WeeklyList(id: id, name: legacy.name, creation: legacyCreation(legacy.createdAt))
      write(\.lists, id, list)
      report.imported += 1
    }

    for legacy in export.groceryItems.sorted(by: { $0.id.uuidString < $1.id.uuidString }) {
      let id = GroceryItemID(uuid: legacy.id)
      guard !state.items.contains(id) else {
        report.alreadyPresent += 1
        continue
      }
      let template = plan.template(of: legacy, version: state.normalizerVersion)
      if !state.ingredients.contains(template) {
        let created = IngredientTemplate(
          key: template, category: nil,
          creation: legacyCreation(plan.templateCreation[template] ?? legacy.createdAt))
        write(\.ingredients, template, created)
      }
      var item = GroceryListItem(
        id: id, listID: WeeklyListID(uuid: legacy.listID),
        source: legacy.recipeID.map { .recipe(RecipeID(uuid: $0)) } ?? .manual, text: legacy.name,
        template: template,
        category: shelf(legacy.categoryID) ?? state.ingredients[template]?.categoryKey,
        creation: legacyCreation(legacy.createdAt))
      if legacy.isChecked == true { item.checked = LWWRegister(true, at: item.creation.timestamp) }
      write(\.items, id, item)
      report.imported += 1
    }

    for keeper in plan.meals {
      guard !state.meals.contains(keeper.slot) else {
        report.alreadyPresent += 1
        continue
      }
      var meal = PlannedMeal(
        slot: keeper.slot, plan: nil, creation: legacyCreation(keeper.record.createdAt))
      if let recipe = keeper.record.recipeID {
        meal.assignment.write(RecipeID(uuid: recipe), at: meal.creation.timestamp)
      }
      write(\.meals, keeper.slot, meal)
      report.imported += 1
    }
    // The records carry the export's dates, which may be ahead of this device's clock (a clock
    // set back, an export from a device whose clock ran ahead): the clock goes past them, so
    // that this device's next edit of an imported record wins over its imported value. (Past
    // the skew bound it stays: peers refuse such a state anyway.)
    if let greatest = state.greatestTimestamp { try? clock.observe(greatest) }
    return report
  }

  /// A creation stamped with the legacy creation date (in this replica's name), so "oldest
  /// first" and "created on" keep their meaning after the import.
  private func legacyCreation(_ date: Date) -> Creation {
    let milliseconds = max(0, date.timeIntervalSince1970 * 1000)
    return Creation(
      timestamp: HybridTimestamp(wallMilliseconds: UInt64(milliseconds), replica: replicaID),
      member: member)
  }
}

/// The keepers of a legacy export, computed and checked before anything is written.
struct LegacyImportPlan {
  struct Keeper<Key, Record> {
    let key: Key
    let record: Record
    let members: [Record]
    /// The oldest creation date among the members.
    let oldest: Date
  }

  struct MealKeeper {
    let slot: SlotKey
    let record: LegacyExport.PlannedMeal
  }

  var categories: [Keeper<CategoryKey, LegacyExport.Category>] = []
  var templates: [Keeper<IngredientKey, LegacyExport.IngredientTemplate>] = []
  var meals: [MealKeeper] = []
  /// Each legacy category or template id, to the semantic key of its keeper.
  var categoryKey: [UUID: CategoryKey] = [:]
  var templateKey: [UUID: IngredientKey] = [:]
  /// Each template key, to the oldest creation date among the records that name it: the
  /// templates collapsed into it and the items that name it, by id or by text.
  var templateCreation: [IngredientKey: Date] = [:]
  var duplicatesCollapsed = 0
  var displacedMeals: [UUID] = []

  init(_ export: LegacyExport, version: NormalizerVersion) throws(LegacyImportError) {
    let categoryIDs = Set(export.categories.map(\.id))
    let templateIDs = Set(export.ingredientTemplates.map(\.id))
    let recipeIDs = Set(export.recipes.map(\.id))
    let listIDs = Set(export.weeklyLists.map(\.id))
    func require(_ target: UUID?, in ids: Set<UUID>, record: UUID, field: String)
      throws(LegacyImportError)
    {
      if let target, !ids.contains(target) {
        throw .danglingReference(recordID: record, field: field, target: target)
      }
    }
    for template in export.ingredientTemplates {
      try require(template.categoryID, in: categoryIDs, record: template.id, field: "categoryID")
    }
    for item in export.groceryItems {
      try require(item.listID, in: listIDs, record: item.id, field: "listID")
      try require(item.templateID, in: templateIDs, record: item.id, field: "templateID")
      try require(item.categoryID, in: categoryIDs, record: item.id, field: "categoryID")
      try require(item.recipeID, in: recipeIDs, record: item.id, field: "recipeID")
    }
    for meal in export.plannedMeals {
      try require(meal.recipeID, in: recipeIDs, record: meal.id, field: "recipeID")
    }

    // Relationships: how many records point at each category and template.
    var references: [UUID: Int] = [:]
    for template in export.ingredientTemplates {
      if let category = template.categoryID { references[category, default: 0] += 1 }
    }
    for item in export.groceryItems {
      for target in [item.categoryID, item.templateID].compactMap({ $0 }) {
        references[target, default: 0] += 1
      }
    }

    /// Most relationships, then oldest, then smallest UUID.
    func isBetterKeeper(_ a: (id: UUID, createdAt: Date), than b: (id: UUID, createdAt: Date))
      -> Bool
    {
      let (ra, rb) = (references[a.id] ?? 0, references[b.id] ?? 0)
      if ra != rb { return ra > rb }
      if a.createdAt != b.createdAt { return a.createdAt < b.createdAt }
      return a.id.uuidString < b.id.uuidString
    }

    for (key, group) in Dictionary(
      grouping: export.categories, by: { CategoryKey(normalizing: $0.name, version: version) })
    {
      let keeper = group.min { isBetterKeeper(($0.id, $0.createdAt), than: ($1.id, $1.createdAt)) }!
      categories.append(
        Keeper(key: key, record: keeper, members: group, oldest: group.map(\.createdAt).min()!))
      for record in group { categoryKey[record.id] = key }
      duplicatesCollapsed += group.count - 1
    }
    categories.sort { $0.key < $1.key }

    for (key, group) in Dictionary(
      grouping: export.ingredientTemplates,
      by: { IngredientKey(normalizing: $0.name, version: version) })
    {
      let keeper = group.min { isBetterKeeper(($0.id, $0.createdAt), than: ($1.id, $1.createdAt)) }!
      let oldest = group.map(\.createdAt).min()!
      templates.append(Keeper(key: key, record: keeper, members: group, oldest: oldest))
      for record in group { templateKey[record.id] = key }
      templateCreation[key] = oldest
      duplicatesCollapsed += group.count - 1
    }
    templates.sort { $0.key < $1.key }
    for item in export.groceryItems {
      let key = template(of: item, version: version)
      templateCreation[key] = min(templateCreation[key] ?? item.createdAt, item.createdAt)
    }

    var bySlot: [SlotKey: [LegacyExport.PlannedMeal]] = [:]
    for meal in export.plannedMeals {
      guard let day = CalendarDay(parsing: meal.date),
        let mealType = MealType(parsing: meal.mealType)
      else {
        throw .invalidSlot(recordID: meal.id, date: meal.date, mealType: meal.mealType)
      }
      bySlot[SlotKey(day: day, mealType: mealType), default: []].append(meal)
    }
    for (slot, group) in bySlot {
      let keeper = group.min {
        let (ra, rb) = ($0.recipeID == nil ? 0 : 1, $1.recipeID == nil ? 0 : 1)
        if ra != rb { return ra > rb }
        if $0.createdAt != $1.createdAt { return $0.createdAt < $1.createdAt }
        return $0.id.uuidString < $1.id.uuidString
      }!
      meals.append(MealKeeper(slot: slot, record: keeper))
      displacedMeals += group.filter { $0.id != keeper.id }.map(\.id)
    }
    meals.sort { $0.slot < $1.slot }
    displacedMeals.sort { $0.uuidString < $1.uuidString }
  }

  /// The template key an item names: its template's keeper, or the canonical name of its text.
  func template(of item: LegacyExport.GroceryItem, version: NormalizerVersion) -> IngredientKey {
    item.templateID.flatMap { templateKey[$0] }
      ?? IngredientKey(normalizing: item.name, version: version)
  }
}
