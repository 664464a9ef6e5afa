import ForagerSync
import Foundation
import SemanticCRDT

/// The deterministic edits of the crash test's child process: step *k* adds category
/// "Step k" and a recipe with twenty lines, so the state after *k* steps can be rebuilt
/// exactly by the test, and the file grows by about 2 KB a step, making saves long enough to
/// be killed in the middle.
public enum CrashWorkload {
  public static let household = HouseholdID(
    uuid: UUID(uuidString: "0C0FFEE0-0000-4000-8000-000000000001")!)
  public static let member = MemberID(
    uuid: UUID(uuidString: "0C0FFEE0-0000-4000-8000-000000000002")!)

  /// The replica after `steps` steps, identical however it was reached.
  public static func replica(afterSteps steps: Int) -> HouseholdReplica {
    var replica = HouseholdReplica(
      joining: household, member: member, replica: "worker", wallClock: .fixed(1_733_788_800_000))
    for step in stride(from: 1, through: steps, by: 1) { apply(step: step, to: &replica) }
    return replica
  }

  public static func apply(step: Int, to replica: inout HouseholdReplica) {
    _ = try! replica.getOrCreateCategory(displayName: "Step \(step)")
    _ = try! replica.addRecipe(
      title: "Recipe \(step)",
      ingredientLines: (0..<20).map { "\($0 + 1) cups of ingredient \(step)" },
      id: RecipeID(uuid: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012X", step))!))
  }

  /// Compaction after 8 KB of journal: every few steps, so that kills land in compactions as
  /// often as in appends.
  public static let compaction = JournalCompaction(fractionOfSnapshot: 0, minimumBytes: 8_192)

  /// How many steps a state has taken.
  public static func steps(of state: HouseholdState) -> Int { state.recordCount / 2 }
}

extension CrashWorkload {
  /// The steps of the household-store crash test a state has taken: `n` when its categories
  /// are exactly "Step 1" through "Step n", `nil` when they are anything else (a gap means a
  /// save wrote a later edit without an earlier one).
  public static func storeSteps(of state: HouseholdState) -> Int? {
    let names = Set(state.categories.values.map(\.displayName))
    let expected = Set((0..<names.count).map { "Step \($0 + 1)" })
    return names == expected ? names.count : nil
  }
}
