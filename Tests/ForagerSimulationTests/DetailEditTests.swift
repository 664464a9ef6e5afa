import ForagerSync
import SemanticCRDT
import Testing

@testable import ForagerSimulation

/// The one list of detail edits (``DetailEdit``) against the records' declarations (ADR 0036)
/// and the library's edits: the simulator's workload, the random households and the reference
/// model all draw from it, and the reference model predicts what a device shows from what an
/// edit says it writes.
@Suite struct DetailEditTests {
  /// The declared last-writer-wins fields of each kind that no detail edit writes, because
  /// other edits do (a name, a position, lines, a scope, a meal's plan). A field added to a
  /// record must get a detail edit or a place here.
  static let writtenByOtherEdits: [DetailEdit.Target: Set<String>] = [
    .category: ["name", "order", "scope"], .recipe: ["lines", "scope", "title"],
    .meal: ["plan", "scope"], .plan: ["name", "scope"], .list: ["name", "scope"],
  ]

  @Test func everyDeclaredFieldOfAnEditedKindHasAnEdit() throws {
    let (replica, records) = try Self.household()
    for (target, record) in records {
      let declared = Set(HouseholdState.registerKeys(of: record))
      let edited = DetailEdit.fieldKeys(of: target)
      let others = Self.writtenByOtherEdits[target] ?? []
      #expect(edited.isSubset(of: declared), "\(target): edits write undeclared fields")
      #expect(edited.isDisjoint(with: others), "\(target): a field is listed twice")
      let missing = declared.subtracting(edited).subtracting(others)
      #expect(missing.isEmpty, "no edit writes \(missing.sorted()) of a \(target)")
      #expect(target.records(shownBy: replica) == [record])
    }
  }

  /// Each edit, with values that set and clear, shows what it says it writes.
  @Test func eachEditShowsWhatItSaysItWrites() throws {
    var (replica, records) = try Self.household()
    for edit in DetailEdit.allCases {
      for value in [
        DetailEdit.Value(count: 3, flag: true, text: "Stir"),
        DetailEdit.Value(count: 12, flag: false, text: ""),
      ] {
        let record = try #require(records[edit.target])
        try edit.perform(value, on: record, of: &replica)
        let stamp = try #require(replica.state.greatestTimestamp)
        let shown = DetailEdit.writtenDetails(of: record, in: replica.state)
        for (key, expected) in edit.writes(value, at: stamp) {
          #expect(shown[key] == expected, "\(edit) \(value): \(key)")
        }
      }
    }
  }

  /// A household with one record of each kind the edits change.
  static func household() throws -> (HouseholdReplica, [DetailEdit.Target: RecordKey]) {
    var replica = HouseholdReplica.create(
      owner: MemberID(), ownerName: "Ana", replica: "a", wallClock: .fixed(5_000))
    let category = try replica.getOrCreateCategory(displayName: "Produce").category
    let recipe = try replica.addRecipe(title: "Soup", ingredientLines: ["salt"]).recipe
    let plan = try replica.createMealPlan(name: "Week")
    let list = try replica.createWeeklyList(name: "Groceries")
    let meal = try replica.assignRecipe(
      recipe.id, to: SlotKey(rawValue: "2024-12-10-dinner")!, in: plan.id)
    return (
      replica,
      [
        .category: .category(category.key), .recipe: .recipe(recipe.id), .meal: .meal(meal.slot),
        .plan: .plan(plan.id), .list: .list(list.id),
      ]
    )
  }
}
