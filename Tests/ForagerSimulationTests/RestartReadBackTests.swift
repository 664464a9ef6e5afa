import ForagerSync
import ForagerTestSupport
import Foundation
import SemanticCRDT
import Testing

@testable import ForagerSimulation

/// A restart with memory storage opens the saved replica's own values, and the file's bytes
/// are checked to read back as them: the records the device runs on share storage with the
/// replica before the crash (and its peers) rather than being a copy of their own.
@Suite struct RestartReadBackTests {
  static func saved() throws -> HouseholdReplica {
    var phone = try RandomHousehold.newHousehold(RandomHousehold.household, devices: 1) {
      ReplicaID("d\($0)")
    }[0]
    for title in ["Tomato Soup", "Bread", "Lentil Curry"] {
      try phone.addRecipe(title: title, ingredientLines: ["2 onions", "salt"])
    }
    return phone
  }

  static func read(_ replica: HouseholdReplica) throws -> ReplicaFileContents {
    try read(ReplicaFileContents(replica))
  }

  static func read(_ written: ReplicaFileContents) throws -> ReplicaFileContents {
    let bytes = ReplicaFileFormat.encode(written)
    return try ReplicaFileFormat.decode(bytes, file: URL(fileURLWithPath: "/sim/phone.json"))
  }

  static func recipeBoxes(_ state: HouseholdState) -> [RecipeID: ObjectIdentifier] {
    var boxes: [RecipeID: ObjectIdentifier] = [:]
    state.recipes.forEachBoxedValue { boxes[$0] = ObjectIdentifier($1) }
    return boxes
  }

  @Test func aRestartRunsOnTheSavedRecords() throws {
    var simulation = Simulation(SimulationTests.shortRun(seed: 3, steps: 300))
    #expect(simulation.run(progress: nil).holds)
    var device = try #require(
      simulation.devices.first { $0.disk?.state.recipes.isEmpty == false })
    let disk = try #require(device.disk)
    let saved = try device.restart(
      fromBackup: false, incarnation: "restarted", incarnationSeed: 1,
      configuration: simulation.configuration)
    let replica = try #require(device.replica)
    #expect(replica.replicaID == "restarted")
    #expect(replica.state == disk.state)
    #expect(saved?.state == disk.state)
    let boxes = Self.recipeBoxes(disk.state)
    #expect(!boxes.isEmpty)
    #expect(Self.recipeBoxes(replica.state) == boxes)
    // What decoding the file's bytes gives: records of their own, one more copy of the household.
    let decoded = try Self.read(disk)
    #expect(Self.recipeBoxes(decoded.state).allSatisfy { boxes[$0.key] != $0.value })
  }

  @Test func contentsReadBackAsSavedOnlyWhenTheyHoldWhatWasSaved() throws {
    var saved = try Self.saved()
    let read = try Self.read(saved)
    #expect(SoundnessChecks.readsBack(read, as: ReplicaFileContents(saved)))
    var withoutRemovals = read
    saved.removals = [RemovedRecords(id: 1, removedAtMilliseconds: 1, records: saved.state)]
    withoutRemovals.removals = []
    #expect(!SoundnessChecks.readsBack(withoutRemovals, as: ReplicaFileContents(saved)))
    saved.removals = []
    try saved.addRecipe(title: "Pancakes")
    #expect(!SoundnessChecks.readsBack(read, as: ReplicaFileContents(saved)))
  }

  /// A restart's check that its file reads back runs on the second core too, and finds the
  /// same: the fault that drops the kept removals, on one core and on two.
  @Test(arguments: [Cores.one, .two])
  func aFileThatReadsBackOtherwiseIsFoundOnEitherCore(cores: Cores) throws {
    let report = Simulation.run(
      CheckerTests.crashingRun(playing: .fileReadsBackWithoutRemovals), cores: cores)
    let opens = try #require(report.invariants.first { $0.name == "every device opens its file" })
    #expect(!opens.holds)
    #expect(
      opens.violations.allSatisfy { $0.hasSuffix("its file read back other than it was saved") })
  }
}
