import SemanticCRDT

/// A record whose sharing scope a person may change: every kind but a member.
protocol ScopedRecord: MappedRecord where Key: RecordKeyed {
  var scope: LWWRegister<SharingScope> { get set }
}

extension GroceryCategory: ScopedRecord {}
extension IngredientTemplate: ScopedRecord {}
extension Recipe: ScopedRecord {}
extension WeeklyList: ScopedRecord {}
extension MealPlan: ScopedRecord {}
extension GroceryListItem: ScopedRecord {}
extension PlannedMeal: ScopedRecord {}

extension HouseholdReplica {
  /// Sets who may see a record; the last write wins. Only the member who created the record,
  /// or the household's owner, may.
  ///
  /// The scope is kept and synced as the record's metadata; this library shows every record
  /// to every device of the household whatever its scope, as the app's design asks until it
  /// shares through a service that enforces it.
  ///
  /// - Throws: the kind's unknown-record error (``HouseholdError/unknownCategory(_:)``,
  ///   ``HouseholdError/unknownItem(_:)``, …) when the record does not show,
  ///   ``HouseholdError/notRecordOwner(member:record:)`` for another member's record, and
  ///   ``HouseholdError/fixedSharingScope(_:)`` for a member.
  /// - Complexity: O(1) hash lookups.
  public mutating func setSharingScope(_ scope: SharingScope, of record: RecordKey)
    throws(HouseholdError)
  {
    try requireOpen()
    switch record {
    case .member: throw .fixedSharingScope(record)
    case .category(let key):
      try setScope(scope, of: \.categories, try liveCategory(key))
    case .ingredient(let key):
      try requireIngredient(key)
      try setScope(scope, of: \.ingredients, key)
    case .recipe(let id):
      try requireRecipe(id)
      try setScope(scope, of: \.recipes, id)
    case .list(let id):
      try requireContainer(\.lists, id, unknown: .unknownList(id))
      try setScope(scope, of: \.lists, id)
    case .item(let id):
      try requireItem(id)
      try setScope(scope, of: \.items, id)
    case .plan(let id):
      try requireContainer(\.plans, id, unknown: .unknownMealPlan(id))
      try setScope(scope, of: \.plans, id)
    case .meal(let slot):
      guard plannedMeal(slot) != nil else { throw .emptySlot(slot) }
      try setScope(scope, of: \.meals, slot)
    }
  }

  /// Writes the scope of the present record `key` of `map`, if this replica's member may.
  private mutating func setScope<Record: ScopedRecord>(
    _ scope: SharingScope, of map: WritableKeyPath<HouseholdState, ORMap<Record.Key, Record>>,
    _ key: Record.Key
  ) throws(HouseholdError) {
    guard state[keyPath: map][key]?.owner == member || owner == member else {
      throw .notRecordOwner(member: member, record: key.recordKey)
    }
    let stamp = clock.tick()
    edit(map, key) { $0.scope.assign(scope, at: stamp) }
  }
}
