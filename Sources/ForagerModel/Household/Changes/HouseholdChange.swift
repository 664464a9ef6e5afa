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
  public private(set) var added: Set<RecordKey> = []
  /// Records that existed before and after, with a different value.
  public private(set) var updated: Set<RecordKey> = []
  /// Records that existed before and do not now.
  public private(set) var removed: Set<RecordKey> = []
  /// Whether the household's own registers changed: its owner, its dissolution, or where the
  /// renames of categories lead.
  public package(set) var householdChanged = false

  public init(origin: Origin) {
    self.origin = origin
  }

  /// Whether nothing changed.
  public var isEmpty: Bool {
    added.isEmpty && updated.isEmpty && removed.isEmpty && !householdChanged
  }

  /// The kinds of record that changed.
  public var kinds: Set<RecordKind> {
    Set([added, updated, removed].joined().map(\.kind))
  }

  /// The changed records of one kind: added, updated and removed, in no particular order.
  public func keys(of kind: RecordKind) -> (
    added: [RecordKey], updated: [RecordKey], removed: [RecordKey]
  ) {
    (
      added.filter { $0.kind == kind }, updated.filter { $0.kind == kind },
      removed.filter { $0.kind == kind }
    )
  }

  /// Folds a later change of the same origin into this one.
  public mutating func formUnion(_ later: HouseholdChange) {
    for key in later.added { note(key, existed: false, exists: true) }
    for key in later.updated { note(key, existed: true, exists: true) }
    for key in later.removed { note(key, existed: true, exists: false) }
    householdChanged = householdChanged || later.householdChanged
  }

  /// Notes that `key` went from existing (or not) to existing (or not), its value changed when
  /// it exists in both.
  package mutating func note(_ key: RecordKey, existed: Bool, exists: Bool) {
    let wasAdded = added.remove(key) != nil
    let wasRemoved = removed.remove(key) != nil
    updated.remove(key)
    // What the record was before the first change folded here.
    let first = wasAdded ? false : wasRemoved ? true : existed
    switch (first, exists) {
    case (false, true): added.insert(key)
    case (true, true): updated.insert(key)
    case (true, false): removed.insert(key)
    case (false, false): break
    }
  }

  /// Notes what a merge did to one key.
  mutating func note<Key: NotedKey, Value: DeclaredRecord>(
    _ key: Key, _ change: ORMap<Key, Value>.Change
  ) {
    if !change.wasAbsent, !change.isAbsent, let before = change.before, let after = change.after,
      before.showsSame(as: after)
    {
      return
    }
    note(key.notedKey, existed: !change.wasAbsent, exists: !change.isAbsent)
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
