import ForagerSync
import Foundation
import SemanticCRDT

/// The edits of the crash test's child process: step *k* adds category "Step k" and recipe
/// "Recipe k" with twenty lines, so a state shows which steps it holds, and each step writes
/// about 2 KB, making saves long enough to be killed in the middle.
public enum CrashWorkload {
  public static let household = HouseholdID(
    uuid: UUID(uuidString: "0C0FFEE0-0000-4000-8000-000000000001")!)
  public static let member = MemberID(
    uuid: UUID(uuidString: "0C0FFEE0-0000-4000-8000-000000000002")!)

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

  /// The steps a state holds: `n` when its categories are exactly "Step 1" through "Step n"
  /// and its recipes "Recipe 1" through "Recipe n", each with its twenty lines; `nil` for
  /// anything else (a torn step, or a later step without an earlier one).
  public static func steps(of state: HouseholdState) -> Int? {
    guard let steps = storeSteps(of: state), state.recipes.count == steps else { return nil }
    let titles = Set(state.recipes.values.map(\.displayName))
    let complete = state.recipes.values.allSatisfy { $0.ingredientLines.count == 20 }
    return complete && titles == Set((0..<steps).map { "Recipe \($0 + 1)" }) ? steps : nil
  }
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
