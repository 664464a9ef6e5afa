import SemanticCRDT

/// Which records of a household changed, and where the change came from: what an app needs to
/// refresh exactly the views that show them.
///
/// A change names records by ``RecordKey``, so one value covers every kind; ``keys(of:)`` and
/// ``kinds`` select per kind. Changes are to the records the household's maps hold. What a
/// record shows through another is read, not stored, and follows from the other's change: the
/// items of a deleted list stop showing when the list is removed, a meal of a deleted recipe
/// when the recipe is, an item's category when the category is renamed (a move removes the
/// old key and adds the new one).
///
/// Successive changes fold with ``formUnion(_:)``: a record added then updated is added, added
/// then removed is no change, removed then added again is updated.
public struct HouseholdChange: Hashable, Sendable {
  /// Where a change came from.
  public enum Origin: Hashable, Sendable {
    /// An edit made on this device.
    case local
    /// A merge of a state or delta from another device.
    case peer
  }

  public var origin: Origin
  /// Records that did not exist before.
  ///
  /// - Complexity: O(*c*) for *c* changed records; so are ``updated`` and ``removed``.
  public var added: Set<RecordKey> { keys(changed: .added) }
  /// Records that existed before and after, with a different value.
  public var updated: Set<RecordKey> { keys(changed: .updated) }
  /// Records that existed before and do not now.
  public var removed: Set<RecordKey> { keys(changed: .removed) }
  /// Whether the household's own registers changed: its owner, its dissolution, or where the
  /// renames of categories lead.
  public package(set) var householdChanged = false

  /// How each changed record changed: one table, so that noting a key costs one lookup.
  private var records: [RecordKey: Fold] = [:]
  /// Changes to keys noted once each, by a merge (``note(_:_:)``), which names each key it
  /// changed once: kept in a list, which costs no hashing, until a later change folds into
  /// them. No key is in both.
  private var unfolded: [(key: RecordKey, fold: Fold)] = []

  /// How a record changed from its first state to its last.
  private enum Fold: Hashable, Sendable {
    case added, updated, removed
  }

  public init(origin: Origin) {
    self.origin = origin
  }

  /// Whether nothing changed.
  public var isEmpty: Bool { records.isEmpty && unfolded.isEmpty && !householdChanged }

  /// The kinds of record that changed.
  public var kinds: Set<RecordKind> {
    var kinds: Set<RecordKind> = []
    forEachChange { key, _ in kinds.insert(key.kind) }
    return kinds
  }

  /// The changed records of one kind: added, updated and removed, in no particular order.
  public func keys(of kind: RecordKind) -> (
    added: [RecordKey], updated: [RecordKey], removed: [RecordKey]
  ) {
    var keys: (added: [RecordKey], updated: [RecordKey], removed: [RecordKey]) = ([], [], [])
    forEachChange { key, fold in
      guard key.kind == kind else { return }
      switch fold {
      case .added: keys.added.append(key)
      case .updated: keys.updated.append(key)
      case .removed: keys.removed.append(key)
      }
    }
    return keys
  }

  /// Calls `body` with every changed record and how it changed, each once.
  private func forEachChange(_ body: (RecordKey, Fold) -> Void) {
    for (key, fold) in records { body(key, fold) }
    for (key, fold) in unfolded { body(key, fold) }
  }

  private func keys(changed wanted: Fold) -> Set<RecordKey> {
    var keys: Set<RecordKey> = []
    forEachChange { key, fold in if fold == wanted { keys.insert(key) } }
    return keys
  }

  /// Makes room for `count` more changed records, so that noting the changes of a large merge
  /// does not grow the list step by step.
  package mutating func reserveCapacity(forMore count: Int) {
    unfolded.reserveCapacity(unfolded.count + count)
  }

  /// Folds a later change of the same origin into this one.
  public mutating func formUnion(_ later: HouseholdChange) {
    if records.isEmpty && unfolded.isEmpty {
      (records, unfolded) = (later.records, later.unfolded)
    } else {
      later.forEachChange { key, fold in
        note(key, existed: fold != .added, exists: fold != .removed)
      }
    }
    householdChanged = householdChanged || later.householdChanged
  }

  /// Notes that `key` went from existing (or not) to existing (or not), its value changed when
  /// it exists in both.
  package mutating func note(_ key: RecordKey, existed: Bool, exists: Bool) {
    foldUnfolded()
    Self.fold(&records[key], existed: existed, exists: exists)
  }

  /// Moves the changes noted once into the table, so that a later one folds with them.
  private mutating func foldUnfolded() {
    guard !unfolded.isEmpty else { return }
    records.reserveCapacity(records.count + unfolded.count)
    for (key, fold) in unfolded {
      let earlier = records.updateValue(fold, forKey: key)
      assert(earlier == nil, "\(key) was noted twice as a change noted once")
    }
    unfolded = []
  }

  /// The changes by record, in one table.
  private var folded: [RecordKey: Fold] {
    var change = self
    change.foldUnfolded()
    return change.records
  }

  public static func == (lhs: HouseholdChange, rhs: HouseholdChange) -> Bool {
    lhs.origin == rhs.origin && lhs.householdChanged == rhs.householdChanged
      && lhs.folded == rhs.folded
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(origin)
    hasher.combine(householdChanged)
    hasher.combine(folded)
  }

  /// Folds a step from `existed` to `exists` into how a record changed so far (`nil`: not at
  /// all): what it was before the first step, against what it is after this one.
  private static func fold(_ fold: inout Fold?, existed: Bool, exists: Bool) {
    let first =
      switch fold {
      case .added: false
      case .updated, .removed: true
      case nil: existed
      }
    fold =
      switch (first, exists) {
      case (false, true): .added
      case (true, true): .updated
      case (true, false): .removed
      case (false, false): nil
      }
  }

  /// Notes what a merge did to one key.
  ///
  /// - Precondition: No other change of the key is noted in this value: a merge names each key
  ///   it changed once, and keys of different maps are different records. (A second note of
  ///   the key is caught when the notes are folded, in debug builds.)
  /// - Complexity: O(1) amortized, without hashing the key.
  mutating func note<Key: NotedKey, Value: DeclaredRecord>(
    _ key: Key, _ change: ORMap<Key, Value>.Change
  ) {
    if !change.wasAbsent, !change.isAbsent, let before = change.before, let after = change.after,
      before.value.showsSame(as: after.value)
    {
      return
    }
    guard let key = key.notedKey else { return }
    var fold: Fold?
    Self.fold(&fold, existed: !change.wasAbsent, exists: !change.isAbsent)
    if let fold { unfolded.append((key, fold)) }
  }

  /// Notes a change to the record `key` names, if it names one an app of this build shows.
  mutating func note(_ key: RecordKey?, existed: Bool, exists: Bool) {
    if let key { note(key, existed: existed, exists: exists) }
  }
}

/// The kinds of record a household holds.
public enum RecordKind: Hashable, Sendable, CaseIterable {
  case member, category, ingredient, recipe, list, item, plan, meal
}

/// A key that names one record among all of a household's.
/// A key of one of the household's maps, as a change names it: `nil` for a record of a kind
/// this build does not know (ADR 0037), which an app of this build does not show.
package protocol NotedKey: Hashable {
  var notedKey: RecordKey? { get }
}

/// A key of a record kind this build knows, named by a ``RecordKey``.
package protocol RecordKeyed: NotedKey {
  var recordKey: RecordKey { get }
}

extension RecordKeyed {
  package var notedKey: RecordKey? { recordKey }
}

extension MemberID: RecordKeyed { package var recordKey: RecordKey { .member(self) } }
extension CategoryKey: RecordKeyed { package var recordKey: RecordKey { .category(self) } }
extension IngredientKey: RecordKeyed { package var recordKey: RecordKey { .ingredient(self) } }
extension RecipeID: RecordKeyed { package var recordKey: RecordKey { .recipe(self) } }
extension WeeklyListID: RecordKeyed { package var recordKey: RecordKey { .list(self) } }
extension GroceryItemID: RecordKeyed { package var recordKey: RecordKey { .item(self) } }
extension MealPlanID: RecordKeyed { package var recordKey: RecordKey { .plan(self) } }
extension SlotKey: RecordKeyed { package var recordKey: RecordKey { .meal(self) } }

extension RecordKey {
  /// The kind of record it names.
  public var kind: RecordKind {
    switch self {
    case .member: .member
    case .category: .category
    case .ingredient: .ingredient
    case .recipe: .recipe
    case .list: .list
    case .item: .item
    case .plan: .plan
    case .meal: .meal
    }
  }
}
