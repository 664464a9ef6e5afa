import CRDTTestSupport
import ForagerSync
import ForagerTestSupport
import SemanticCRDT
import Testing

/// The merge report is counted while the maps merge, from the keys whose writes changed. These
/// tests hold it to its definition, computed from whole snapshots before and after.
/// `FORAGER_PROPERTY_ITERATIONS` scales the number of random households (default 60).
@Suite struct MergeReportTests {
  /// The report by definition: among the remote's keys, those present after but not before
  /// were added and those present both times with another value were merged; the removed are
  /// what the count lost besides; slots of the remote conflicted after and not before are new
  /// conflicts.
  static func expectedReport(before: HouseholdState, after: HouseholdState, remote: HouseholdState)
    -> MergeReport
  {
    var report = MergeReport()
    func count<Key, Value: Equatable>(
      _ before: ORMap<Key, Value>, _ after: ORMap<Key, Value>, _ remote: ORMap<Key, Value>
    ) {
      var added = 0
      for key in remote.keys {
        guard let merged = after[key] else { continue }
        if let local = before[key] {
          if local != merged { report.recordsMerged += 1 }
        } else {
          added += 1
        }
      }
      report.recordsAdded += added
      report.recordsRemoved += before.count + added - after.count
    }
    count(before.members, after.members, remote.members)
    count(before.categories, after.categories, remote.categories)
    count(before.ingredients, after.ingredients, remote.ingredients)
    count(before.recipes, after.recipes, remote.recipes)
    count(before.lists, after.lists, remote.lists)
    count(before.items, after.items, remote.items)
    count(before.plans, after.plans, remote.plans)
    count(before.meals, after.meals, remote.meals)
    report.newConflicts = remote.meals.keys.filter { slot in
      (after.meals[slot]?.assignment.isConflicted ?? false)
        && !(before.meals[slot]?.assignment.isConflicted ?? false)
    }.sorted()
    report.changes = ChangeEventTests.expectedChange(from: before, to: after, origin: .peer)
    return report
  }

  @Test func reportMatchesItsDefinitionOnRandomHouseholds() throws {
    let seeds = UInt64(PropertyEnvironment.iterations(default: 60))
    var nonEmpty = 0
    for seed in 0..<seeds {
      let replicas = RandomHousehold.replicas(seed: 7_000 + seed, devices: 4, operations: 60)
      for (index, remote) in replicas.enumerated() {
        var local = replicas[(index + 1) % replicas.count]
        let before = local.state
        // Full states and deltas both: a delta reports only what it carries.
        for sent in [remote.state, remote.delta(since: before.version) ?? remote.state] {
          var receiver = local
          let report = try receiver.merge(sent)
          let expected = Self.expectedReport(before: before, after: receiver.state, remote: sent)
          #expect(report == expected, "seed \(7_000 + seed), device \(index)")
          if report != MergeReport() { nonEmpty += 1 }
        }
        _ = try local.merge(remote.state)
      }
    }
    // The households must exercise the report, not only agree on empty ones.
    #expect(nonEmpty > Int(seeds))
  }

  /// A slot written concurrently on two devices, then cleared on one: a third device that
  /// holds both writes loses one when it merges the clearing device's state, which no longer
  /// holds the slot. The slot's value changes, but no record arrived: nothing is counted.
  @Test func aWriteLostUnderAKeyOnlyThisSideHoldsIsNotAMergedRecord() throws {
    let wall: UInt64 = 1_733_788_800_000
    var phone = HouseholdReplica.create(
      household: RandomHousehold.household, owner: RandomHousehold.owner, ownerName: "Ana",
      replica: "phone", wallClock: .fixed(wall))
    var tablet = HouseholdReplica(
      joining: RandomHousehold.household, member: RandomHousehold.owner, replica: "tablet",
      wallClock: .fixed(wall))
    try tablet.merge(phone.state)
    let slot = SlotKey(rawValue: "2024-12-10-dinner")!
    let soup = try phone.addRecipe(title: "Soup").recipe.id
    let stew = try tablet.addRecipe(title: "Stew").recipe.id
    _ = try phone.assignRecipe(soup, to: slot)
    _ = try tablet.assignRecipe(stew, to: slot)
    var laptop = HouseholdReplica(
      joining: RandomHousehold.household, member: RandomHousehold.owner, replica: "laptop",
      wallClock: .fixed(wall))
    try laptop.merge(phone.state)
    try laptop.merge(tablet.state)
    let both = try #require(laptop.state.meals[slot])
    try phone.clearSlot(slot)
    let before = laptop.state
    let report = try laptop.merge(phone.state)
    // The laptop kept the tablet's write only: the slot changed, under a key the phone lacks.
    #expect(phone.state.meals[slot] == nil)
    #expect(laptop.state.meals[slot] != nil && laptop.state.meals[slot] != both)
    #expect(report.recordsAdded == 0 && report.recordsMerged == 0 && report.recordsRemoved == 0)
    // Yet what the slot shows changed (its conflict is gone), so its view must refresh.
    #expect(report.changes.updated == [.meal(slot)] && report.changes.added.isEmpty)
    #expect(report == Self.expectedReport(before: before, after: laptop.state, remote: phone.state))
  }
}
