import ForagerSync
import SemanticCRDT
import Testing

@testable import ForagerSimulation

/// The mixed-versions scenario: households whose devices run this build and the test-only
/// newer one, updated as they restart, under the household run's faults. On the wire, a device
/// of this build reads format 4 at most, so sessions must not write it format 5 but a first
/// announcement: `SyncSession` announcing format 5 to every peer fails the run (households
/// apart; seeds 1–3, checked by hand).
@Suite struct MixedVersionsTests {
  /// The default run holds, and is not vacuous: newer devices wrote shelves, some devices were
  /// updated during the run, and devices of this build merged shelves and relayed them.
  @Test(arguments: [SimulationTransport.messages, .folder])
  func aHouseholdOnTwoBuildsConvergesAndKeepsEveryShelfWrite(transport: SimulationTransport) {
    var configuration = SimulationConfiguration(scenario: .mixedVersions, seed: 1)
    configuration.transport = transport
    configuration.steps = transport == .folder ? 1_500 : 2_500
    var simulation = Simulation(configuration)
    let report = simulation.run()
    #expect(report.holds, "\(report.text)")
    #expect(simulation.shelfWrites.count > 50)
    #expect(simulation.shelvesRelayedByOlder > 10)
    #expect(transport == .folder || simulation.upgrades > 0)
    // Devices of this build play one that reads format 4 at most on the wire (ADR 0044): they
    // refused first announcements in format 5, and still converged.
    #expect(transport == .folder || simulation.announcementsRefusedByOlder > 0)
    #expect(simulation.devices.contains { $0.build == .current })
    let names = report.invariants.map(\.name)
    #expect(names.contains("no saved write of a newer build's record is lost"))
    #expect(names.contains("no device of this build refuses what a newer one sends"))
  }

  /// A build that drops the maps it does not know (as a decoder that ignores unknown keys
  /// would) leaves the devices of the household apart.
  @Test func anOlderBuildThatDropsWhatItDoesNotKnowFailsTheRun() {
    var configuration = SimulationConfiguration(scenario: .mixedVersions, seed: 2)
    configuration.steps = 600
    configuration.fault = .olderBuildDropsCarriedMaps
    let failed = CheckerTests.failedInvariants(of: configuration)
    #expect(failed.contains("replicas of a household are equal (byte-identical encoded states)"))
  }

  /// The check of shelf writes fails when the final state misses one: a logged label later
  /// than every write the household holds.
  @Test func aShelfWriteTheHouseholdDoesNotShowIsReportedLost() throws {
    var configuration = SimulationConfiguration(scenario: .mixedVersions, seed: 1)
    configuration.steps = 800
    var simulation = Simulation(configuration)
    #expect(simulation.run().holds)
    let write = try #require(simulation.shelfWrites.last)
    let lost = HybridTimestamp(wallMilliseconds: UInt64.max / 2, replica: write.dot.replica)
    simulation.shelfWrites.append(
      ShelfWrite(
        household: write.household, device: write.device, step: write.step, shelf: write.shelf,
        dot: write.dot, effect: .label(lost)))
    let check = try #require(
      simulation.mixedVersionInvariants().first {
        $0.0 == "no saved write of a newer build's record is lost"
      })
    #expect(check.2.count == 1)
  }
}
