import ForagerSimulation
import ForagerSync
import ForagerTestSupport
import Foundation
import SemanticCRDT
import SemanticCRDTJSON
import SharedSupport
import Testing

@testable import ForagerModel
@testable import ForagerPersistence

/// Fixtures/newer/newer-build-state.json: a household state as the test-only newer build
/// writes it, with a record kind this build does not know (shelves, one field of each kind,
/// one shelf removed) and categories with three fields this build does not know
/// (`cooks:mv`, `lastStocked:max`, `pins:counter`). ``NewerBuildFixture/make()`` wrote it; a
/// test checks that it still writes those bytes.
enum NewerBuildFixture {
  static func url() throws -> URL {
    let base = try #require(
      Bundle.module.url(forResource: "Fixtures", withExtension: nil), "the fixtures folder")
    return base.appendingPathComponent("newer").appendingPathComponent("newer-build-state.json")
  }

  static func bytes() throws -> [UInt8] { Array(try Data(contentsOf: url())) }

  /// The newer build's household: device "phone" of seeded random edits, its shelves and its
  /// categories' newer fields written by the newer build's typed code.
  static func make() -> [UInt8] {
    let newer = household()
    let replica = newer.replica.replicaID
    var clock = newer.replica.clock
    var members = try! NewerHousehold.topLevel(newer.bytes)
    let index = members.firstIndex { $0.0 == "categories" }!
    var categories = try! JSONReader.decode(
      ORMap<CategoryKey, NewerCategory>.self, from: members[index].1)
    for key in categories.keys.sorted().prefix(2) {
      let stamp = clock.tick()
      _ = categories.update(key, by: replica, default: .blank) {
        $0.cooks.write("Ben", at: stamp)
        $0.lastStocked.raise(to: Int64(stamp.wallMilliseconds))
        $0.pins.increment(by: 2, replica: replica)
      }
    }
    members[index].1 = JSONWriter.encode(categories)
    return NewerHousehold.object(members)
  }

  /// The newer build's device "phone" with its shelves, before it writes its categories'
  /// newer fields.
  static func household() -> NewerHousehold {
    var newer = NewerHousehold(replica: RandomHousehold.replicas(seed: 11, operations: 60)[0])
    let replica = newer.replica.replicaID
    var clock = newer.replica.clock
    func creation() -> Creation {
      Creation(timestamp: clock.tick(), member: RandomHousehold.owner)
    }
    var shelves = ORMap<CarriedKey, Shelf>()
    let stamps = (creation(), clock.tick(), clock.tick())
    _ = shelves.update(CarriedKey("cellar"), by: replica, default: Shelf(creation: stamps.0)) {
      $0.label.assign("Cellar", at: stamps.1)
      $0.keepers.write("Ana", at: stamps.2)
      $0.lastChecked.raise(to: 1_733_788_900_000)
      $0.restocks.increment(by: 3, replica: replica)
    }
    _ = shelves.set(CarriedKey("old shelf"), to: Shelf(creation: creation()), by: replica)
    _ = shelves.remove(CarriedKey("old shelf"))
    let spices = (creation(), clock.tick())
    _ = shelves.update(CarriedKey("spices"), by: replica, default: Shelf(creation: spices.0)) {
      $0.label.assign("Spices \"top\" ✨", at: spices.1)
    }
    newer.shelves = shelves
    newer.replica.clock = clock
    return newer
  }

  /// What the newer build reads of `bytes`: its shelves and its categories, typed.
  static func typed(_ bytes: [UInt8]) throws -> (
    shelves: ORMap<CarriedKey, Shelf>, categories: ORMap<CategoryKey, NewerCategory>
  ) {
    let members = try NewerHousehold.topLevel(bytes)
    let shelves = try JSONReader.decode(
      ORMap<CarriedKey, Shelf>.self, from: #require(members.first { $0.0 == "shelves:map" }).1)
    let categories = try JSONReader.decode(
      ORMap<CategoryKey, NewerCategory>.self,
      from: #require(members.first { $0.0 == "categories" }).1)
    return (shelves, categories)
  }
}

@Suite struct NewerBuildFixtureTests {
  @Test func theFixtureIsWhatTheNewerBuildWrites() throws {
    let fixture = try NewerBuildFixture.bytes()
    let made = NewerBuildFixture.make()
    let same = made == fixture
    #expect(same, "the test-only newer build writes other bytes")
    let typed = try NewerBuildFixture.typed(fixture)
    // Not vacuous: the record kind, a removed record, and the categories' newer fields.
    #expect(typed.shelves.count == 2 && typed.shelves.context.count == 4)
    #expect(
      typed.categories.values.filter { $0.pins.value == 2 && !$0.cooks.writes.isEmpty }.count == 2)
  }

  /// This build reads the newer build's state with both decoders and writes it back byte for
  /// byte, with both encoders.
  @Test func thisBuildOpensTheNewerStateAndWritesItBackUnchanged() throws {
    let fixture = try NewerBuildFixture.bytes()
    let state = try JSONReader.decode(HouseholdState.self, from: fixture)
    #expect(state.carriedMapNames == ["shelves:map"])
    #expect(JSONWriter.encode(state) == fixture)
    let foundation = try JSONDecoder().decode(HouseholdState.self, from: Data(fixture))
    #expect(foundation == state)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let reencoded = try JSONDecoder().decode(HouseholdState.self, from: encoder.encode(state))
    #expect(reencoded == state)
    // Its version names the carried map, and a delta since an empty version carries it.
    #expect(state.version[carried: "shelves:map"] == state[carried: "shelves:map"].version)
    let version = try JSONReader.decode(
      HouseholdVersion.self, from: JSONWriter.encode(state.version))
    #expect(version == state.version)
    #expect(
      try JSONDecoder().decode(HouseholdVersion.self, from: Data(JSONWriter.encode(state.version)))
        == version)
    let delta = try #require(state.delta(since: HouseholdState(emptyLike: state).version))
    #expect(delta[carried: "shelves:map"] == state[carried: "shelves:map"])
  }

  /// A device of this build merges the newer state, edits what it knows, and what it writes,
  /// read by the newer build, holds the newer build's records merged.
  @Test func thisBuildMergesTheNewerStateAndTheNewerBuildReadsWhatItRelays() throws {
    let fixture = try NewerBuildFixture.bytes()
    var older = RandomHousehold.replicas(seed: 11, operations: 60)[1]
    _ = try older.merge(try JSONReader.decode(HouseholdState.self, from: fixture))
    _ = try older.getOrCreateCategory(displayName: "Relayed")
    let relayed = JSONWriter.encode(older.state)
    let sent = try NewerBuildFixture.typed(fixture)
    let read = try NewerBuildFixture.typed(relayed)
    #expect(read.shelves == sent.shelves)
    for (key, category) in sent.categories.values.map({ ($0.key, $0) }) {
      let merged = try #require(read.categories[key])
      #expect(merged.cooks == category.cooks && merged.pins == category.pins)
      #expect(merged.lastStocked == category.lastStocked)
    }
    // The newer device merges back and both hold the same bytes.
    var newer = NewerHousehold(replica: RandomHousehold.replicas(seed: 11, operations: 60)[0])
    try newer.merge(fixture)
    try newer.merge(relayed)
    _ = try older.merge(try JSONReader.decode(HouseholdState.self, from: newer.bytes))
    let converged = JSONWriter.encode(older.state) == newer.bytes
    #expect(converged)
  }

  /// The carried records survive this build's file, journal and sync messages.
  @Test func theNewerRecordsSurviveTheStoreTheJournalAndMessages() throws {
    let fixture = try NewerBuildFixture.bytes()
    let state = try JSONReader.decode(HouseholdState.self, from: fixture)
    let folder = TemporaryFolder()
    var store = ReplicaStore(fileURL: folder.file("tablet.json"))
    let start = RandomHousehold.replicas(seed: 11, operations: 60)[1]
    try store.save(start)
    var replica = try store.open(household: start.householdID, member: start.member)
    _ = try replica.merge(state)
    try store.save(replica)
    // The newer device restocks a shelf; this one merges the delta it sends and journals it as
    // it received it (as `HouseholdStore.merge` does).
    var newer = NewerBuildFixture.household()
    let id = newer.replica.replicaID
    let restock = newer.shelves.update(CarriedKey("cellar"), by: id, default: .blank) {
      $0.restocks.increment(replica: id)
    }
    // The newer build's delta of the edit: every map a delta that names what it retires.
    let sent = NewerHousehold.bytes(
      HouseholdState(emptyDeltaLike: newer.replica.state), shelves: restock)
    let delta = try JSONReader.decode(HouseholdState.self, from: sent)
    #expect(delta.carriedMapNames == ["shelves:map"] && delta.recordCount == 1)
    _ = try replica.merge(delta)
    #expect(try store.append(delta, of: replica) == .line)
    var reopened = ReplicaStore(fileURL: folder.file("tablet.json"))
    let read = try reopened.open(household: start.householdID, member: start.member)
    #expect(read.state == replica.state)
    let restocks = try NewerBuildFixture.typed(JSONWriter.encode(read.state)).shelves[
      CarriedKey("cellar")]?.restocks.value
    #expect(restocks == 4)

    let message = SyncMessage(
      household: state.householdID, sender: "tablet", through: 1, since: nil, recipient: nil,
      acknowledged: nil, state: replica.state)
    let received = try SyncMessage(decoding: message.encoded())
    #expect(received.state == replica.state)
  }
}

/// What a newer build may add at the top of a state is a map of records and nothing else, each
/// once, whose records hold no bare key: anything else is refused with a typed error by both
/// decoders, and nothing is read.
@Suite struct CarriedMapRefusalTests {
  /// The fixture with its `"shelves:map"` member's key or value replaced.
  static func fixture(
    key: String = "shelves:map", editing edit: (inout [(String, [UInt8])]) -> Void = { _ in }
  ) throws -> [UInt8] {
    var members = try NewerHousehold.topLevel(NewerBuildFixture.bytes())
    let index = try #require(members.firstIndex { $0.0 == "shelves:map" })
    members[index].0 = key
    edit(&members)
    return NewerHousehold.object(members)
  }

  /// What the fast reader (every file, line and message goes through it) refuses `bytes` for;
  /// Foundation's decoder must refuse them too, but for a key twice, which it takes the last
  /// of, for every key alike.
  static func refusal(_ bytes: [UInt8], foundationRefuses: Bool = true) -> JSONError.Problem? {
    if foundationRefuses {
      #expect(throws: (any Error).self) {
        _ = try JSONDecoder().decode(HouseholdState.self, from: Data(bytes))
      }
    }
    do {
      _ = try JSONReader.decode(HouseholdState.self, from: bytes)
      return nil
    } catch {
      return error.problem
    }
  }

  @Test func aKeyThatNamesNoMapIsRefused() throws {
    #expect(Self.refusal(try Self.fixture(key: "shelves")) == .unknownKey("shelves"))
    #expect(Self.refusal(try Self.fixture(key: ":map")) == .unknownKey(":map"))
  }

  @Test func aCarriedMapTwiceIsRefused() throws {
    let twice = try Self.fixture { members in
      members.append(members.first { $0.0 == "shelves:map" }!)
    }
    #expect(Self.refusal(twice, foundationRefuses: false) == .duplicateKey("shelves:map"))
  }

  @Test func aCarriedRecordWithABareKeyIsRefused() throws {
    let bytes = try Self.fixture { members in
      let index = members.firstIndex { $0.0 == "shelves:map" }!
      let text = String(decoding: members[index].1, as: UTF8.self)
        .replacingOccurrences(of: #""label:lww""#, with: #""label""#)
      members[index].1 = Array(text.utf8)
    }
    #expect(Self.refusal(bytes) == .unknownKey("label"))
  }
}
