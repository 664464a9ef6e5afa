import CommandTable
import Testing

/// A table with the shapes the programs use: a command with a flag, one with a required option
/// and many arguments, one with an optional value.
let table = CommandTable(
  program: "tool", summary: "does things.",
  commands: [
    Command(
      "show", arguments: Arguments("<file>", expected: "a file", count: 1...1),
      options: [.flag("--json", help: "as JSON")], summary: "shows a file"),
    Command(
      "join", arguments: Arguments("<a> <b>...", expected: "two files", count: 2...Int.max),
      options: [.value("-o", "--output", placeholder: "out", required: true, help: "where")],
      summary: "joins files", details: "Joins them all."),
    Command(
      "send", options: [.value("--to", placeholder: "peer", help: "to whom")],
      summary: "sends"),
  ],
  footer: "exit status: 0.")

@Suite struct CommandTableTests {
  /// The command `arguments` run, or `nil` where they ask for help.
  func run(_ arguments: [String]) throws -> ParsedCommand {
    guard case .run(let command) = try table.parse(arguments) else {
      return try #require(nil as ParsedCommand?, "\(arguments) asked for help")
    }
    return command
  }

  func message(_ arguments: [String]) -> String? {
    do {
      _ = try table.parse(arguments)
      return nil
    } catch {
      return error.message
    }
  }

  func helpText(_ arguments: [String]) -> String? {
    guard case .help(let text) = try? table.parse(arguments) else { return nil }
    return text
  }

  @Test func acceptedLinesGiveArgumentsAndOptions() throws {
    let show = try run(["show", "a.json", "--json"])
    #expect(show.name == "show" && show.positional == ["a.json"] && show.flag("--json"))
    let join = try run(["join", "a", "--output=out", "b", "c"])
    #expect(join.positional == ["a", "b", "c"] && join.value("-o") == "out")
    let short = try run(["join", "-o", "out", "a", "-"])
    #expect(short.value("-o") == "out" && short.positional == ["a", "-"])
    let send = try run(["send"])
    #expect(send.value("--to") == nil && send.positional.isEmpty)
    #expect(try run(["send", "--to", "--json"]).value("--to") == "--json")
  }

  @Test(arguments: [
    ([], "no command given"),
    (["fetch"], "unknown command \"fetch\""),
    (["help", "fetch"], "unknown command \"fetch\""),
    (["show"], "expected a file"),
    (["show", "a", "b"], "unexpected argument \"b\""),
    (["show", "a", "--fast"], "unknown option \"--fast\""),
    (["show", "a", "--to", "x"], "--to does not apply to this command"),
    (["show", "a", "--json", "--json"], "--json given twice"),
    (["show", "a", "--json=yes"], "--json takes no value"),
    (["join", "a", "b"], "join needs -o <out>"),
    (["join", "a", "-o", "x", "--output", "y", "b"], "-o and --output given twice"),
    (["join", "a", "-o", "x"], "join needs at least two files"),
    (["send", "--to"], "--to needs a value"),
  ])
  func refusedLinesSayWhy(arguments: [String], expected: String) {
    #expect(message(arguments) == expected)
  }

  @Test func helpIsAskedForInEveryWay() throws {
    let general = try #require(helpText(["help"]))
    #expect(helpText(["--help"]) == general && helpText(["-h"]) == general)
    for command in ["show", "join", "send"] {
      #expect(general.contains("\n  \(command) "))
      let own = try #require(helpText(["help", command]))
      #expect(own.hasPrefix("usage: tool \(command)"))
      #expect(helpText([command, "--help"]) == own)
      #expect(helpText([command, "a", "-h", "--unknown"]) == own, "help wins over mistakes")
    }
  }

  @Test func helpShowsUsageDetailsAndEveryOption() throws {
    let join = try #require(helpText(["help", "join"]))
    #expect(join.hasPrefix("usage: tool join <a> <b>... -o <out>\n  joins files\n"))
    #expect(join.contains("\nJoins them all.\n"))
    #expect(join.contains("  -o <out>  where\n") && join.contains("  --help    this text\n"))
    #expect(join.hasSuffix("exit status: 0.\n"))
    let send = try #require(helpText(["help", "send"]))
    #expect(send.hasPrefix("usage: tool send [--to <peer>]\n"))
  }

  #if RUNS_PROCESSES && compiler(>=6.2)
    /// A program that asks for an option its table does not declare (a typo on one side) stops
    /// at once: otherwise the option would be accepted and silently never read. Exit tests
    /// need Swift 6.2 and a platform that starts processes.
    @Test func askingForAnUndeclaredOptionStops() async {
      await #expect(processExitsWith: .failure) {
        guard case .run(let show) = try table.parse(["show", "a"]) else { return }
        _ = show.value("--jsno")
      }
    }
  #endif

  @Test func aProgramWithoutCommandsTakesOptionsDirectly() throws {
    let single = CommandTable(
      program: "sim", summary: "simulates.",
      commands: [
        Command(nil, options: [.value("--seed", placeholder: "n", help: "seed")], summary: "run")
      ], footer: "exit status: 0.")
    guard case .run(let parsed) = try single.parse(["--seed=4"]) else {
      Issue.record("asked for help")
      return
    }
    #expect(parsed.name == nil && parsed.value("--seed") == "4")
    guard case .help(let text) = try single.parse(["--help"]) else {
      Issue.record("no help")
      return
    }
    #expect(text.hasPrefix("usage: sim [--seed <n>]\n\nsim: simulates.\n"))
    #expect(text.contains("  --seed <n>  seed\n"))
    #expect(throws: CommandLineError.self) { try single.parse(["run"]) }
  }
}
