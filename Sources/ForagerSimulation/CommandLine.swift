/// The command line of `forager-sim`, parsed: what to run, or help to print.
public struct SimulationCommand: Equatable, Sendable {
  /// The run.
  public var configuration: SimulationConfiguration
  /// Where to write the JSON report, if anywhere.
  public var jsonPath: String?
  /// Whether to print help instead of running.
  public var showHelp = false

  /// A command-line mistake: the message says what is wrong; exit with status 2.
  public struct UsageError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
  }

  /// Parses arguments (without the program name). Flags take their value as the next
  /// argument or after `=`; the scenario's defaults apply first, whatever the flags' order.
  public init(arguments: [String]) throws(UsageError) {
    var values: [String: String] = [:]
    var baseline = false
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      switch argument {
      case "--help", "-h":
        showHelp = true
        continue
      case "--baseline":
        baseline = true
        continue
      default:
        break
      }
      var name = argument
      var value: String?
      if let equals = argument.firstIndex(of: "=") {
        name = String(argument[..<equals])
        value = String(argument[argument.index(after: equals)...])
      }
      guard Self.valueFlags.contains(name) else {
        throw UsageError(message: "unknown argument \(argument.debugDescription); see --help")
      }
      if value == nil {
        guard index < arguments.count else { throw UsageError(message: "\(name) needs a value") }
        value = arguments[index]
        index += 1
      }
      values[name] = value
    }
    var scenario = Scenario.household
    if let name = values["--scenario"] {
      guard let named = Scenario(rawValue: name) else {
        throw UsageError(
          message:
            "unknown scenario \(name.debugDescription); one of: \(Scenario.allCases.map(\.rawValue).joined(separator: ", "))"
        )
      }
      scenario = named
    }
    configuration = SimulationConfiguration(scenario: scenario)
    configuration.baseline = baseline
    jsonPath = values["--json"]
    if let text = values["--seed"] { configuration.seed = try Self.unsigned(text, "--seed") }
    if let text = values["--households"] {
      configuration.households = try Self.count(text, "--households")
    }
    if let text = values["--devices"] { configuration.devices = try Self.count(text, "--devices") }
    if let text = values["--steps"] { configuration.steps = try Self.count(text, "--steps") }
    if let text = values["--stop-after"] {
      configuration.stopAfter = try Self.count(text, "--stop-after")
    }
    if let text = values["--partitions"] {
      configuration.partitions = try Self.count(text, "--partitions")
    }
    if let text = values["--drop"] { configuration.dropRate = try Self.rate(text, "--drop") }
    if let text = values["--duplicate"] {
      configuration.duplicateRate = try Self.rate(text, "--duplicate")
    }
    if let text = values["--reorder"] {
      configuration.reorderRate = try Self.rate(text, "--reorder")
    }
    if let text = values["--crash-rate"] {
      configuration.crashRate = try Self.rate(text, "--crash-rate")
    }
    if let text = values["--amnesia"] {
      configuration.amnesiaRate = try Self.rate(text, "--amnesia")
    }
    if let text = values["--clock-skew"] {
      configuration.clockSkewMilliseconds = try Self.duration(text, "--clock-skew")
    }
    if !showHelp, let problem = configuration.problem { throw UsageError(message: problem) }
  }

  static let valueFlags: Set<String> = [
    "--seed", "--households", "--devices", "--steps", "--stop-after", "--drop", "--duplicate",
    "--reorder", "--partitions", "--crash-rate", "--amnesia", "--clock-skew", "--json",
    "--scenario",
  ]

  private static func unsigned(_ text: String, _ flag: String) throws(UsageError) -> UInt64 {
    guard let value = UInt64(text) else {
      throw UsageError(message: "\(flag) takes a whole number from 0, not \(text.debugDescription)")
    }
    return value
  }

  private static func count(_ text: String, _ flag: String) throws(UsageError) -> Int {
    guard let value = Int(text), value >= 0 else {
      throw UsageError(message: "\(flag) takes a whole number from 0, not \(text.debugDescription)")
    }
    return value
  }

  private static func rate(_ text: String, _ flag: String) throws(UsageError) -> Double {
    guard let value = Double(text), (0...1).contains(value) else {
      throw UsageError(
        message: "\(flag) takes a probability from 0 to 1, not \(text.debugDescription)")
    }
    return value
  }

  /// Milliseconds, or a number with a unit: `ms`, `s`, `m`, `h`, `d`.
  private static func duration(_ text: String, _ flag: String) throws(UsageError) -> UInt64 {
    let units: [(String, UInt64)] = [
      ("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000),
    ]
    for (unit, size) in units where text.hasSuffix(unit) {
      if let value = UInt64(text.dropLast(unit.count)), value <= UInt64.max / size {
        return value * size
      }
    }
    if let value = UInt64(text) { return value }
    throw UsageError(
      message:
        "\(flag) takes a duration such as 500ms, 90s, 5m, 2h or 3d, not \(text.debugDescription)")
  }

  /// The text of `--help`.
  public static var help: String {
    let defaults = SimulationConfiguration()
    return """
      forager-sim: simulates households of devices syncing through a faulty network, with
      crashes, restores from old backups and skewed clocks; then heals the network and checks
      that every replica agrees and nothing acknowledged was lost.

      usage: forager-sim [--scenario <name>] [options]

      scenarios:
      \(Scenario.allCases.map { "  \($0.rawValue.padding(toLength: 22, withPad: " ", startingAt: 0))\($0.summary)" }.joined(separator: "\n"))

      options (defaults are the household scenario's):
        --seed <n>            drives every random choice (\(defaults.seed)); same seed, same output
        --households <n>      households (\(defaults.households))
        --devices <n>         devices in all, at least 2 per household (\(defaults.devices))
        --steps <n>           simulated seconds; one device acts each (\(defaults.steps))
        --drop <p>            probability a message is lost (\(defaults.dropRate))
        --duplicate <p>       probability a message arrives twice (\(defaults.duplicateRate))
        --reorder <p>         probability a message is held back behind later ones (\(defaults.reorderRate))
        --partitions <n>      airplane-mode partitions during the run (\(defaults.partitions))
        --crash-rate <p>      probability per step that a device crashes (\(defaults.crashRate))
        --amnesia <p>         share of restarts from an old backup (\(defaults.amnesiaRate))
        --clock-skew <d>      largest clock error, e.g. 90s, 5m, 2h (\(SimulationReport.duration(defaults.clockSkewMilliseconds)))
        --baseline            also run the old design (UUID records, last writer wins)
        --json <file>         also write the report as JSON
        --stop-after <n>      stop after n of the steps (to replay a failing prefix)
        --help                this text

      exit status: 0 when every invariant holds, 1 when one fails, 2 for bad arguments.
      """
  }
}
