import CRDTTestSupport
import ForagerModel
import ForagerSync
import ForagerTestSupport
import Foundation
import SemanticCRDT
import Testing

/// Every local edit and every merge says which records it added, updated and removed, and
/// where the change came from.
@Suite("Change events")
struct ChangeEventTests {
  /// The records that differ between two states, by comparing every map: what a change must
  /// report.
  static func difference(from before: HouseholdState, to after: HouseholdState) -> (
    added: Set<RecordKey>, updated: Set<RecordKey>, removed: Set<RecordKey>
  ) {
    struct Compare: HouseholdMapVisitor {
      let before: HouseholdState
      let after: HouseholdState
      var added: Set<RecordKey> = []
      var updated: Set<RecordKey> = []
      var removed: Set<RecordKey> = []
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        let old = before[keyPath: map.records]
        let new = after[keyPath: map.records]
        // A record of a kind this build does not know is never shown, so never a change.
        for key in Set(old.keys).union(new.keys) {
          guard let noted = key.notedKey else { continue }
          switch (old[key], new[key]) {
          case (nil, .some): added.insert(noted)
          case (.some, nil): removed.insert(noted)
          // Updated means the value a view shows changed: a write of the value already
          // there (a new stamp, the same value) is not an update (`ShownValueTests`).
          case (let a?, let b?) where !showSameByReflection(a, b): updated.insert(noted)
          default: break
          }
        }
      }
    }
    var compare = Compare(before: before, after: after)
    HouseholdState.forEachMap(&compare, carrying: before.carriedMapNames(with: after))
    return (compare.added, compare.updated, compare.removed)
  }

  /// The change from one state to another, as a merge must report it.
  static func expectedChange(
    from before: HouseholdState, to after: HouseholdState, origin: HouseholdChange.Origin
  ) -> HouseholdChange {
    let difference = difference(from: before, to: after)
    var change = HouseholdChange(origin: origin)
    for key in difference.added { change.note(key, existed: false, exists: true) }
    for key in difference.updated { change.note(key, existed: true, exists: true) }
    for key in difference.removed { change.note(key, existed: true, exists: false) }
    change.householdChanged =
      before.owner != after.owner || before.dissolved != after.dissolved
      || before.categoryMoves != after.categoryMoves
    return change
  }

  /// Whether `change` names exactly the records that differ between the states.
  static func problem(
    with change: HouseholdChange, from before: HouseholdState, to after: HouseholdState
  ) -> String? {
    let expected = difference(from: before, to: after)
    guard change.added == expected.added, change.updated == expected.updated,
      change.removed == expected.removed
    else {
      return
        "reported added \(change.added), updated \(change.updated), removed \(change.removed); the states differ by added \(expected.added), updated \(expected.updated), removed \(expected.removed)"
    }
    // Each record once, by kind too: a merge notes its changes without looking for an earlier
    // note of the same key, so a key it named twice would be listed twice here.
    let listed = RecordKind.allCases.flatMap { kind in
      let keys = change.keys(of: kind)
      return keys.added + keys.updated + keys.removed
    }
    guard listed.count == Set(listed).count,
      Set(listed) == expected.added.union(expected.updated).union(expected.removed)
    else { return "the changes by kind list \(listed)" }
    return nil
  }

  /// Random household operations on two devices, with merges of full states and of deltas:
  /// after each operation the edits' changes, and after each merge the report's, name exactly
  /// the records that differ from the state before.
  @Test func changesNameExactlyTheRecordsThatDiffer() {
    struct Step: CustomStringConvertible {
      let device: Int
      /// An operation, or `nil` for a merge of the other device (a delta when `delta`).
      let operation: HouseholdModel.Operation?
      let delta: Bool
      var description: String {
        operation.map { "d\(device): \($0)" }
          ?? "d\(device) merges the other's \(delta ? "delta" : "state")"
      }
    }
    let failure = checkProperty(
      "changes name the records that differ", iterations: 150,
      generate: { random in
        (0..<random.int(in: 1...40)).map { _ in
          let device = random.int(in: 0...1)
          return random.chance(0.75)
            ? Step(
              device: device, operation: HouseholdModel.randomOperation(using: &random),
              delta: false)
            : Step(device: device, operation: nil, delta: random.chance(0.5))
        }
      },
      check: { steps in
        var devices = [0, 1].map { index in
          HouseholdReplica(
            state: HouseholdModel.initialState, member: HouseholdModel.member,
            clock: HybridClock(replica: ReplicaID("d\(index)"), wallClock: .fixed(1_000)))
        }
        for (index, step) in steps.enumerated() {
          let before = devices[step.device].state
          let change: HouseholdChange
          if let operation = step.operation {
            // The device's clock continues past every stamp it holds, as a device's does.
            let latest = before.greatestTimestamp.map { ($0.wallMilliseconds, $0.logical) }
            devices[step.device] = HouseholdReplica(
              state: before, member: HouseholdModel.member,
              clock: HybridClock(
                replica: ReplicaID("d\(step.device)"), wallClock: .fixed(1_000 + UInt64(index)),
                latest: latest))
            HouseholdModel.perform(operation, on: &devices[step.device])
            change = devices[step.device].takeLocalChanges()
            if change.origin != .local { return "step \(index + 1): a local change not local" }
          } else {
            let other = devices[1 - step.device]
            let payload = step.delta ? other.delta(since: before.version) : other.state
            guard let payload else { continue }
            do {
              change = try devices[step.device].merge(payload, policy: .allowingAnyRemoval)
                .changes
            } catch {
              return "step \(index + 1): the merge was refused: \(error)"
            }
            if change.origin != .peer { return "step \(index + 1): a merged change not a peer's" }
          }
          if let problem = Self.problem(with: change, from: before, to: devices[step.device].state)
          {
            return "step \(index + 1) (\(step)): \(problem)"
          }
        }
        return nil
      })
    if let failure { Issue.record("\(failure)") }
  }

  @Test func aBatchOfEditsFoldsIntoOneChange() throws {
    var phone = HouseholdReplica.create(
      household: HouseholdID(), owner: MemberID(), ownerName: "Sam", replica: "phone")
    _ = phone.takeLocalChanges()
    let list = try phone.createWeeklyList(name: "This Week").id
    let milk = try phone.addItem("milk", to: list).id
    try phone.setChecked(true, item: milk)
    let bread = try phone.addItem("bread", to: list).id
    try phone.removeItem(bread)
    let change = phone.takeLocalChanges()
    // Added then checked is added; added then removed is nothing.
    #expect(
      change.added == [
        .list(list), .item(milk), .ingredient(IngredientKey(normalizing: "milk")),
        .ingredient(IngredientKey(normalizing: "bread")),
      ])
    #expect(change.updated.isEmpty && change.removed.isEmpty)
    #expect(change.kinds == [.list, .item, .ingredient])
    #expect(change.keys(of: .item).added == [.item(milk)])
    #expect(phone.takeLocalChanges().isEmpty)

    // A category moved by a rename: the old key removed, the new one added, the moves changed.
    let produce = try phone.getOrCreateCategory(displayName: "Produce").category.key
    _ = phone.takeLocalChanges()
    try phone.renameCategory(produce, to: "Fruit & Veg")
    let moved = phone.takeLocalChanges()
    #expect(moved.removed == [.category(produce)])
    #expect(moved.added == [.category(CategoryKey(normalizing: "Fruit & Veg"))])
    #expect(moved.householdChanged)
  }

  @Test func foldingFollowsEachRecordFromItsFirstState() {
    let key = RecordKey.list(WeeklyListID())
    func change(_ notes: [(Bool, Bool)]) -> HouseholdChange {
      var result = HouseholdChange(origin: .local)
      for (existed, exists) in notes {
        var next = HouseholdChange(origin: .local)
        next.note(key, existed: existed, exists: exists)
        result.formUnion(next)
      }
      return result
    }
    #expect(change([(false, true), (true, true)]).added == [key])
    #expect(change([(false, true), (true, false)]).isEmpty)
    #expect(change([(true, false), (false, true)]).updated == [key])
    #expect(change([(true, true), (true, false)]).removed == [key])
    #expect(change([(true, false)]).removed == [key])
  }
}
