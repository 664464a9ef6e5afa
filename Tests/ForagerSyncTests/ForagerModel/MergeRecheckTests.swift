import ForagerSync
import SemanticCRDTJSON
import Testing

@testable import ForagerModel

/// The check after a merge reads the records the merge noted (`RecordsToRecheck`), each in the
/// box the merged map holds it in, one part of each kind on each core: it finds what the check
/// of the whole merged household finds, wherever a broken record sits among those noted.
@Suite("The check of the records a merge changed")
struct MergeRecheckTests {
  /// `forged` merged into `receiver` as a merge made in place gathers them, and the problems the
  /// check of the records it noted finds on one core, and on two in parts of at least two.
  static func problemsNoted(merging forged: HouseholdState, into receiver: HouseholdState) -> (
    merged: HouseholdState, one: [String], two: [String]
  ) {
    var merged = receiver
    var report = MergeReport()
    var recheck = RecordsToRecheck()
    var removed = RemovalCollector(household: receiver.householdID)
    var undo = MergeUndo()
    var changes = MergeDelta()
    merged.merge(
      forged, reporting: &report, recheck: &recheck, removed: &removed, undo: &undo,
      changes: &changes)
    return (
      merged, merged.modelViolations(after: recheck),
      merged.modelViolations(after: recheck, cores: .two, recordsInHalvesAbove: 2)
    )
  }

  @Test func categoriesStoredUnderOtherKeysAreFoundAmongTheNotedOnes() throws {
    let receiver = try MergeCoresTests.large(40)
    // Every record the merge notes is broken: one the check skipped, wherever it sits among
    // them, would be missing from the problems.
    let forged = try MergeCoresTests.copiedEightTimes("Category 7", in: receiver)
    let (merged, one, two) = Self.problemsNoted(merging: forged, into: receiver.state)
    #expect(merged == receiver.state.merging(forged))
    let whole = merged.modelViolations()
    #expect(whole.count == 15, "8 records stored under other keys, 7 collisions: \(whole)")
    // Which copy a collision names first depends on the order the records are read in.
    let misplaced = { (problems: [String]) in problems.filter { $0.contains("stored under") } }
    for problems in [one, two] {
      #expect(problems.count == whole.count)
      #expect(misplaced(problems) == misplaced(whole))
      #expect(problems.filter { $0.contains("the semantic key category 7") }.count == 7)
    }
  }

  @Test func templatesAndItemsAreFoundAmongTheNotedOnes() throws {
    var receiver = try MergeCoresTests.large(0)
    let list = try receiver.createWeeklyList(name: "Week").id
    let letter = { (index: Int) in Character(UnicodeScalar(UInt8(97 + index % 26))) }
    let names = (0..<40).map { "herb q\(letter($0))\(letter($0 / 26))x" }
    for name in names.prefix(20) { _ = try receiver.addItem(name, to: list) }
    var tablet = HouseholdReplica(
      state: receiver.state, member: receiver.member, clock: receiver.clock)
    for name in names.suffix(20) { _ = try tablet.addItem(name, to: list) }
    var forged = tablet.state
    // Ten templates under keys that are not canonical, among the twenty the merge brings.
    for index in stride(from: 20, to: 40, by: 2) {
      let template = try #require(forged.ingredients[IngredientKey(normalizing: names[index])])
      _ = forged.ingredients.set(
        IngredientKey(rawValue: "2 cups \(names[index])"), to: template, by: "forger")
    }
    let (merged, one, two) = Self.problemsNoted(merging: forged, into: receiver.state)
    let whole = merged.modelViolations()
    #expect(whole.filter { $0.contains("is not its own canonical name") }.count == 10)
    #expect(whole.count == 20, "and the same ten stored under other keys: \(whole)")
    #expect(one == whole)
    #expect(two == whole)
  }
}
