internal import CommandTable
import ForagerSync

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

  /// Parses arguments (without the program name) against the table of its options. Options take their value
  /// as the next argument or after `=`; the scenario's defaults apply first, whatever the
  /// options' order.
  public init(arguments: [String]) throws(UsageError) {
    let parsed: ParsedCommand
    do {
      switch try Self.table.parse(arguments) {
      case .help:
        configuration = SimulationConfiguration()
        showHelp = true
        return
      case .run(let command):
        parsed = command
      }
    } catch {
      throw UsageError(message: "\(error.message); see forager-sim --help")
    }
    var scenario = Scenario.household
    if let name = parsed.value("--scenario") {
      guard let named = Scenario(rawValue: name) else {
        throw UsageError(
          message:
            "unknown scenario \(name.debugDescription); one of: \(Scenario.allCases.map(\.rawValue).joined(separator: ", "))"
        )
      }
      scenario = named
    }
    configuration = SimulationConfiguration(scenario: scenario)
    configuration.baseline = parsed.flag("--baseline")
    configuration.announcesVersions = !parsed.flag("--full-states")
    jsonPath = parsed.value("--json")
    func read<Value>(
      _ name: String, into field: WritableKeyPath<SimulationConfiguration, Value>,
      _ convert: (String, String) throws(UsageError) -> Value
    ) throws(UsageError) {
      if let text = parsed.value(name) { configuration[keyPath: field] = try convert(text, name) }
    }
    try read("--seed", into: \.seed, Self.unsigned)
    try read("--households", into: \.households, Self.count)
    try read("--devices", into: \.devices, Self.count)
    try read("--steps", into: \.steps, Self.count)
    try read("--stop-after", into: \.stopAfter, Self.count)
    try read("--partitions", into: \.partitions, Self.count)
    try read("--log-budget", into: \.changeLogBudget, Self.count)
    try read("--drop", into: \.dropRate, Self.rate)
    try read("--duplicate", into: \.duplicateRate, Self.rate)
    try read("--reorder", into: \.reorderRate, Self.rate)
    try read("--crash-rate", into: \.crashRate, Self.rate)
    try read("--amnesia", into: \.amnesiaRate, Self.rate)
    try read("--clock-skew", into: \.clockSkewMilliseconds, Self.duration)
    try read("--hostile", into: \.hostileRate, Self.rate)
    try read("--transport", into: \.transport, Self.choice)
    try read("--storage", into: \.storage, Self.choice)
    if let name = parsed.value("--fault") {
      guard let fault = SimulationFault(rawValue: name) else {
        throw UsageError(
          message:
            "unknown fault \(name.debugDescription); one of: \(SimulationFault.allCases.map(\.rawValue).joined(separator: ", "))"
        )
      }
      configuration.fault = fault
    }
    if let problem = configuration.problem { throw UsageError(message: problem) }
  }

  /// The options, their help and defaults (the household scenario's).
  static var table: CommandTable {
    let defaults = SimulationConfiguration()
    let scenarios = Scenario.allCases.map { scenario in
      "  " + scenario.rawValue + String(repeating: " ", count: max(22 - scenario.rawValue.count, 1))
        + scenario.summary
    }
    return CommandTable(
      program: "forager-sim",
      summary: """
        simulates households of devices syncing through a faulty network, with
        crashes, restores from old backups and skewed clocks; then heals the network and checks
        that every replica agrees and nothing acknowledged was lost.
        """,
      commands: [
        Command(
          nil,
          options: [
            .value("--scenario", placeholder: "name", help: "what to run (household)"),
            .value(
              "--seed", placeholder: "n",
              help: "drives every random choice (\(defaults.seed)); same seed, same output"),
            .value("--households", placeholder: "n", help: "households (\(defaults.households))"),
            .value(
              "--devices", placeholder: "n",
              help: "devices in all, at least 2 per household (\(defaults.devices))"),
            .value(
              "--steps", placeholder: "n",
              help: "simulated seconds; one device acts each (\(defaults.steps))"),
            .value(
              "--drop", placeholder: "p",
              help: "probability a message is lost (\(defaults.dropRate))"),
            .value(
              "--duplicate", placeholder: "p",
              help: "probability a message arrives twice (\(defaults.duplicateRate))"),
            .value(
              "--reorder", placeholder: "p",
              help: "probability a message is held back behind later ones (\(defaults.reorderRate))"
            ),
            .value(
              "--partitions", placeholder: "n",
              help: "airplane-mode partitions during the run (\(defaults.partitions))"),
            .value(
              "--log-budget", placeholder: "n",
              help:
                "fewest keys each device's change log keeps (the library's, \(ChangeLog.defaultMinimumBudget))"
            ),
            .value(
              "--crash-rate", placeholder: "p",
              help: "probability per step that a device crashes (\(defaults.crashRate))"),
            .value(
              "--amnesia", placeholder: "p",
              help: "share of restarts from an old backup (\(defaults.amnesiaRate))"),
            .value(
              "--clock-skew", placeholder: "d",
              help:
                "largest clock error, e.g. 90s, 5m, 2h (\(SimulationReport.duration(defaults.clockSkewMilliseconds)))"
            ),
            .value(
              "--transport", placeholder: "name",
              help:
                "how devices sync: \(SimulationTransport.allCases.map(\.rawValue).joined(separator: " or ")) (\(defaults.transport.rawValue))"
            ),
            .value(
              "--storage", placeholder: "name",
              help:
                "where devices keep their replicas: \(SimulationStorage.allCases.map(\.rawValue).joined(separator: " or ")) (\(defaults.storage.rawValue))"
            ),
            .value(
              "--hostile", placeholder: "p",
              help:
                "probability per step that a hostile peer attacks: forged claims and messages, damaged folder files, failing disks (\(defaults.hostileRate))"
            ),
            .value(
              "--fault", placeholder: "name",
              help:
                "a deliberate bug, to watch the checker fail: \(SimulationFault.allCases.map(\.rawValue).joined(separator: ", "))"
            ),
            .flag("--baseline", help: "also run the old design (UUID records, last writer wins)"),
            .flag(
              "--full-states",
              help: "sessions open with the whole state, as before format 4, not the version"),
            .value("--json", placeholder: "file", help: "also write the report as JSON"),
            .value(
              "--stop-after", placeholder: "n",
              help: "stop after n of the steps (to replay a failing prefix)"),
          ],
          summary: "simulate, then check every invariant",
          details: "scenarios:\n" + scenarios.joined(separator: "\n"))
      ],
      footer: "exit status: 0 when every invariant holds, 1 when one fails, 2 for bad arguments.")
  }

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

  private static func choice<Choice: RawRepresentable & CaseIterable>(
    _ text: String, _ flag: String
  ) throws(UsageError) -> Choice where Choice.RawValue == String {
    guard let choice = Choice(rawValue: text) else {
      throw UsageError(
        message:
          "\(flag) takes one of \(Choice.allCases.map(\.rawValue).joined(separator: ", ")), not \(text.debugDescription)"
      )
    }
    return choice
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
  public static var help: String { table.help }
}
