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

  /// Devices that go on syncing with the same peers send them deltas, not full states: a full
  /// state that changed one device reaches its other peers as what it changed (ADR 0040).
  /// With a change log that kept nothing of such a merge, most messages of a household run were
  /// full states (1,611 of 1,897 in the default run of seed 1); every device's first messages
  /// to each peer after a start still are.
  @Test func mostMessagesOfAHouseholdRunAreDeltas() {
    let report = Simulation.run(Self.shortRun(seed: 1, steps: 3_000))
    #expect(report.holds, "\(report.text)")
    #expect(
      report.deltas > 3 * report.fullStates,
      "\(report.deltas) deltas, \(report.fullStates) full states")
  }

  /// The report counts the records the deltas held, so that a run shows how much of a
  /// household its deltas carry. Two devices that seed the 7 default categories offline hold
  /// them before their first message; once they have merged each other's, their deltas hold
  /// nothing (80 records in 196 deltas on seed 1). A count of the sender's whole state at each
  /// delta (at least 7 each) fails this, and so does a count that stays 0. Beside the records,
  /// the runs of dots their contexts name (`contextRangeCount`), which a receiver reads too.
  @Test func theReportCountsTheRecordsDeltasHold() throws {
    let report = Simulation.run(SimulationConfiguration(scenario: .offlineDefaults, seed: 1))
    #expect(report.holds, "\(report.text)")
    #expect(report.deltaRecords > 0)
    #expect(
      report.deltaRecords < report.deltas * 7,
      "\(report.deltaRecords) records in \(report.deltas) deltas")
    let object = try JSONSerialization.jsonObject(with: Data(report.json)) as? [String: Any]
    let messages = object?["messages"] as? [String: Any]
    #expect(messages?["delta_records"] as? Int == report.deltaRecords)
    #expect(report.deltaContextRanges > 0)
    #expect(
      report.text.contains(
        "deltas holding \(report.deltaRecords) records and \(report.deltaContextRanges) context ranges"
      ))
    #expect(messages?["delta_context_ranges"] as? Int == report.deltaContextRanges)
  }

  /// Without announcements (`--full-states`), a relaunched device's first message to each peer
  /// is its full state; the peer answers with what the device lacks, not with its own full
  /// state (ADR 0041). With devices crashing five times as often as by default, seed 1 sends
  /// 844 deltas and 267 full states; with every such answer a full state, 703 and 450.
  @Test func aRelaunchedDeviceIsAnsweredWithADelta() {
    var configuration = Self.shortRun(seed: 1, steps: 3_000)
    configuration.crashRate = 0.02
    configuration.announcesVersions = false
    Self.expectDeltas(outnumberingFullStatesBy: 2.5, in: configuration)
  }

  /// Sessions that announce (the default) open with their version, and are answered with what
  /// they lack: with no hostile peer, whose ignored acknowledgments are the one reason left
  /// for a full state, a run crashing five times as often as by default sends none
  /// (ADR 0043).
  @Test func sessionsThatAnnounceSendNoFullState() {
    var configuration = Self.shortRun(seed: 1, steps: 3_000)
    configuration.crashRate = 0.02
    let report = Simulation.run(configuration)
    #expect(report.holds, "\(report.text)")
    #expect(report.fullStates == 0 && report.announcements > 0, "\(report.text)")
  }

  /// A peer whose acknowledgment the change log no longer reaches is sent what this device
  /// holds beyond its state at that number, not the whole state (ADR 0042). With logs that
  /// keep at least 16 keys, seed 1 sends 1,035 deltas and 92 full states; with every such
  /// message a full state, 874 and 253.
  @Test func aPeerBehindTheChangeLogIsSentADelta() {
    var configuration = Self.shortRun(seed: 1, steps: 3_000)
    configuration.changeLogBudget = 16
    Self.expectDeltas(outnumberingFullStatesBy: 6, in: configuration)
  }

  /// A run's report names every option it ran with, the log budget too, so that it can be run
  /// again from the report; a run without one reports as before.
  @Test func theReportNamesTheLogBudget() throws {
    var configuration = Self.shortRun(seed: 1, steps: 50)
    let plain = Simulation.run(configuration)
    configuration.changeLogBudget = 16
    let report = Simulation.run(configuration)
    #expect(report.text.contains("  change logs: at least 16 keys each"))
    #expect(!plain.text.contains("change logs"))
    let object = try JSONSerialization.jsonObject(with: Data(report.json)) as? [String: Any]
    let plainObject = try JSONSerialization.jsonObject(with: Data(plain.json)) as? [String: Any]
    let named = object?["configuration"] as? [String: Any]
    #expect(named?["log_budget"] as? Int == 16)
    #expect((plainObject?["configuration"] as? [String: Any])?["log_budget"] == nil)
  }

  /// Runs `configuration`: every invariant must hold, and the deltas sent must outnumber the
  /// full states by more than `factor`.
  static func expectDeltas(
    outnumberingFullStatesBy factor: Double, in configuration: SimulationConfiguration
  ) {
    let report = Simulation.run(configuration)
    #expect(report.holds, "\(report.text)")
    #expect(
      Double(report.deltas) > factor * Double(report.fullStates),
      "\(report.deltas) deltas, \(report.fullStates) full states")
  }

  /// Seeds for the mixed runs: 4 by default, `FORAGER_SIMULATION_SEEDS=<n>` for more.
  static let seeds: [UInt64] = Array(
    1...UInt64(
      ProcessInfo.processInfo.environment["FORAGER_SIMULATION_SEEDS"].flatMap(Int.init) ?? 4))

  @Test(arguments: seeds)
  func aMixedHouseholdRunKeepsEveryInvariant(seed: UInt64) {
    var configuration = Self.shortRun(seed: seed)
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

/// The hostile peer: forged claims, acknowledgments, `through` and `since`, damaged and
/// replayed messages, unsound states; in the folder, cut and damaged journals, links and FIFOs
/// at devices' names, failing disks. Every act is played, and every honest device still has
/// every write it flushed.
@Suite struct HostileSimulationTests {
  /// The rate went from 0.03 to 0.04 with the eighth act (unsound states), which took its
  /// share of the draws: at 0.03, none of seed 1's eleven forged claims was one past what any
  /// device writes, so none was refused.
  @Test(arguments: SimulationTests.seeds.prefix(2))
  func messagesSurviveTheHostilePeer(seed: UInt64) {
    let report = Self.run(seed: seed, steps: 2_500, transport: .messages, hostileRate: 0.04)
    let defences = report.defences
    #expect(defences.refusedUnreadable > 0 && defences.refusedSkippingDeltas > 0)
    #expect(defences.ignoredAcknowledgments > 0 && defences.refusedForgedClaims > 0)
    #expect(defences.reissuedRecords > 0)
    #expect(defences.refusedUnsoundStates == report.hostileActs["unsound state"])
  }

  @Test func theFolderSurvivesTheHostilePeer() {
    let report = Self.run(seed: 2, steps: 600, transport: .folder, hostileRate: 0.05)
    let defences = report.defences
    #expect(defences.damagedJournals > 0 && defences.failedPublications > 0)
    #expect(defences.refusedForgedClaims > 0)
    #expect(report.folderSyncs > 0 && report.messagesSent == 0)
    // The same run again is the same, byte for byte: real files and all.
    #expect(Simulation.run(report.configuration).text == report.text)
  }

  /// Short folder runs where the hostile peer acts every ten steps, so that the damage it does
  /// late meets the final anti-entropy, not a snapshot that happens to heal it. Seeds 10 and 30
  /// are the counterexamples of two bugs it found, each leaving the household unequal after
  /// every round of anti-entropy: a publication that started over after a disk fault numbered
  /// its snapshot as the one before, so readers took it for the one they held (seed 10), and a
  /// device kept appending lines beside a link a peer left at its snapshot's name (seed 30).
  /// Seed 74 found the checker wrong: two default categories moved to one key offline show
  /// either one's sort order, both stamped at genesis, and the checker wanted its own.
  @Test(arguments: [10, 30, 74] + SimulationTests.seeds.prefix(3))
  func aFolderUnderHeavyHostilityConverges(seed: UInt64) {
    let report = Simulation.run(Self.heavyFolderRun(seed: seed))
    #expect(report.holds, "\(report.text)")
    #expect(report.hostileActs.values.reduce(0, +) >= 10)
  }

  /// Seed 40 found the hostile peer out of bounds: a forged state without the categories
  /// holding the claimed incarnation's writes also lacked another device's write under one of
  /// those keys, a forged removal of it that no check can tell from a person's (out of reach
  /// without signatures, docs/security.md). The forged state now drops the claimed writes only.
  @Test func messagesUnderHeavyHostilityKeepEveryInvariant() {
    var configuration = SimulationTests.shortRun(seed: 40, steps: 400)
    configuration.crashRate = 0.01
    configuration.hostileRate = 0.1
    let report = Simulation.run(configuration)
    #expect(report.holds, "\(report.text)")
    #expect(report.defences.reissuedRecords > 0)
    #expect(report.hostileActs["forged version", default: 0] > 0)
    #expect(report.defences.ignoredVersions > 0)
  }

  /// Devices that save through real files: crashes stop their saves part-way and the hostile
  /// peer's disk faults stop their writes, and each reopens its file with the household it
  /// last saved (a check the restart makes). Seed 1 reaches each event (seed 2 did, until the
  /// hostile peer learned to forge versions and drew differently).
  @Test func devicesOnRealFilesSurviveFailingDisksAndCrashes() {
    let report = Simulation.run(Self.filesRun(seed: 1))
    #expect(report.holds, "\(report.text)")
    #expect(report.defences.failedSaves > 0 && report.crashesDuringSave > 0)
    #expect(report.restoredFromBackup > 0)
  }

  static func filesRun(seed: UInt64) -> SimulationConfiguration {
    var configuration = SimulationTests.shortRun(seed: seed, steps: 800)
    configuration.storage = .files
    configuration.crashRate = 0.02
    configuration.hostileRate = 0.2
    return configuration
  }

  static func heavyFolderRun(seed: UInt64) -> SimulationConfiguration {
    var configuration = SimulationConfiguration(seed: seed)
    configuration.steps = 300
    configuration.partitions = 0
    configuration.crashRate = 0
    configuration.transport = .folder
    configuration.hostileRate = 0.1
    return configuration
  }

  /// A run that must hold and play every act against its transport and storage.
  static func run(
    seed: UInt64, steps: Int, transport: SimulationTransport, storage: SimulationStorage = .memory,
    hostileRate: Double
  ) -> SimulationReport {
    var configuration = SimulationTests.shortRun(seed: seed, steps: steps)
    configuration.transport = transport
    configuration.storage = storage
    configuration.hostileRate = hostileRate
    let report = Simulation.run(configuration)
    #expect(report.holds, "\(report.text)")
    for act in HostileAct.acts(for: transport, storage: configuration.storage) {
      #expect(report.hostileActs[act.rawValue, default: 0] > 0, "\(act.rawValue) never played")
    }
    return report
  }
}
