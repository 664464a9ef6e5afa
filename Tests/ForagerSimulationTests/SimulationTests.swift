import ForagerSimulation
import Foundation
import SemanticCRDT
import Testing

@testable import ForagerSimulation

/// The simulator: deterministic, its scenarios end as the app requires, and its checker fails
/// when a replica misbehaves.
@Suite struct SimulationTests {
  /// A short household run, for tests.
  static func shortRun(seed: UInt64 = 1, steps: Int = 1_500) -> SimulationConfiguration {
    var configuration = SimulationConfiguration(seed: seed)
    configuration.steps = steps
    return configuration
  }

  @Test func theSameSeedGivesTheSameReportByteForByte() {
    let configuration = Self.shortRun(seed: 42)
    let first = Simulation.run(configuration)
    let second = Simulation.run(configuration)
    #expect(first.text == second.text)
    #expect(first.json == second.json)
    let other = Simulation.run(Self.shortRun(seed: 43))
    #expect(other.text != first.text, "the seed must drive the run")
  }

  /// Seed 4 of the default run lost an assignment on 497365b: a slot cleared and assigned
  /// again reused the dot of its first assignment, which a device assigning concurrently had
  /// seen (ADR 0011). The check that caught it wants each assignment itself to survive.
  @Test func theDefaultRunOfSeed4KeepsEveryAssignment() {
    let report = Simulation.run(SimulationConfiguration(seed: 4))
    #expect(report.holds, "\(report.text)")
  }

  /// Seeds for the mixed runs: 4 by default, `FORAGER_SIMULATION_SEEDS=<n>` for more.
  static let seeds: [UInt64] = Array(
    1...UInt64(
      ProcessInfo.processInfo.environment["FORAGER_SIMULATION_SEEDS"].flatMap(Int.init) ?? 4))

  @Test(arguments: seeds)
  func aMixedHouseholdRunKeepsEveryInvariant(seed: UInt64) {
    var configuration = Self.shortRun(seed: seed, steps: 3_000)
    configuration.crashRate = 0.01
    configuration.baseline = true
    let report = Simulation.run(configuration)
    #expect(report.holds, "\(report.text)")
    // The run must exercise what it claims to survive.
    #expect(report.crashes > 0 && report.crashesDuringSave > 0 && report.restoredFromBackup > 0)
    #expect(report.dropped > 0 && report.duplicated > 0 && report.reordered > 0)
    #expect(report.acknowledgedWrites > 1_000)
    #expect(report.convergenceRounds != nil)
  }

  @Test func offlineDefaultsEndWithSevenCategoriesAndTheOldDesignWithFourteen() throws {
    var configuration = SimulationConfiguration(scenario: .offlineDefaults)
    configuration.baseline = true
    let report = Simulation.run(configuration)
    #expect(report.holds, "\(report.text)")
    #expect(report.households.map(\.categoriesPerDevice) == [[7, 7]])
    let baseline = try #require(report.baseline?.first)
    #expect(baseline.categories == 14 && baseline.categoryNames == 7)
    #expect(report.text.contains("7 categories on every device"))
    #expect(report.text.contains("14 categories for 7 names (7 duplicates)"))
  }

  @Test func offlineSameCategoryEndsWithOneCategory() throws {
    var configuration = SimulationConfiguration(scenario: .offlineSameCategory)
    configuration.devices = 5
    configuration.baseline = true
    let report = Simulation.run(configuration)
    #expect(report.holds, "\(report.text)")
    #expect(report.households.map(\.categoriesPerDevice) == [[1, 1, 1, 1, 1]])
    #expect(try #require(report.baseline?.first).categories == 5)
  }

  @Test func slotConflictEndsAsOneMealShowingEveryChoice() throws {
    var configuration = SimulationConfiguration(scenario: .slotConflict)
    configuration.devices = 3
    configuration.baseline = true
    let report = Simulation.run(configuration)
    #expect(report.holds, "\(report.text)")
    #expect(report.households.first?.meals == 1)
    #expect(report.households.first?.conflictedSlots == 1)
    let baseline = try #require(report.baseline?.first)
    #expect(baseline.meals == 3 && baseline.doubleBookedSlots == 1)
  }
}
