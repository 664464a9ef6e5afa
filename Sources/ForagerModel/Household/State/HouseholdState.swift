import SemanticCRDT
import SemanticCRDTJSON
internal import SharedSupport

/// The replicated state of one household: every entity in an add-wins map keyed by its
/// semantic key (categories, ingredient templates, planned-meal slots) or its UUID (recipes,
/// lists, items, plans, members).
///
/// ## Merge semantics
///
/// Each map merges as an `ORMap`: records created under the same key on different devices
/// become one record whose fields merge field by field (last writer wins per field, counters
/// add up, slot assignments keep concurrent choices as conflicts). A merge is a join of two
/// states **of one household**. States of different households are not in one lattice:
/// ``HouseholdReplica/merge(_:policy:)-(HouseholdState,_)`` refuses them with
/// ``HouseholdError/differentHousehold(local:remote:)``, and this type's own `merge` leaves
/// `self` unchanged when given one.
public struct HouseholdState: Equatable, Codable, Sendable {
  /// The household every record belongs to.
  public internal(set) var householdID: HouseholdID
  /// The normalizer rules the semantic keys were computed with.
  public internal(set) var normalizerVersion: NormalizerVersion
  package var owner: LWWRegister<MemberID?>
  package var dissolved: LWWRegister<Bool>
  package var members: ORMap<MemberID, Member>
  package var categories: ORMap<CategoryKey, GroceryCategory>
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
  /// The maps of record kinds a newer build added, by their keys (`"shelves:map"`): carried,
  /// merged and written back, never shown (ADR 0037). Holds no empty map.
  package internal(set) var carriedMaps: [String: ORMap<CarriedKey, CarriedRecord>] = [:]

  /// The state's keys in both codecs, in the order they are written.
  package enum CodingKeys: String, CodingKey, CaseIterable, Sendable {
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

  /// An empty state of the household of `other`, keyed with its normalizer: the start of a
  /// delta of it.
  package init(emptyLike other: HouseholdState) {
    self.init(householdID: other.householdID)
    normalizerVersion = other.normalizerVersion
  }

  /// The empty delta of the household of `other`: every map an empty delta (see
  /// ``SemanticCRDT/ORMap``), so that the deltas of edits joined into it stay deltas that name
  /// the records they remove.
  package init(emptyDeltaLike other: HouseholdState) {
    struct EmptyDeltas: HouseholdMapVisitor {
      var state: HouseholdState
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        state[keyPath: map.records] = .emptyDelta
      }
    }
    var empty = EmptyDeltas(state: HouseholdState(emptyLike: other))
    Self.forEachMap(&empty, carrying: other.carriedMapNames)
    self = empty.state
    categoryMoves = .emptyDelta
  }

  /// This state with every map a state, keeping no index of live writes: a delta without the
  /// keys its maps name as removed (for tests that merging a delta gives what merging its
  /// state form gives), a state without its indexes (``withoutIndexes``).
  package var stateForm: HouseholdState {
    struct StateForm: HouseholdMapVisitor {
      var state: HouseholdState
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        state[keyPath: map.records] = state[keyPath: map.records].stateForm
      }
    }
    var form = StateForm(state: self)
    Self.forEachMap(&form, carrying: carriedMapNames)
    form.state.categoryMoves = categoryMoves?.stateForm
    return form.state
  }

  /// This state without its maps' indexes of live writes (``indexLiveDots()``): what a
  /// replica's file holds, which opening indexes again. A state (not a delta) is its own
  /// ``stateForm`` but for the indexes, which a state form does not keep.
  package var withoutIndexes: HouseholdState { stateForm }

  /// Starts keeping every map's index of live writes (see `ORMap.indexLiveDots()`), so that
  /// ``delta(since:)`` costs what the delta holds and merging a small delta finds what it
  /// removes without visiting every record. ``HouseholdReplica`` keeps it from its start. The
  /// category moves are not indexed: one per rename, they are read whole.
  ///
  /// - Complexity: O(*n*) for *n* records whose writes' counters are dense, O(*n* log *n*)
  ///   otherwise; once (about 6 ms at 100,000 records).
  package mutating func indexLiveDots() {
    struct Index: HouseholdMapVisitor {
      var state: HouseholdState
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        state[keyPath: map.records].indexLiveDots()
      }
    }
    let carried = carriedMapNames
    var index = Index(state: consume self)
    Self.forEachMap(&index, carrying: carried)
    self = index.state
  }

  /// Whether every map keeps its index of live writes (see ``indexLiveDots()``).
  package var keepsLiveDotIndex: Bool {
    struct Kept: HouseholdMapVisitor {
      let state: HouseholdState
      var all = true
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        all = all && state[keyPath: map.records].keepsLiveDotIndex
      }
    }
    var kept = Kept(state: self)
    Self.forEachMap(&kept, carrying: carriedMapNames)
    return kept.all
  }

  /// Where each moved category key went (empty when none has moved).
  package var moves: ORMap<CategoryKey, LWWRegister<CategoryKey>> {
    get { categoryMoves ?? ORMap() }
    set { categoryMoves = newValue.isEmpty && newValue.context.isEmpty ? nil : newValue }
  }

  /// The number of records of every kind.
  public var recordCount: Int {
    struct Count: HouseholdMapVisitor {
      let state: HouseholdState
      var total = 0
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        total += state[keyPath: map.records].count
      }
    }
    var count = Count(state: self)
    Self.forEachMap(&count, carrying: carriedMapNames)
    return count.total
  }

  /// The runs of counters the causal contexts of its maps name, summed (``CausalContext``):
  /// beside ``recordCount``, how much a peer that merges it reads. A delta since a version
  /// names every run of dots dead within the version, so its count grows with the household's
  /// history of overwrites and removals, not with the changes it carries.
  ///
  /// - Complexity: O(maps × replicas).
  package var contextRangeCount: Int {
    struct Count: HouseholdMapVisitor {
      let state: HouseholdState
      var total = 0
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        total += state[keyPath: map.records].context.rangeCount
      }
    }
    var count = Count(state: self)
    Self.forEachMap(&count, carrying: carriedMapNames)
    return count.total + moves.context.rangeCount
  }
}

extension HouseholdState: Mergeable {
  /// Joins a state of the same household; a state of another household is ignored (see the
  /// type's documentation).
  ///
  /// - Complexity: O(*n* + *m*) hash lookups over all records.
  public mutating func merge(_ other: HouseholdState) {
    guard other.householdID == householdID else { return }
    struct Merge: HouseholdMapVisitor {
      var state: HouseholdState
      let other: HouseholdState
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        state[keyPath: map.records].merge(other[keyPath: map.records])
      }
    }
    let carried = carriedMapNames(with: other)
    var merge = Merge(state: consume self, other: other)
    Self.forEachMap(&merge, carrying: carried)
    self = merge.state
    mergeRegisters(of: other)
  }

  /// Merges what is not a map of records: the normalizer version, owner, dissolved and the
  /// category moves.
  private mutating func mergeRegisters(of other: HouseholdState) {
    normalizerVersion = max(normalizerVersion, other.normalizerVersion)
    owner.merge(other.owner)
    dissolved.merge(other.dissolved)
    if let theirs = other.categoryMoves { moves.merge(theirs) }
  }

  /// Merges `other` like ``merge(_:)`` and adds to `report` what the merge added, merged and
  /// removed, and which slots it left newly conflicted, to `recheck` the keys whose records
  /// the merge changed, and to `removed` the records it removed: gathered as the maps merge,
  /// from the keys whose writes changed, so none costs a pass of its own. What each kind
  /// notes is its ``MappedRecord`` hooks'.
  ///
  /// The merge is made in place; `undo` gathers what puts the state back as it was (the writes
  /// before of every key the merge changed, each map's context, the registers), for a caller
  /// that checks the result and may refuse it; `changes` gathers what makes the delta of what
  /// it changed, for the change log to pass on (ADR 0040).
  mutating func merge(
    _ other: HouseholdState, reporting report: inout MergeReport,
    recheck: inout RecordsToRecheck, removed: inout RemovalCollector, undo: inout MergeUndo,
    changes: inout MergeDelta
  ) {
    guard other.householdID == householdID else { return }
    struct MergeReporting: HouseholdMapVisitor {
      var state: HouseholdState
      let other: HouseholdState
      var report: MergeReport
      var recheck: RecordsToRecheck
      var removed: RemovalCollector
      var undo: MergeUndo
      var changes: MergeDelta
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        let context = state[keyPath: map.records].context
        // Each changed key with its writes before the merge: what undoing it restores, and
        // what the delta of what it changed reads beside the merged map, which holds the
        // writes after (so that they are not copied for a delta rarely built).
        var changed = WritesBefore<Record.Key, Boxed<Record>>()
        // Most keys the other map holds change in a merge of many new records (a device that
        // joins, or one that restored a backup).
        report.changes.reserveCapacity(forMore: other[keyPath: map.records].count)
        state[keyPath: map.records].merge(other[keyPath: map.records]) {
          key, change, writesBefore, writesAfter in
          changed.append(key, writesBefore, after: writesAfter)
          if change.changedWrites { undo.changedState = true }
          Record.report(key, change, in: &report)
          report.changes.note(key, change)
          Record.note(key, change, in: &recheck)
          if change.isAbsent, let before = change.before {
            Record.keep(key, removed: before, from: map, in: &removed)
          }
        }
        if state[keyPath: map.records].context != context { undo.changedState = true }
        undo.steps.append {
          $0[keyPath: map.records].undoMerge(restoring: changed, context: context)
        }
        let theirs = other[keyPath: map.records].context
        changes.weight += changed.count
        changes.steps.append { delta, merged in
          delta[keyPath: map.records] = .delta(
            ofMerging: theirs, into: context, changing: changed,
            merged: merged[keyPath: map.records])
        }
      }
    }
    let registers = (normalizerVersion, owner, dissolved, categoryMoves)
    let carried = carriedMapNames(with: other)
    var merge = MergeReporting(
      state: consume self, other: other, report: consume report, recheck: consume recheck,
      removed: consume removed, undo: consume undo, changes: consume changes)
    Self.forEachMap(&merge, carrying: carried)
    (self, report, recheck, removed, undo, changes) = (
      merge.state, merge.report, merge.recheck, merge.removed, merge.undo, merge.changes
    )
    undo.steps.append {
      ($0.normalizerVersion, $0.owner, $0.dissolved, $0.categoryMoves) = registers
    }
    changes.weight += other.categoryMoves?.count ?? 0
    changes.steps.append { delta, _ in delta.mergeRegisters(of: other) }
    mergeRegisters(of: other)
    if (registers.1, registers.2, registers.3) != (owner, dissolved, categoryMoves) {
      report.changes.householdChanged = true
      undo.changedState = true
    }
    if registers.0 != normalizerVersion { undo.changedState = true }
    removed.keepCategories(except: moves)
    report.newConflicts.sort()
  }
}

/// What a household state has seen: one version per map.
public struct HouseholdVersion: Hashable, Codable, Sendable {
  public var owner: HybridTimestamp
  public var dissolved: HybridTimestamp
  public var members = VersionVector()
  public var categories = VersionVector()
  public var ingredients = VersionVector()
  public var recipes = VersionVector()
  public var lists = VersionVector()
  public var items = VersionVector()
  public var plans = VersionVector()
  public var meals = VersionVector()
  public var categoryMoves: VersionVector
  /// The versions of the maps of record kinds a newer build added (ADR 0037), by their keys.
  /// Holds no empty version.
  package internal(set) var carriedMaps: [String: VersionVector] = [:]

  /// The synthesized coding keys, listed so that the fast codec can switch over them.
  package enum CodingKeys: String, CodingKey, CaseIterable, Sendable {
    case owner, dissolved, members, categories, ingredients, recipes, lists, items, plans, meals
    case categoryMoves
  }
}

extension HouseholdVersion: Mergeable {
  public mutating func merge(_ other: HouseholdVersion) {
    struct Merge: HouseholdMapVisitor {
      var version: HouseholdVersion
      let other: HouseholdVersion
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        version[keyPath: map.version].merge(other[keyPath: map.version])
      }
    }
    let carried = carriedMapNames(with: other)
    var merge = Merge(version: consume self, other: other)
    HouseholdState.forEachMap(&merge, carrying: carried)
    self = merge.version
    owner.merge(other.owner)
    dissolved.merge(other.dissolved)
    categoryMoves.merge(other.categoryMoves)
  }
}

extension HouseholdVersion {
  /// Gives each map's version that equals `other`'s the storage of `other`'s: versions kept
  /// side by side (a replica's at the numbers its messages carried, ``ChangeLog/noteSent(_:)``)
  /// then hold a table of their own only for the maps that changed between them.
  ///
  /// - Complexity: O(maps × replicas).
  package mutating func shareStorage(with other: HouseholdVersion) {
    struct Share: HouseholdMapVisitor {
      var version: HouseholdVersion
      let other: HouseholdVersion
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        if version[keyPath: map.version] == other[keyPath: map.version] {
          version[keyPath: map.version] = other[keyPath: map.version]
        }
      }
    }
    let carried = carriedMapNames(with: other)
    var share = Share(version: self, other: other)
    HouseholdState.forEachMap(&share, carrying: carried)
    self = share.version
    if categoryMoves == other.categoryMoves { categoryMoves = other.categoryMoves }
  }
}

extension HouseholdState: DeltaMergeable {
  public var version: HouseholdVersion {
    struct Read: HouseholdMapVisitor {
      let state: HouseholdState
      var version: HouseholdVersion
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        version[keyPath: map.version] = state[keyPath: map.records].version
      }
    }
    var read = Read(
      state: self,
      version: HouseholdVersion(
        owner: owner.version, dissolved: dissolved.version, categoryMoves: moves.version))
    Self.forEachMap(&read, carrying: carriedMapNames)
    return read.version
  }

  /// What a peer whose state has seen `version` lacks: each map's delta, or `nil` when there
  /// is none. Its size grows with the changes, not with the household.
  public func delta(since version: HouseholdVersion) -> HouseholdState? {
    struct Delta: HouseholdMapVisitor {
      let state: HouseholdState
      let since: HouseholdVersion
      var delta: HouseholdState
      var changed = false
      /// Puts a part into the delta, if there is one.
      mutating func take<Part>(_ part: Part?, into slot: WritableKeyPath<HouseholdState, Part>) {
        guard let part else { return }
        delta[keyPath: slot] = part
        changed = true
      }
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        take(
          state[keyPath: map.records].delta(since: since[keyPath: map.version]), into: map.records)
      }
    }
    var delta = Delta(state: self, since: version, delta: HouseholdState(emptyLike: self))
    Self.forEachMap(&delta, carrying: carriedMapNames)
    delta.take(owner.delta(since: version.owner), into: \.owner)
    delta.take(dissolved.delta(since: version.dissolved), into: \.dissolved)
    delta.take(moves.delta(since: version.categoryMoves), into: \.moves)
    return delta.changed ? delta.delta : nil
  }
}

extension HouseholdState: HybridTimestamped {
  /// The greatest timestamp of any record.
  ///
  /// - Complexity: O(*n*) over all records.
  public var greatestTimestamp: HybridTimestamp? { greatestTimestamp(inPart: 0, of: 1) }

  /// ``greatestTimestamp``, read on two cores when `cores` is ``Cores/two`` and the state holds
  /// 20,000 records or more: the scan copies every record out of its map, which costs more
  /// than the comparisons, so two halves take about half the time.
  package func greatestTimestamp(cores: Cores) -> HybridTimestamp? {
    guard cores == .two, recordCount >= 20_000 else { return greatestTimestamp }
    let (low, high) = concurrently {
      greatestTimestamp(inPart: 0, of: 2)
    } _: { [self] in
      greatestTimestamp(inPart: 1, of: 2)
    }
    guard let low, let high else { return low ?? high }
    return max(low, high)
  }

  /// The greatest timestamp in one of `parts` parts of every map; the registers and moves,
  /// which are not records, count in the first part.
  private func greatestTimestamp(inPart part: Int, of parts: Int) -> HybridTimestamp? {
    struct Greatest: HouseholdMapVisitor {
      let state: HouseholdState
      let part: Int
      let parts: Int
      var greatest: HybridTimestamp?
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        if let stamp = state[keyPath: map.records].greatestTimestamp(inPart: part, of: parts) {
          greatest.raise(to: stamp)
        }
      }
    }
    let registers = part == 0 ? registersGreatestTimestamp : nil
    var greatest = Greatest(state: self, part: part, parts: parts, greatest: registers)
    Self.forEachMap(&greatest, carrying: carriedMapNames)
    return greatest.greatest
  }

  /// The greatest timestamp outside the record maps: the owner and dissolved registers, and
  /// the category moves.
  var registersGreatestTimestamp: HybridTimestamp? {
    [owner.timestamp, dissolved.timestamp, categoryMoves?.greatestTimestamp]
      .compactMap { $0 }.max()
  }
}

/// What a merge made in place changed, as a delta of the state any replica may merge (ADR
/// 0040): gathered by ``HouseholdState/merge(_:reporting:recheck:removed:undo:changes:)`` as it
/// merges, built only when asked for.
struct MergeDelta {
  /// Each puts one map's part (or the registers) into the delta, reading the merged state.
  fileprivate var steps: [(inout HouseholdState, HouseholdState) -> Void] = []
  /// The keys the merge changed in every map, and the category moves it merged: what keeping,
  /// sending and merging the delta costs (``HouseholdState/changeWeight``).
  fileprivate(set) var weight = 0

  /// The delta, of `state`, the state the merge made (and not changed since): each map the
  /// merged map restricted to the dots the merge brought and those of the keys it changed
  /// (``ORMap/delta(ofMerging:into:changing:merged:)``), and the registers merged in.
  ///
  /// - Complexity: O(``weight``) hash lookups, plus the dots those keys held and the contexts'
  ///   intervals.
  func delta(of state: HouseholdState) -> HouseholdState {
    var delta = HouseholdState(emptyDeltaLike: state)
    for step in steps { step(&delta, state) }
    return delta
  }
}

/// What puts a household state back as it was before a merge made in place: the steps
/// ``HouseholdState/merge(_:reporting:recheck:removed:undo:changes:)`` gathered, applied in reverse.
struct MergeUndo {
  fileprivate var steps: [(inout HouseholdState) -> Void] = []
  /// Whether the merge changed the state at all: a key's writes, a context, a register.
  fileprivate(set) var changedState = false

  /// Undoes the merge on `state`, the state it was made on.
  ///
  /// - Complexity: O(*k*) for the *k* keys the merge changed.
  func apply(to state: inout HouseholdState) {
    for step in steps.reversed() { step(&state) }
  }
}
