/// A program's command line, declared as data: its commands, each with its arguments and
/// options and a line of help. ``parse(_:)`` checks a command line against it and the help
/// texts are written from it, so what a program accepts and what its help says cannot drift
/// apart.
///
/// A program with subcommands (`forager-sync inspect <file>`) lists named commands; a program
/// without (`forager-sim [options]`) lists one command whose name is `nil`.
public struct CommandTable: Sendable {
  /// The program's name, as a person types it.
  public let program: String
  /// What the program does: the first paragraph of its help.
  public let summary: String
  public let commands: [Command]
  /// The last paragraph of every help text (the exit statuses).
  public let footer: String

  public init(program: String, summary: String, commands: [Command], footer: String) {
    precondition(!commands.isEmpty, "a program has at least one command")
    precondition(
      commands.count == 1 || commands.allSatisfy { $0.name != nil },
      "a program with several commands names each")
    self.program = program
    self.summary = summary
    self.commands = commands
    self.footer = footer
  }

  /// Whether the program takes a command name first.
  var hasSubcommands: Bool { commands.first?.name != nil }
}

/// One command: what it takes and what it does.
public struct Command: Sendable {
  /// The word that selects it; `nil` for a program's only command.
  public let name: String?
  /// Its positional arguments.
  public let arguments: Arguments
  public let options: [Option]
  /// One line: what the command does.
  public let summary: String
  /// More help, shown by the command's own help between the usage and the options.
  public let details: String?

  public init(
    _ name: String?, arguments: Arguments = .none, options: [Option] = [], summary: String,
    details: String? = nil
  ) {
    self.name = name
    self.arguments = arguments
    self.options = options
    self.summary = summary
    self.details = details
  }

  /// The option one of whose names is `name`.
  func option(named name: String) -> Option? {
    options.first { $0.names.contains(name) }
  }
}

/// How many positional arguments a command takes, and how help and messages name them.
public struct Arguments: Sendable {
  /// As the usage line shows them: `<file>`, `<a> <b>`, `<file>...`.
  public let usage: String
  /// What is expected, for a message when too few are given: "a file", "two files".
  public let expected: String
  public let count: ClosedRange<Int>

  public init(_ usage: String, expected: String, count: ClosedRange<Int>) {
    self.usage = usage
    self.expected = expected
    self.count = count
  }

  /// No positional argument.
  public static let none = Arguments("", expected: "nothing", count: 0...0)
}

/// An option: a flag (`--json`) or one that takes a value (`--seed 7`, `--seed=7`).
public struct Option: Sendable {
  /// Its names; the first is the one ``ParsedCommand`` looks it up by and messages use.
  public let names: [String]
  /// What the value is called in help (`<file>`); `nil` for a flag.
  public let placeholder: String?
  /// Whether the command needs it.
  public let isRequired: Bool
  /// One line: what it does (with its default, where it has one).
  public let help: String

  /// A flag: present or not.
  public static func flag(_ names: String..., help: String) -> Option {
    Option(names: names, placeholder: nil, isRequired: false, help: help)
  }

  /// An option that takes a value, as the next argument or after `=`.
  public static func value(
    _ names: String..., placeholder: String, required: Bool = false, help: String
  ) -> Option {
    Option(names: names, placeholder: placeholder, isRequired: required, help: help)
  }

  var name: String { names[0] }

  /// `--seed <n>`, or `--json` for a flag.
  var usage: String { placeholder.map { "\(name) <\($0)>" } ?? name }
}

/// A command line the table does not accept: the message says what is wrong.
public struct CommandLineError: Error, Equatable, Sendable, CustomStringConvertible {
  public let message: String
  public var description: String { message }

  init(_ message: String) { self.message = message }
}

/// What a command line asks for: help to print, or a command to run.
public enum CommandRequest: Sendable {
  case help(String)
  case run(ParsedCommand)
}

/// A command line that the table accepts: every option known to its command, given once, the
/// required ones present, the right number of positional arguments.
public struct ParsedCommand: Sendable {
  /// The command's name (`nil` for a program's only command).
  public let name: String?
  /// The positional arguments, in order.
  public let positional: [String]
  /// Option values by the option's first name; flags map to the empty string.
  let values: [String: String]
  /// The first names of the command's options: the names a program may ask for.
  let optionNames: Set<String>

  /// Whether the flag was given.
  ///
  /// - Precondition: `name` is the first name of one of the command's options, so a program
  ///   that asks for a name its table does not declare stops at once instead of never seeing
  ///   the option.
  public func flag(_ name: String) -> Bool { given(name) != nil }

  /// The option's value, if given.
  ///
  /// - Precondition: as for ``flag(_:)``.
  public func value(_ name: String) -> String? { given(name) }

  private func given(_ name: String) -> String? {
    precondition(optionNames.contains(name), "\(name) is not an option of this command's table")
    return values[name]
  }
}
