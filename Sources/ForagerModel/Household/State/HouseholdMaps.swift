import SemanticCRDT
import SemanticCRDTJSON

/// A record the household keeps in one of its maps, under the key it is unique by, with what a
/// merge that reports does for its kind.
///
/// The hooks have defaults (see the extension below); a kind whose records the model's
/// invariants read, or that a merge keeps differently when it removes them, states its own.
package protocol MappedRecord: DeclaredRecord {
  /// The key the map holds the record under: semantic (``CategoryKey``, ``IngredientKey``,
  /// ``SlotKey``) or an identifier.
  associatedtype
    Key: Hashable, Comparable, Sendable, CustomStringConvertible, JSONCodable, Codable,
      NotedKey

  /// Counts what a merge did to one key in `report`.
  static func report(_ key: Key, _ change: ORMap<Key, Self>.Change, in report: inout MergeReport)

  /// Notes in `recheck` a key whose record a merge changed, where the model's invariants read
  /// records of this kind or refer to them.
  static func note(
    _ key: Key, _ change: ORMap<Key, Self>.Change, in recheck: inout RecordsToRecheck)

  /// Keeps a record a merge removed from `map` (in the box the map held it in), so that a
  /// person can bring it back.
  static func keep(
    _ key: Key, removed record: Boxed<Self>, from map: HouseholdMap<Self>,
    in collector: inout RemovalCollector)

  /// The record as a restore writes it anew on this replica, stamping with `clock` what must
  /// carry a new stamp.
  func restored(ticking clock: inout HybridClock) -> Self

  /// Whether its own stores, whose dots are its map's (ADR 0011), hold a live write of one of
  /// `replicas` (ADR 0029).
  func holdsNestedDot(of replicas: Set<ReplicaID>) -> Bool

  /// The record as `replica` writes it again (ADR 0029): the nested writes of `replicas`
  /// stamped for `replica`, so that its map mints their dots anew.
  func reissued(restamping replicas: Set<ReplicaID>, as replica: ReplicaID) -> Self
}

extension MappedRecord {
  package static func report(
    _ key: Key, _ change: ORMap<Key, Self>.Change, in report: inout MergeReport
  ) {
    report.count(change)
  }

  package static func note(
    _ key: Key, _ change: ORMap<Key, Self>.Change, in recheck: inout RecordsToRecheck
  ) {}

  package static func keep(
    _ key: Key, removed record: Boxed<Self>, from map: HouseholdMap<Self>,
    in collector: inout RemovalCollector
  ) {
    collector.records[keyPath: map.records].archive(key, record)
  }

  package func restored(ticking clock: inout HybridClock) -> Self { self }

  /// Whether a field's own stores hold a live write of one of `replicas`: derived from the
  /// record's declaration.
  package func holdsNestedDot(of replicas: Set<ReplicaID>) -> Bool {
    fieldsHoldDot(of: replicas)
  }

  package func reissued(restamping replicas: Set<ReplicaID>, as replica: ReplicaID) -> Self {
    restampingFields(replicas, as: replica)
  }
}

/// One of the household's maps of records: what every operation over all of them needs to know
/// of it. ``HouseholdState/forEachMap(_:carrying:)`` holds the one list of them.
package struct HouseholdMap<Record: MappedRecord>: Sendable {
  /// The map's key in the encodings of the state and of its version.
  package let field: String
  /// What a person calls one record and several ("template", "templates").
  package let singular: String
  package let plural: String
  /// Where the map is in a state.
  package let records: WritableKeyPath<HouseholdState, ORMap<Record.Key, Record>> & Sendable
  /// Where its version is in a ``HouseholdVersion``.
  package let version: WritableKeyPath<HouseholdVersion, VersionVector> & Sendable

  init(
    _ field: HouseholdState.CodingKeys, _ singular: String, _ plural: String,
    _ records: WritableKeyPath<HouseholdState, ORMap<Record.Key, Record>> & Sendable,
    _ version: WritableKeyPath<HouseholdVersion, VersionVector> & Sendable
  ) {
    self.init(field: field.rawValue, singular, plural, records, version)
  }

  private init(
    field: String, _ singular: String, _ plural: String,
    _ records: WritableKeyPath<HouseholdState, ORMap<Record.Key, Record>> & Sendable,
    _ version: WritableKeyPath<HouseholdVersion, VersionVector> & Sendable
  ) {
    self.field = field
    self.singular = singular
    self.plural = plural
    self.records = records
    self.version = version
  }
}

extension HouseholdMap<CarriedRecord> {
  /// The map of a record kind a newer build added, under its key `name` (ADR 0037).
  init(carried name: String) {
    let kind = CarriedMapName.kind(name)
    self.init(
      field: name, "\(kind) record", "\(kind) records", \.[carried: name], \.[carried: name])
  }
}

/// An operation over every map of the household, one map at a time: generic over the record
/// kind, so each map's work is specialized for its types.
///
/// A visitor that changes a state holds it (moved in with `consume`, so that its maps stay
/// uniquely referenced and change in place) and gives it back when done.
package protocol HouseholdMapVisitor {
  mutating func visit<Record: MappedRecord>(_ map: HouseholdMap<Record>)
}

extension HouseholdState {
  /// Calls `visitor` with each of the household's maps, in the model's order, then with each
  /// map of a record kind a newer build added that is named in `carried` (ADR 0037): **the one
  /// list of the maps**. Merge, delta, version, comparison, invariants, counts, the encoders,
  /// Foundation's decoders, inspection, diff and the simulator's checks are visitors of it, so
  /// a new record kind is added here once (a visit, and its map in `KnownMaps` below), and to
  /// the stored properties of the state and of ``HouseholdVersion`` (which a test checks
  /// against this list), their coding keys and the fast readers' switches (which the compiler
  /// checks).
  ///
  /// `carried` names the carried maps of the states the operation reads: one state's
  /// (``carriedMapNames``), or two states' together (``carriedMapNames(with:)``). The owner and
  /// dissolved registers and the category moves are not records and are not listed: each
  /// operation handles them itself.
  package static func forEachMap<Visitor: HouseholdMapVisitor>(
    _ visitor: inout Visitor, carrying carried: [String]
  ) {
    visitor.visit(KnownMaps.members)
    visitor.visit(KnownMaps.categories)
    visitor.visit(KnownMaps.ingredients)
    visitor.visit(KnownMaps.recipes)
    visitor.visit(KnownMaps.lists)
    visitor.visit(KnownMaps.items)
    visitor.visit(KnownMaps.plans)
    visitor.visit(KnownMaps.meals)
    for name in carried { visitor.visit(HouseholdMap(carried: name)) }
  }

  /// The maps of the kinds this build knows, for ``forEachMap(_:carrying:)`` alone, each made
  /// once: a map made where it is visited makes its key paths anew at every visit, and the
  /// runtime's lookups for them were most of what the checks after every merge and journal line
  /// cost (a fifth of replaying a journal line).
  private enum KnownMaps {
    static let members = HouseholdMap<Member>(.members, "member", "members", \.members, \.members)
    static let categories = HouseholdMap<GroceryCategory>(
      .categories, "category", "categories", \.categories, \.categories)
    static let ingredients = HouseholdMap<IngredientTemplate>(
      .ingredients, "template", "templates", \.ingredients, \.ingredients)
    static let recipes = HouseholdMap<Recipe>(.recipes, "recipe", "recipes", \.recipes, \.recipes)
    static let lists = HouseholdMap<WeeklyList>(.lists, "list", "lists", \.lists, \.lists)
    static let items = HouseholdMap<GroceryListItem>(.items, "item", "items", \.items, \.items)
    static let plans = HouseholdMap<MealPlan>(.plans, "plan", "plans", \.plans, \.plans)
    static let meals = HouseholdMap<PlannedMeal>(
      .meals, "planned meal", "planned meals", \.meals, \.meals)
  }
}

// MARK: - Each kind's key and hooks

extension Member: MappedRecord {
  package typealias Key = MemberID
}

extension GroceryCategory: MappedRecord {
  package typealias Key = CategoryKey

  package static func note(
    _ key: Key, _ change: ORMap<Key, Self>.Change, in recheck: inout RecordsToRecheck
  ) {
    recheck.note(key, change, in: \.categories) {
      $0.key != $1.key || $0.displayName != $1.displayName
    }
  }

  /// Kept apart until the merge has merged the moves: a category that moved is not lost.
  package static func keep(
    _ key: Key, removed record: Boxed<Self>, from map: HouseholdMap<Self>,
    in collector: inout RemovalCollector
  ) {
    collector.categories.append((key, record.value))
  }
}

extension IngredientTemplate: MappedRecord {
  package typealias Key = IngredientKey

  package static func note(
    _ key: Key, _ change: ORMap<Key, Self>.Change, in recheck: inout RecordsToRecheck
  ) {
    recheck.note(key, change, in: \.ingredients) { $0.key != $1.key }
    recheck.noteRemoval(change)
  }
}

extension Recipe: MappedRecord {
  package typealias Key = RecipeID
}

extension WeeklyList: MappedRecord {
  package typealias Key = WeeklyListID
}

extension MealPlan: MappedRecord {
  package typealias Key = MealPlanID
}

extension GroceryListItem: MappedRecord {
  package typealias Key = GroceryItemID

  package static func note(
    _ key: Key, _ change: ORMap<Key, Self>.Change, in recheck: inout RecordsToRecheck
  ) {
    recheck.note(key, change, in: \.items) { $0.templateKey != $1.templateKey }
  }
}

extension CarriedRecord: MappedRecord {
  package typealias Key = CarriedKey
}

extension PlannedMeal: MappedRecord {
  package typealias Key = SlotKey

  /// Also notes a slot the merge left newly conflicted.
  package static func report(
    _ key: Key, _ change: ORMap<Key, Self>.Change, in report: inout MergeReport
  ) {
    report.count(change)
    if change.after?.value.assignment.isConflicted == true
      && change.before?.value.assignment.isConflicted != true
    {
      report.newConflicts.append(key)
    }
  }

  package static func note(
    _ key: Key, _ change: ORMap<Key, Self>.Change, in recheck: inout RecordsToRecheck
  ) {
    recheck.note(key, change, in: \.meals) { $0.slot != $1.slot }
  }

  /// Kept with the winning recipe only, on the archive's dots (see ``rewritten(at:)``).
  package static func keep(
    _ key: Key, removed record: Boxed<Self>, from map: HouseholdMap<Self>,
    in collector: inout RemovalCollector
  ) {
    let kept = record.value.rewritten {
      HybridTimestamp(
        wallMilliseconds: $0.wallMilliseconds, logical: $0.logical,
        replica: RemovedRecords.archiveReplica)
    }
    collector.records[keyPath: map.records].set(key, to: kept, by: RemovedRecords.archiveReplica)
  }

  /// Restored with the winning recipe stamped anew by this replica.
  package func restored(ticking clock: inout HybridClock) -> PlannedMeal {
    rewritten { _ in clock.tick() }
  }
}
