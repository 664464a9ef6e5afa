import Foundation

/// `forager-sync`: inspect, verify, diff and merge replica files, and sync a household through
/// a shared folder. The executable only prints what ``run(_:)`` returns and exits with its
/// status, so every command is tested here and through the built binary.
public enum SyncTool {
  /// What a command printed and its exit status: 0 done (or sound), 1 refused or unsound,
  /// 2 a command-line mistake.
  public struct Result: Equatable, Sendable {
    public var output = ""
    public var errors = ""
    public var status: Int32 = 0
  }

  /// Runs a command line (without the program name).
  public static func run(_ arguments: [String]) -> Result {
    var result = Result()
    do {
      try dispatch(arguments, into: &result)
    } catch {
      result.errors += "forager-sync: \(error.message)\n"
      if error.status == 2 { result.errors += "see forager-sync --help\n" }
      result.status = error.status
    }
    // Names in files and folders are anyone's bytes: printed raw, control characters could
    // rewrite the terminal or hide a line.
    result.output = escapedForTerminal(result.output)
    result.errors = escapedForTerminal(result.errors)
    return result
  }

  /// `text` with every control character but line feed and tab, and every bidirectional
  /// formatting character, written as `\u{…}`.
  package static func escapedForTerminal(_ text: String) -> String {
    var result = ""
    result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
    for scalar in text.unicodeScalars {
      let value = scalar.value
      let isControl = value < 0x20 || (0x7F...0x9F).contains(value)
      let isBidi = (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
      if (isControl && scalar != "\n" && scalar != "\t") || isBidi {
        result += "\\u{" + String(value, radix: 16, uppercase: true) + "}"
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  static let commands: [(name: String, usage: String, summary: String)] = [
    ("inspect", "inspect <file> [--json]", "what a replica file holds"),
    (
      "verify", "verify <file>...",
      "check files: format, checksum, invariants (exit 1 if not sound)"
    ),
    ("diff", "diff <a> <b>", "what each of two replicas holds that the other lacks"),
    ("merge", "merge <a> <b> [<more>...] -o <out>", "the join of replicas of one household"),
    ("sync", "sync <folder> --replica <file> [--name <device>]", "sync through a shared folder"),
    ("example", "example <folder>", "write two devices' files of one household to try the rest"),
  ]

  public static var help: String {
    """
    forager-sync: look into, check, compare and merge ForagerSync replica files, and sync a
    household through any folder a file-sync service shares (iCloud Drive, Dropbox, Syncthing,
    a network share).

    usage: forager-sync <command> [arguments]   (forager-sync <command> --help for one)

    commands:
    \(commands.map { "  \($0.usage.padding(toLength: 50, withPad: " ", startingAt: 0))\($0.summary)" }.joined(separator: "\n"))

    exit status: 0 done, 1 refused or not sound (nothing written), 2 bad arguments.

    """
  }

  private static func dispatch(_ arguments: [String], into result: inout Result) throws(ToolError) {
    guard let command = arguments.first else { throw .usage("no command given") }
    if command == "--help" || command == "-h" || command == "help" {
      result.output = help
      return
    }
    guard let entry = commands.first(where: { $0.name == command }) else {
      throw .usage("unknown command \(command.debugDescription)")
    }
    var parsed = try Arguments(Array(arguments.dropFirst()))
    if parsed.help {
      result.output = "usage: forager-sync \(entry.usage)\n  \(entry.summary)\n"
      return
    }
    switch command {
    case "inspect":
      let json = parsed.flag("--json")
      let url = try parsed.one("a file")
      try parsed.finish()
      let inspection = Inspection(file: try ReplicaFile.read(url))
      result.output = json ? String(decoding: inspection.json, as: UTF8.self) : inspection.text
    case "verify":
      let files = parsed.positional.map { URL(fileURLWithPath: $0) }
      guard !files.isEmpty else { throw .usage("verify needs at least one file") }
      try parsed.finish(positionalUsed: true)
      for file in files {
        let problems = Verification.problems(of: file)
        if problems.isEmpty {
          result.output += "\(file.path): sound\n"
        } else {
          result.errors += problems.map { "\($0)\n" }.joined()
          result.status = 1
        }
      }
    case "diff":
      let first = try parsed.one("two files")
      let second = try parsed.one("two files")
      try parsed.finish()
      result.output = try ReplicaDiff(ReplicaFile.read(first), ReplicaFile.read(second)).text
    case "merge":
      guard let output = try parsed.value("-o", "--output") else {
        throw .usage("merge needs -o <out>")
      }
      let inputs = parsed.positional.map { URL(fileURLWithPath: $0) }
      guard inputs.count >= 2 else { throw .usage("merge needs at least two files") }
      try parsed.finish(positionalUsed: true)
      let merged = try Merging.merge(inputs, into: URL(fileURLWithPath: output))
      result.output =
        "merged \(inputs.count) replicas of household \(merged.householdID) into \(output) (\(merged.state.recordCount) records)\n"
    case "sync":
      guard let replica = try parsed.value("--replica") else {
        throw .usage("sync needs --replica <file>")
      }
      let name = try parsed.value("--name")
      let folder = try parsed.one("a folder")
      try parsed.finish()
      let outcome = try FolderSync.sync(
        folder: folder, replicaFile: URL(fileURLWithPath: replica), name: name)
      result.output =
        "merged \(outcome.merged.count) file\(outcome.merged.count == 1 ? "" : "s")"
        + (outcome.merged.isEmpty ? "" : " (\(outcome.merged.joined(separator: ", ")))")
        + "; wrote \(outcome.wrote)\n"
      result.errors += outcome.warnings.map { "forager-sync: warning: \($0)\n" }.joined()
    default:  // "example"
      let folder = try parsed.one("a folder")
      try parsed.finish()
      let files = try Example.write(into: folder)
      result.output =
        "wrote \(files.map(\.path).joined(separator: " and ")): one household, two devices that changed it offline\n"
    }
  }
}

/// A command's arguments: positionals, `--flag`s and `--option value`s.
struct Arguments {
  var positional: [String] = []
  var options: [String: String] = [:]
  var flags: Set<String> = []
  var help = false
  private var consumed = 0

  static let valueOptions: Set<String> = ["-o", "--output", "--replica", "--name"]
  static let flagOptions: Set<String> = ["--json"]

  init(_ arguments: [String]) throws(ToolError) {
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if argument == "--help" || argument == "-h" {
        help = true
      } else if Self.flagOptions.contains(argument) {
        flags.insert(argument)
      } else if Self.valueOptions.contains(argument) {
        guard index < arguments.count else { throw .usage("\(argument) needs a value") }
        options[argument] = arguments[index]
        index += 1
      } else if argument.hasPrefix("-") && argument.count > 1 {
        throw .usage("unknown option \(argument.debugDescription)")
      } else {
        positional.append(argument)
      }
    }
  }

  mutating func flag(_ name: String) -> Bool { flags.remove(name) != nil }

  mutating func value(_ names: String...) throws(ToolError) -> String? {
    var found: String?
    for name in names {
      if let value = options.removeValue(forKey: name) {
        guard found == nil else { throw .usage("\(names.joined(separator: " and ")) given twice") }
        found = value
      }
    }
    return found
  }

  /// The next positional argument, as a file URL.
  mutating func one(_ what: String) throws(ToolError) -> URL {
    guard consumed < positional.count else { throw .usage("expected \(what)") }
    consumed += 1
    return URL(fileURLWithPath: positional[consumed - 1])
  }

  /// Refuses arguments the command did not use.
  func finish(positionalUsed: Bool = false) throws(ToolError) {
    if !positionalUsed, consumed < positional.count {
      throw .usage("unexpected argument \(positional[consumed].debugDescription)")
    }
    if let option = options.keys.sorted().first {
      throw .usage("\(option) does not apply to this command")
    }
    if let flag = flags.sorted().first { throw .usage("\(flag) does not apply to this command") }
  }
}
