import ForagerModel
import ForagerSync
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
    #expect(showSame(early, late))
    #expect(!showSame(early, other))
    // Part by part through a structure, other parts by `==`.
    struct Shown: Equatable {
      var name: LWWRegister<String>
      var count: Int
    }
    #expect(showSame(Shown(name: early, count: 1), Shown(name: late, count: 1)))
    #expect(!showSame(Shown(name: early, count: 1), Shown(name: late, count: 2)))
    #expect(!showSame(Shown(name: early, count: 1), Shown(name: other, count: 1)))
  }
}
