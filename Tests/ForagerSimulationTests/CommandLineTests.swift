import ForagerSimulation
import ForagerTestSupport
import Foundation
import Testing

/// `forager-sim` as a person runs it: the built binary, its report, its exit status.
// Runs processes: only where test code may start them (Package.swift).
#if RUNS_PROCESSES
  @Suite struct ForagerSimBinaryTests {
    static func run(_ arguments: [String]) throws -> ProcessRun {
      try ProcessRun("forager-sim", arguments)
    }

    @Test func aSeededRunPrintsTheLibrarysReportAndExitsZero() throws {
      let run = try Self.run(["--seed", "3", "--steps", "400"])
      #expect(run.status == 0, "\(run.errors)")
      var configuration = SimulationConfiguration(seed: 3)
      configuration.steps = 400
      #expect(run.output == Simulation.run(configuration).text)
      #expect(run.output.hasPrefix("forager-sim: scenario household, seed 3\n"))
      let verdicts = run.output.split(separator: "\n").filter {
        $0.hasPrefix("  PASS") || $0.hasPrefix("  FAIL")
      }
      #expect(
        verdicts.count == 7 && verdicts.allSatisfy { $0.hasPrefix("  PASS") }, "\(run.output)")
      #expect(run.output.hasSuffix("result: every invariant holds\n"))
      #expect(try Self.run(["--seed", "3", "--steps", "400"]).output == run.output)
    }

    @Test func offlineDefaultsReportSevenAndTheBaselineFourteen() throws {
      let folder = TemporaryFolder("forager-sim")
      let json = folder.file("report.json")
      let run = try Self.run(["--scenario", "offline-defaults", "--baseline", "--json", json.path])
      #expect(run.status == 0, "\(run.errors)")
      #expect(run.output.contains("household 1: 2 devices; 7 categories on every device;"))
      #expect(run.output.contains("14 categories for 7 names (7 duplicates)"))
      let object = try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any]
      #expect(object?["holds"] as? Bool == true)
      let baseline = object?["baseline"] as? [[String: Any]]
      #expect(baseline?.first?["categories"] as? Int == 14)
      let households = object?["households"] as? [[String: Any]]
      #expect(households?.first?["categories_per_device"] as? [Int] == [7, 7])
    }

    /// A clock days off is refused by its peers by design (the 24-hour bound), so its household
    /// cannot converge: the run says so and exits 1.
    @Test func aClockDaysOffMakesTheRunFailWithStatusOne() throws {
      let run = try Self.run(["--seed", "2", "--steps", "300", "--clock-skew", "3d"])
      #expect(run.status == 1, "\(run.output)")
      #expect(run.output.contains("  FAIL  replicas of a household are equal"))
      #expect(!run.output.contains("refused     0 states of another household, 0 for clock skew"))
      #expect(run.output.contains("FAILED with seed 2"))
    }

    @Test(arguments: [
      (["--drop", "2"], "--drop takes a probability from 0 to 1, not \"2\""),
      (["--scenario", "picnic"], "unknown scenario \"picnic\"; one of: offline-defaults"),
      (["--devices", "1"], "--devices must be at least 2 per household"),
      (["--seed"], "--seed needs a value"),
      (["--colour"], "unknown option \"--colour\"; see forager-sim --help"),
      (["--clock-skew", "soon"], "--clock-skew takes a duration such as"),
      (["--storage", "tape"], "--storage takes one of memory, files, not \"tape\""),
      (["--transport", "pigeon"], "--transport takes one of messages, folder, not \"pigeon\""),
      (["--log-budget", "0"], "--log-budget must be at least 1"),
      (["--log-budget", "-3"], "--log-budget takes a whole number from 0"),
    ])
    func badArgumentsExitTwoWithAMessage(arguments: [String], message: String) throws {
      let run = try Self.run(arguments)
      #expect(run.status == 2)
      #expect(run.output.isEmpty)
      #expect(
        run.errors.hasPrefix("forager-sim: ") && run.errors.contains(message), "\(run.errors)")
    }

    @Test func helpNamesEveryFlagAndScenario() throws {
      let run = try Self.run(["--help"])
      #expect(run.status == 0)
      for flag in [
        "--seed", "--households", "--devices", "--steps", "--drop", "--duplicate", "--reorder",
        "--partitions", "--log-budget", "--crash-rate", "--clock-skew", "--baseline", "--json",
        "--scenario",
        "--help",
      ] {
        #expect(run.output.contains(flag), "help lacks \(flag)")
      }
      for scenario in Scenario.allCases { #expect(run.output.contains(scenario.rawValue)) }
    }
  }
#endif

@Suite struct SimulationCommandTests {
  @Test func theScenarioDefaultsApplyFirstWhateverTheOrder() throws {
    let command = try SimulationCommand(arguments: [
      "--devices", "4", "--scenario=offline-defaults", "--seed=9", "--clock-skew", "90s",
    ])
    #expect(command.configuration.scenario == .offlineDefaults)
    #expect(command.configuration.devices == 4)
    #expect(
      command.configuration.steps == SimulationConfiguration(scenario: .offlineDefaults).steps)
    #expect(command.configuration.seed == 9)
    #expect(command.configuration.clockSkewMilliseconds == 90_000)
  }

  @Test func durationsTakeUnits() throws {
    let cases: [(String, UInt64)] = [
      ("250", 250), ("250ms", 250), ("90s", 90_000), ("5m", 300_000), ("2h", 7_200_000),
      ("3d", 259_200_000),
    ]
    for (text, milliseconds) in cases {
      let command = try SimulationCommand(arguments: ["--clock-skew", text])
      #expect(command.configuration.clockSkewMilliseconds == milliseconds, "\(text)")
    }
  }
}
