import SemanticCRDT
import SemanticCRDTJSON
internal import SharedSupport

extension HouseholdState {
  /// The lattice order, defined without merge: every map and register of `self` precedes
  /// the one of `other`.
  package func isLessThanOrEqual(to other: HouseholdState) -> Bool {
    struct Precedes: HouseholdMapVisitor {
      let state: HouseholdState
      let other: HouseholdState
      var holds = true
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        holds =
          holds && state[keyPath: map.records].isLessThanOrEqual(to: other[keyPath: map.records])
      }
    }
    guard
      householdID == other.householdID && normalizerVersion <= other.normalizerVersion
        && owner.isLessThanOrEqual(to: other.owner)
        && dissolved.isLessThanOrEqual(to: other.dissolved)
        && moves.isLessThanOrEqual(to: other.moves)
    else { return false }
    var precedes = Precedes(state: self, other: other)
    Self.forEachMap(&precedes, carrying: carriedMapNames(with: other))
    return precedes.holds
  }

  /// Broken invariants; empty when the state is sound. Above all: **no semantic key has two
  /// records** — no two categories whose names normalize to one key, no template whose key is
  /// not its own canonical name, no slot stored under another slot's key — and **no item names
  /// a template that does not exist**.
  ///
  /// References to records a person may delete are not invariants: a category deleted on one
  /// device while another shelves a template in it, or a recipe deleted while another device
  /// plans it, leave references that reads resolve (the template is uncategorized, the
  /// assignment is hidden), the same on every device.
  package func invariantViolations() -> [String] {
    struct Structure: HouseholdMapVisitor {
      let state: HouseholdState
      var problems: [String] = []
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        problems += state[keyPath: map.records].invariantViolations()
      }
    }
    var structure = Structure(state: self)
    Self.forEachMap(&structure, carrying: carriedMapNames)
    // In order, as the model's are: a report lists them the same on every run.
    return (structure.problems + moves.invariantViolations()).sorted() + modelViolations()
  }

  /// The model's own invariants (``invariantViolations()`` without the maps' structural
  /// checks): what a decoded file must be checked for. The maps' structure needs no check
  /// there: decoding refuses a broken map.
  ///
  /// - Parameters:
  ///   - cores: ``SemanticCRDTJSON/Cores/two`` checks half of each kind of record on a second
  ///     core (see ``modelViolations(after:cores:recordsInHalvesAbove:)``); only a caller that
  ///     owns both cores (opening a file) passes it.
  ///   - recordsInHalvesAbove: The fewest records a half for two cores to be used.
  /// - Complexity: O(*n*) over all records, normalizing each category's name and each
  ///   template's key.
  package func modelViolations(
    cores: Cores = .one, recordsInHalvesAbove: Int = recordsCheckedInHalvesAbove
  ) -> [String] {
    // Every record, as if a merge had changed them all.
    modelViolations(after: .everything, cores: cores, recordsInHalvesAbove: recordsInHalvesAbove)
  }

  /// Below this many records a half, one core checks them all: a thread costs more.
  package static let recordsCheckedInHalvesAbove = 10_000
}

/// The records a merge changed: what the model's invariants must be checked for after it
/// (``HouseholdState/modelViolations(after:cores:recordsInHalvesAbove:)``). Each is kept in the
/// box the merged map holds it in, so that the check reads it without looking its key up: a
/// hash of the key and a probe of the map's table that, after a merge of many records, misses
/// the cache. Nothing changes the maps between a merge and its check.
package struct RecordsToRecheck {
  /// A record to check: its key, and its box as the map holds it after the merge.
  package typealias Noted<Key, Value> = [(key: Key, record: Boxed<Value>)]

  /// Records present after the merge that it added or changed.
  var categories: Noted<CategoryKey, GroceryCategory> = []
  var ingredients: Noted<IngredientKey, IngredientTemplate> = []
  var items: Noted<GroceryItemID, GroceryListItem> = []
  var meals: Noted<SlotKey, PlannedMeal> = []
  /// Whether the merge removed a template: an item it did not touch may now name nothing.
  var referencesMayDangle = false
  /// Whether every record is to be checked, whatever the lists above hold: a decoded state.
  private(set) var coversEverything = false

  /// Every record of a state, as if a merge had changed them all.
  static let everything = RecordsToRecheck(referencesMayDangle: true, coversEverything: true)

  /// The records of one kind to check: `nil` for every record of that kind.
  func records<Key, Value>(_ records: KeyPath<RecordsToRecheck, Noted<Key, Value>>)
    -> Noted<Key, Value>?
  {
    coversEverything ? nil : self[keyPath: records]
  }

  /// The items whose templates to check: `nil` for every item, when a template may be gone.
  var itemsToCheck: Noted<GroceryItemID, GroceryListItem>? { referencesMayDangle ? nil : items }

  /// Notes a record the merge changed, unless what the invariants read of it (its key, name
  /// and references) is as it was before: `differ` compares that. A removal is not noted: a
  /// key that is gone breaks no rule of its own.
  package mutating func note<Key, Value>(
    _ key: Key, _ change: ORMap<Key, Value>.Change,
    in records: WritableKeyPath<RecordsToRecheck, Noted<Key, Value>>,
    differ: (Value, Value) -> Bool
  ) {
    guard let after = change.after else { return }
    if let before = change.before, !differ(before.value, after.value) { return }
    self[keyPath: records].append((key, after))
  }

  /// Notes a record the merge removed, if it did.
  package mutating func noteRemoval<Key, Value>(_ change: ORMap<Key, Value>.Change) {
    if change.isAbsent && !change.wasAbsent { referencesMayDangle = true }
  }
}

extension HouseholdState {
  /// The model's invariants for a merge that made `changes` to a state that was sound before
  /// it: the records it changed, and every item's template when it removed a template. The
  /// join of sound maps is sound, so the maps' structure needs no check.
  ///
  /// - Parameters:
  ///   - cores: ``SemanticCRDTJSON/Cores/two`` checks half of each kind of record on a second
  ///     core when there are many (normalizing names and keys is the most of the work, and a
  ///     household may hold more of one kind than another); only a caller that owns both cores
  ///     passes it.
  ///   - recordsInHalvesAbove: The fewest records a half for two cores to be used.
  /// - Returns: The problems in order, so that an error that names the first few names the
  ///   same ones on every run and every device (the maps' own order is their hash tables').
  /// - Complexity: O(*c*) for *c* changed records, normalizing the names of changed categories
  ///   and templates; plus O(*i*) hash lookups over all items when the merge removed a
  ///   template; plus sorting the problems found.
  func modelViolations(
    after changes: RecordsToRecheck, cores: Cores = .one,
    recordsInHalvesAbove: Int = recordsCheckedInHalvesAbove
  ) -> [String] {
    guard cores == .two, recordsChecked(after: changes) >= 2 * recordsInHalvesAbove else {
      return modelViolationsAndNames(after: changes).problems.sorted()
    }
    let (first, second) = concurrently({
      modelViolationsAndNames(after: changes, inPart: 0, of: 2)
    }) { [self] in modelViolationsAndNames(after: changes, inPart: 1, of: 2) }
    var problems = first.problems + second.problems
    for (named, key) in second.names.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
      if let other = first.names[named] {
        problems.append("categories \(other) and \(key) both have the semantic key \(named)")
      }
    }
    return problems.sorted()
  }

  /// How many records ``modelViolations(after:cores:recordsInHalvesAbove:)`` reads.
  private func recordsChecked(after changes: RecordsToRecheck) -> Int {
    func count<Key, Value>(_ noted: RecordsToRecheck.Noted<Key, Value>?, _ map: ORMap<Key, Value>)
      -> Int
    { noted?.count ?? map.count }
    return count(changes.records(\.categories), categories)
      + count(changes.records(\.ingredients), ingredients)
      + count(changes.records(\.meals), meals) + count(changes.itemsToCheck, items)
  }

  /// Calls `body` with each record of one of `parts` near-equal parts of `noted`, or of `map`
  /// when `noted` is `nil`, in its box.
  ///
  /// - Precondition: `parts >= 1` and `0 <= part < parts`.
  private static func forEachRecord<Key, Value>(
    of noted: RecordsToRecheck.Noted<Key, Value>?, in map: ORMap<Key, Value>,
    inPart part: Int, of parts: Int, _ body: (Key, Boxed<Value>) -> Void
  ) {
    guard let noted else { return map.forEachBoxedValue(inPart: part, of: parts, body) }
    precondition(parts >= 1 && (0..<parts).contains(part), "part \(part) of \(parts)")
    for (key, record) in noted[noted.count * part / parts..<noted.count * (part + 1) / parts] {
      body(key, record)
    }
  }

  /// The problems of one of `parts` parts of the categories `noted` (of the map when `noted`
  /// is `nil`), and the categories among them whose names normalize to a key other than their
  /// own, by that key. One named by its own key needs no entry: another category named so is
  /// caught by its own check, as that key is present. So a sound household, where every
  /// category is named by its key, builds no table here (loading a file runs this check over
  /// every record).
  func categoryViolations(
    of noted: RecordsToRecheck.Noted<CategoryKey, GroceryCategory>?, inPart part: Int = 0,
    of parts: Int = 1
  ) -> (problems: [String], names: [CategoryKey: CategoryKey]) {
    var problems: [String] = []
    var categoryNames: [CategoryKey: CategoryKey] = [:]
    Self.forEachRecord(of: noted, in: categories, inPart: part, of: parts) { key, category in
      if category.value.key != key {
        problems.append("category \(category.value.key) stored under \(key)")
      }
      // The name's folding is almost always its key, found without building the folding.
      guard
        !key.isExactNormalization(
          ofASCII: category.value.displayName, version: normalizerVersion)
      else { return }
      let named = CategoryKey(normalizing: category.value.displayName, version: normalizerVersion)
      guard named != key else { return }
      if let other = categories.contains(named)
        ? named : categoryNames.updateValue(key, forKey: named)
      {
        problems.append("categories \(other) and \(key) both have the semantic key \(named)")
      }
    }
    return (problems, categoryNames)
  }

  /// ``modelViolations(after:cores:recordsInHalvesAbove:)`` on one core, with the table of
  /// ``categoryViolations(of:inPart:of:)``: of one of `parts` parts of each kind of record
  /// checked.
  func modelViolationsAndNames(
    after changes: RecordsToRecheck, inPart part: Int = 0, of parts: Int = 1
  ) -> (problems: [String], names: [CategoryKey: CategoryKey]) {
    let categoriesChecked = categoryViolations(
      of: changes.records(\.categories), inPart: part, of: parts)
    var problems = categoriesChecked.problems
    Self.forEachRecord(
      of: changes.records(\.ingredients), in: ingredients, inPart: part, of: parts
    ) { key, template in
      if template.value.key != key {
        problems.append("template \(template.value.key) stored under \(key)")
      }
      if !key.isCanonical(version: normalizerVersion) {
        problems.append("template key \(key) is not its own canonical name")
      }
    }
    Self.forEachRecord(of: changes.records(\.meals), in: meals, inPart: part, of: parts) {
      slot, meal in
      if meal.value.slot != slot {
        problems.append("planned meal \(meal.value.slot) stored under \(slot)")
      }
    }
    // Items' templates: of every item when a template was removed.
    Self.forEachRecord(of: changes.itemsToCheck, in: items, inPart: part, of: parts) {
      id, item in
      if !ingredients.contains(item.value.templateKey) {
        problems.append(
          "item \(id) names template \(item.value.templateKey), which does not exist")
      }
    }
    return (problems, categoriesChecked.names)
  }
}
