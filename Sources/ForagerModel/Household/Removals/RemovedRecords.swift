import Foundation
import SemanticCRDT

/// The records one merge removed from this replica, kept on this device so that a person can
/// bring them back with ``HouseholdReplica/restore(_:)``.
///
/// A merge cannot tell a removal a member meant from one a damaged or forged state carries, and
/// the ``MergePolicy`` only refuses large ones. So every merge that removes records keeps them
/// here, as they were just before it, for ``MergePolicy/keepsRemovedRecordsFor`` (30 days by
/// default). They are kept locally only: saved in this replica's file, never merged into
/// another replica's state.
///
/// A category that a merge moved to a new key (renamed) is not removed, and not kept here.
public struct RemovedRecords: Identifiable, Equatable, Sendable {
  /// Unique among the removals this replica keeps; later removals have greater ids.
  public let id: Int64
  /// When the merge removed them, in milliseconds since 1970 by this device's wall clock.
  public let removedAtMilliseconds: UInt64
  /// The removed records, each as it was just before the merge: a state holding only them
  /// (its references may name records that were not removed).
  package var records: HouseholdState { stored.records }
  /// ``records``, boxed. A replica keeps up to ``maximumKept`` removals, and a state is 416
  /// bytes of maps even when they are empty: a copy of the list (the replica's file's, a
  /// backup's), and each change to a list shared with one, then copies and retains a
  /// reference per removal rather than every map of every removal.
  private let stored: Stored

  private final class Stored: Sendable {
    let records: HouseholdState
    init(_ records: HouseholdState) { self.records = records }
  }

  package init(id: Int64, removedAtMilliseconds: UInt64, records: HouseholdState) {
    self.id = id
    self.removedAtMilliseconds = removedAtMilliseconds
    stored = Stored(records)
  }

  /// Whether both removals have the same id and time and the same records.
  public static func == (lhs: RemovedRecords, rhs: RemovedRecords) -> Bool {
    lhs.id == rhs.id && lhs.removedAtMilliseconds == rhs.removedAtMilliseconds
      && (lhs.stored === rhs.stored || lhs.records == rhs.records)
  }

  /// When the merge removed them.
  public var removedAt: Date {
    Date(timeIntervalSince1970: Double(removedAtMilliseconds) / 1000)
  }

  /// How many records were removed.
  public var recordCount: Int { records.recordCount }

  public var members: [Member] { sortedValues(records.members) }
  public var categories: [GroceryCategory] { sortedValues(records.categories) }
  public var ingredients: [IngredientTemplate] { sortedValues(records.ingredients) }
  public var recipes: [Recipe] { sortedValues(records.recipes) }
  public var weeklyLists: [WeeklyList] { sortedValues(records.lists) }
  public var items: [GroceryListItem] { sortedValues(records.items) }
  public var mealPlans: [MealPlan] { sortedValues(records.plans) }
  public var plannedMeals: [PlannedMeal] { sortedValues(records.meals) }

  private func sortedValues<Key: Comparable, Value>(_ map: ORMap<Key, Value>) -> [Value] {
    map.keys.sorted().map { map[$0]! }
  }
}

extension RemovedRecords {
  /// The most removals a replica keeps; past it, the oldest are forgotten first, whatever their
  /// age. A household that removes records in a thousand merges within the keeping time is
  /// far from the common case, and a file must not grow without bound.
  public static let maximumKept = 1_000

  /// The replica id of the writes that hold records in ``records``: not a device, so nothing
  /// a real replica writes is ever confused with them.
  static let archiveReplica: ReplicaID = "removed"
}

/// Gathers what a merge removes, while the maps merge.
package struct RemovalCollector {
  package var records: HouseholdState
  /// Categories removed, kept apart until the moves are merged: one that moved is not lost.
  package var categories: [(CategoryKey, GroceryCategory)] = []

  init(household: HouseholdID) {
    records = HouseholdState(householdID: household)
  }

  /// The records removed, counting a list or plan with its items or meals as one: what the
  /// ``MergePolicy`` weighs, since deleting the week's list is one thing a person did.
  var removalsMade: Int {
    var cascaded = 0
    records.items.forEachBoxedValue { _, item in
      if records.lists.contains(item.value.listID) { cascaded += 1 }
    }
    records.meals.forEachBoxedValue { _, meal in
      if let plan = meal.value.plan.value, records.plans.contains(plan) { cascaded += 1 }
    }
    return records.recordCount - cascaded
  }

  /// Keeps a removed category unless `moves` says it went to another key.
  mutating func keepCategories(except moves: ORMap<CategoryKey, LWWRegister<CategoryKey>>) {
    for (key, category) in categories where !moves.contains(key) {
      records.categories.set(key, to: category, by: RemovedRecords.archiveReplica)
    }
    categories = []
  }
}

// MARK: - Keeping and restoring

extension HouseholdReplica {
  /// The records merges removed that this replica still keeps, newest first.
  public var recentlyRemoved: [RemovedRecords] { removals.reversed() }

  /// Brings back the records of one kept removal, as new writes of this replica: each record
  /// with the fields it had when it was removed (a planned meal with the recipe that won in
  /// its slot; recipes that conflicted with it are not kept). A record whose key is live again (someone
  /// re-created it) is left as it is.
  ///
  /// A restore is an add, so it wins over the removal everywhere once merged (add-wins): the
  /// peer that removed the records gets them back at its next sync. The removal is no longer
  /// kept once restored.
  ///
  /// - Returns: The number of records brought back.
  /// - Throws: ``HouseholdError/unknownRemoval(_:)`` when no kept removal has this id,
  ///   ``HouseholdError/householdDissolved(_:)``, ``HouseholdError/clockSkew(_:)`` for a kept
  ///   record stamped too far ahead, and ``HouseholdError/unsoundRestore(_:)``
  ///   when a restored record refers to one that is gone (removed by another merge: restore
  ///   that one first). Nothing changes when it throws.
  /// - Complexity: O(*n*) over the household's records: the restored household is checked
  ///   whole.
  @discardableResult
  public mutating func restore(_ id: RemovedRecords.ID) throws(HouseholdError) -> Int {
    try requireOpen()
    guard let index = removals.firstIndex(where: { $0.id == id }) else {
      throw .unknownRemoval(id)
    }
    let kept = removals[index].records.rekeyed(to: state.normalizerVersion)
    // Kept records come from the file like the state does: their stamps pass the skew bound.
    let observed = try clockObserving(kept)
    struct BringBack: HouseholdMapVisitor {
      let kept: HouseholdState
      let replica: ReplicaID
      var restored: HouseholdState
      var delta: HouseholdState
      var clock: HybridClock
      var changes = HouseholdChange(origin: .local)
      var count = 0
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        // In key order: each record takes the next dot and clock reading, which must not
        // follow the order of a hash table.
        let records = kept[keyPath: map.records]
        for key in records.keys.sorted() where !restored[keyPath: map.records].contains(key) {
          let written = restored[keyPath: map.records].set(
            key, to: records[key]!.restored(ticking: &clock), by: replica)
          delta[keyPath: map.records].merge(written)
          changes.note(key.notedKey, existed: false, exists: true)
          count += 1
        }
      }
    }
    var bringBack = BringBack(
      kept: kept, replica: replicaID, restored: state,
      delta: HouseholdState(emptyDeltaLike: state), clock: observed)
    HouseholdState.forEachMap(&bringBack, carrying: kept.carriedMapNames)
    let problems = problemsBrought(bringBack.restored.modelViolations())
    if !problems.isEmpty { throw .unsoundRestore(Array(problems.prefix(3))) }
    state = bringBack.restored
    if bringBack.count > 0 {
      changes.noteWrites(bringBack.delta, of: state, showing: bringBack.changes)
    }
    clock = bringBack.clock
    removals.remove(at: index)
    return bringBack.count
  }

  /// Stops keeping one removal (for a person who looked at it and let it go). Unknown ids are
  /// ignored: the removal may have expired meanwhile.
  public mutating func forgetRemoval(_ id: RemovedRecords.ID) {
    removals.removeAll { $0.id == id }
  }

  /// Keeps what a merge removed, and forgets removals older than `policy` keeps them.
  mutating func keep(_ removed: HouseholdState, policy: MergePolicy) {
    let now = clock.wallClock.now()
    let keptFor = policy.keptMilliseconds
    removals.removeAll { removal in
      let (expiry, overflow) = removal.removedAtMilliseconds.addingReportingOverflow(keptFor)
      return !overflow && now > expiry
    }
    guard removed.recordCount > 0, keptFor > 0 else { return }
    // Ids follow the wall clock, so one that expired is not reused by a later removal. The
    // ids kept come from the file: past the greatest id (a forged or damaged one), they are
    // numbered again from 1, in order, rather than overflow.
    if removals.last?.id == .max {
      removals = removals.enumerated().map { index, removal in
        RemovedRecords(
          id: Int64(index + 1), removedAtMilliseconds: removal.removedAtMilliseconds,
          records: removal.records)
      }
    }
    let id = max((removals.last?.id ?? 0) + 1, Int64(clamping: now))
    removals.append(
      RemovedRecords(id: id, removedAtMilliseconds: now, records: removed.archivedInKeyOrder()))
    if removals.count > RemovedRecords.maximumKept {
      removals.removeFirst(removals.count - RemovedRecords.maximumKept)
    }
  }
}

extension PlannedMeal {
  /// This meal with its assignment rewritten as one write of the recipe that wins now, at the
  /// stamp `stamp` gives for the winning write's. How a meal is kept and restored: a write's
  /// stamp must name the replica whose dot holds it, and a kept meal lives on the archive's
  /// dots, a restored one on the restoring replica's. Conflicting recipes are dropped.
  func rewritten(at stamp: (HybridTimestamp) -> HybridTimestamp) -> PlannedMeal {
    var meal = self
    meal.assignment = MVRegister()
    if let winner = assignment.writes.first {
      meal.assignment.write(winner.value, at: stamp(winner.timestamp))
    }
    return meal
  }
}

extension ORMap where Value: MappedRecord, Key == Value.Key {
  /// Writes a removed record as the archive's: in the box it came in when committing leaves it
  /// as it is, so that a kept record shares its storage with the state it was removed from
  /// (and, in a household, with the other devices that keep the same removal); committed anew
  /// otherwise.
  mutating func archive(_ key: Key, _ record: Boxed<Value>) {
    if record.value.commitsUnchanged {
      set(key, toBoxed: record, by: RemovedRecords.archiveReplica)
    } else {
      set(key, to: record.value, by: RemovedRecords.archiveReplica)
    }
  }
}

extension HouseholdState {
  /// The same records, each on an archive dot numbered in the order of the keys' text. A merge
  /// meets the keys it removes in the order of its hash tables, which Swift seeds per process,
  /// so the dots a removal was collected under differ from run to run; renumbered, a removal
  /// kept by the same merge is the same, byte for byte, in every process.
  ///
  /// - Complexity: O(*n* log *n*) for *n* records.
  func archivedInKeyOrder() -> HouseholdState {
    struct Renumbering: HouseholdMapVisitor {
      var state: HouseholdState
      mutating func visit<Record: MappedRecord>(_ map: HouseholdMap<Record>) {
        let kept = state[keyPath: map.records]
        guard !kept.isEmpty else { return }
        var renumbered = ORMap<Record.Key, Record>()
        // Each key's text made once, not at every comparison of the sort.
        var ordered: [(text: String, key: Record.Key, record: Boxed<Record>)] = []
        ordered.reserveCapacity(kept.count)
        kept.forEachBoxedValue { key, record in ordered.append(("\(key)", key, record)) }
        ordered.sort { $0.text.precedesByScalars($1.text) }
        for (_, key, record) in ordered { renumbered.archive(key, record) }
        state[keyPath: map.records] = renumbered
      }
    }
    var renumbering = Renumbering(state: self)
    Self.forEachMap(&renumbering, carrying: carriedMapNames)
    return renumbering.state
  }
}
