import CRDTTestSupport
import ForagerModel
import ForagerSync
import ForagerTestSupport
import SemanticCRDT
import Testing

/// "Updated" means the value a view shows changed: a write of the value a record already shows
/// (checking a checked item, renaming a list to its own name) is a write that syncs, and no
/// update to announce. Each case failed before change events compared what records show.
@Suite struct ShownValueTests {
  static func household() throws -> (HouseholdReplica, WeeklyListID, GroceryItemID) {
    var phone = HouseholdReplica.create(
      household: HouseholdID(), owner: MemberID(), ownerName: "Sam", replica: "phone",
      wallClock: .fixed(1_000))
    let list = try phone.createWeeklyList(name: "This week").id
    let item = try phone.addItem("milk", to: list).id
    try phone.setChecked(true, item: item)
    _ = phone.takeLocalChanges()
    return (phone, list, item)
  }

  @Test func writingTheValueARecordShowsIsNotAnnounced() throws {
    var (phone, list, item) = try Self.household()
    try phone.setChecked(true, item: item)
    try phone.renameWeeklyList(list, to: "This week")
    let unchanged = phone.takeLocalChanges()
    #expect(unchanged.isEmpty, "\(unchanged)")
    // The writes still happened: they carry new stamps, and sync like any other.
    #expect(phone.takeLocalDelta() != nil)

    try phone.setChecked(false, item: item)
    try phone.renameWeeklyList(list, to: "Next week")
    let changed = phone.takeLocalChanges()
    #expect(Set(changed.updated) == [.item(item), .list(list)], "\(changed)")
  }

  @Test func mergingAPeersWriteOfTheSameValueIsNotAnnounced() throws {
    let (phone, _, item) = try Self.household()
    var tablet = HouseholdReplica(
      state: phone.state, member: MemberID(),
      clock: HybridClock(replica: "tablet", wallClock: .fixed(2_000)))
    try tablet.setChecked(true, item: item)
    var receiver = phone
    let change = try receiver.merge(tablet.state).changes
    #expect(change.isEmpty, "\(change)")
    // The tablet's stamp won: the record's register holds it, showing the same value.
    #expect(receiver.state != phone.state)
  }

  @Test func showingTheSameComparesValuesNotStamps() {
    let early = LWWRegister(
      "milk", at: HybridTimestamp(wallMilliseconds: 1, logical: 0, replica: "a"))
    let late = LWWRegister(
      "milk", at: HybridTimestamp(wallMilliseconds: 9, logical: 0, replica: "b"))
    let other = LWWRegister(
      "eggs", at: HybridTimestamp(wallMilliseconds: 9, logical: 0, replica: "b"))
    #expect(early.showsSame(as: late))
    #expect(!early.showsSame(as: other))
    // The tests' reflection: part by part through a structure, other parts by `==`.
    #expect(showSameByReflection(early, late))
    struct Shown: Equatable {
      var name: LWWRegister<String>
      var count: Int
    }
    #expect(showSameByReflection(Shown(name: early, count: 1), Shown(name: late, count: 1)))
    #expect(!showSameByReflection(Shown(name: early, count: 1), Shown(name: late, count: 2)))
    #expect(!showSameByReflection(Shown(name: early, count: 1), Shown(name: other, count: 1)))
  }

  /// A record's comparison goes through its declaration; reflection walks the stored layout and
  /// knows nothing of declarations. Every pair of records under one key on two devices of random
  /// households (with a newer build's fields and records on some) gets the same answer from
  /// both, so a field left out of a declaration, or compared by its stamp, is found.
  @Test func aRecordsDeclarationComparesWhatReflectionFinds() {
    struct Compare: HouseholdMapVisitor {
      let left: HouseholdState
      let right: HouseholdState
      var same = 0
      var different = 0
      var disagreements: [String] = []
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        let ours = left[keyPath: map.records]
        let theirs = right[keyPath: map.records]
        for key in ours.keys {
          guard let a = ours[key], let b = theirs[key] else { continue }
          let declared = a.showsSame(as: b)
          if declared != showSameByReflection(a, b) {
            disagreements.append("\(key): declared \(declared)")
          }
          if declared { same += 1 } else { different += 1 }
        }
      }
    }
    let seeds = PropertyEnvironment.iterations(default: 40)
    var totals = (same: 0, different: 0)
    for seed in 0..<UInt64(seeds) {
      var replicas = RandomHousehold.replicas(seed: seed, operations: 60)
      // A newer build's writes on both devices, on one (records that differ by them alone),
      // or on neither.
      if seed % 3 != 2 { replicas[0] = RandomHousehold.addingNewerBuildsWrites(to: replicas[0]) }
      if seed % 3 == 0 { replicas[1] = RandomHousehold.addingNewerBuildsWrites(to: replicas[1]) }
      var compare = Compare(left: replicas[0].state, right: replicas[1].state)
      HouseholdState.forEachMap(
        &compare, carrying: compare.left.carriedMapNames(with: compare.right))
      #expect(compare.disagreements.isEmpty, "seed \(seed): \(compare.disagreements)")
      totals.same += compare.same
      totals.different += compare.different
    }
    // Both answers are given often, or the comparison above proves little.
    #expect(totals.same > seeds && totals.different > seeds, "\(totals)")
  }
}
