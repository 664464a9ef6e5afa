import ForagerTestSupport
import SemanticCRDT
import Testing

@testable import ForagerModel

/// The one list of the household's maps (``HouseholdState/forEachMap(_:carrying:)``) names every map of
/// records once, each with its own version: an operation written over it cannot skip a map or
/// read another's. (That each is written under its own key, the codec tests check: the fast
/// encoder's bytes equal `JSONEncoder`'s.)
@Suite struct HouseholdMapsTests {
  @Test func everyMapOfRecordsIsListedOnce() {
    struct Fields: HouseholdMapVisitor {
      var fields: [HouseholdState.CodingKeys] = []
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        fields.append(HouseholdState.CodingKeys(rawValue: map.field)!)
      }
    }
    var visitor = Fields()
    HouseholdState.forEachMap(&visitor, carrying: [])
    let notRecords: Set<HouseholdState.CodingKeys> = [
      .householdID, .normalizerVersion, .owner, .dissolved, .categoryMoves,
    ]
    #expect(Set(visitor.fields) == Set(HouseholdState.CodingKeys.allCases).subtracting(notRecords))
    #expect(visitor.fields.count == Set(visitor.fields).count)
  }

  /// The parts the compiler cannot tie to the list: a stored map of records, or a stored
  /// version of one, that the list leaves out would be merged, encoded and decoded by no one.
  @Test func everyStoredMapAndVersionIsListed() {
    struct Fields: HouseholdMapVisitor {
      var fields: Set<String> = []
      mutating func visit<Record>(_ map: HouseholdMap<Record>) { fields.insert(map.field) }
    }
    var visitor = Fields()
    HouseholdState.forEachMap(&visitor, carrying: [])
    func stored<Value>(_ value: Value, where matches: (Any) -> Bool) -> Set<String> {
      Set(Mirror(reflecting: value).children.filter { matches($0.value) }.compactMap(\.label))
    }
    let maps = stored(HouseholdState(householdID: HouseholdID())) {
      String(describing: type(of: $0)).hasPrefix("ORMap<")
    }
    let versions = stored(HouseholdState(householdID: HouseholdID()).version) {
      $0 is VersionVector
    }
    // The category moves are a map and have a version, but hold no records.
    #expect(maps == visitor.fields, "stored maps \(maps.sorted())")
    #expect(versions == visitor.fields.union(["categoryMoves"]), "versions \(versions.sorted())")
    #expect(
      visitor.fields.isSubset(of: Set(HouseholdVersion.CodingKeys.allCases.map(\.rawValue))))
  }

  /// Against the maps named one by one: the version and the count built over the list.
  @Test func versionAndCountCoverEachMapByName() throws {
    let state = try #require(
      (1...50).lazy.map { RandomHousehold.state(seed: $0, operations: 200) }.first {
        !$0.members.isEmpty && !$0.categories.isEmpty && !$0.ingredients.isEmpty
          && !$0.recipes.isEmpty && !$0.lists.isEmpty && !$0.items.isEmpty && !$0.plans.isEmpty
          && !$0.meals.isEmpty
      }, "a random household with a record of every kind")
    let version = state.version
    #expect(version.members == state.members.version)
    #expect(version.categories == state.categories.version)
    #expect(version.ingredients == state.ingredients.version)
    #expect(version.recipes == state.recipes.version)
    #expect(version.lists == state.lists.version)
    #expect(version.items == state.items.version)
    #expect(version.plans == state.plans.version)
    #expect(version.meals == state.meals.version)
    #expect(
      state.recordCount
        == state.members.count + state.categories.count + state.ingredients.count
        + state.recipes.count + state.lists.count + state.items.count + state.plans.count
        + state.meals.count)
  }
}

/// What a delta names beside its records (`contextRangeCount`, which the simulator's report
/// sums): a delta since a version carries a run for each run of dots dead within the version,
/// however few records changed since.
@Suite struct ContextRangeCountTests {
  @Test func aDeltaSinceAVersionNamesEachRunOfDeadDots() throws {
    var phone = HouseholdReplica.create(
      household: HouseholdID(), owner: MemberID(), ownerName: "Sam", replica: "phone",
      wallClock: .fixed(1_000))
    var keys: [CategoryKey] = []
    for name in ["Alpha", "Beta", "Gamma", "Delta", "Epsilon"] {
      keys.append(try phone.getOrCreateCategory(displayName: name).category.key)
    }
    let version = phone.state.version
    #expect(phone.state.delta(since: version) == nil)
    // Two categories apart: two runs of dead dots within the version, and nothing written.
    try phone.deleteCategory(keys[1])
    try phone.deleteCategory(keys[3])
    let delta = try #require(phone.state.delta(since: version))
    #expect(delta.recordCount == 0)
    #expect(delta.categories.context.rangeCount == 2)
    #expect(delta.contextRangeCount == 2)
    // The whole state names each map's written dots as runs: the categories' one prefix among
    // them.
    #expect(phone.state.contextRangeCount >= phone.state.categories.context.rangeCount)
    #expect(phone.state.categories.context.rangeCount == 1)
  }
}
