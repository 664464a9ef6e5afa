internal import CommandTable
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

  /// Every command, its arguments and options, and their help.
  static let table = CommandTable(
    program: "forager-sync",
    summary: """
      look into, check, compare and merge ForagerSync replica files, and sync a
      household through any folder a file-sync service shares (iCloud Drive, Dropbox, Syncthing,
      a network share).
      """,
    commands: [
      Command(
        "inspect", arguments: Arguments("<file>", expected: "a file", count: 1...1),
        options: [.flag("--json", help: "print the figures as one JSON object")],
        summary: "what a replica file holds"),
      Command(
        "verify", arguments: Arguments("<file>...", expected: "one file", count: 1...Int.max),
        summary: "check files: format, checksum, invariants (exit 1 if not sound)"),
      Command(
        "diff", arguments: Arguments("<a> <b>", expected: "two files", count: 2...2),
        summary: "what each of two replicas holds that the other lacks"),
      Command(
        "merge",
        arguments: Arguments("<a> <b> [<more>...]", expected: "two files", count: 2...Int.max),
        options: [
          .value(
            "-o", "--output", placeholder: "out", required: true,
            help: "the file to write the merged replica to (replaced whole, atomically)")
        ],
        summary: "the join of replicas of one household"),
      Command(
        "sync", arguments: Arguments("<folder>", expected: "a folder", count: 1...1),
        options: [
          .value(
            "--replica", placeholder: "file", required: true,
            help: "this device's replica file: merged with the folder's, then written to it"),
          .value(
            "--name", placeholder: "device",
            help: "this device's name for people (default: the replica file's)"),
        ],
        summary: "sync through a shared folder",
        details: """
          Reads every peer's file in the folder, merges the sound ones into the replica, saves
          it, and writes it to the folder as <id>.forager.json, by the device id kept beside
          the replica in <replica>.device (made on the first sync). A device writes only its
          own file; damaged, partial, placeholder and newer-format files are skipped with a
          warning. The file an earlier build wrote under the device's name is merged, then
          removed.
          """),
      Command(
        "example", arguments: Arguments("<folder>", expected: "a folder", count: 1...1),
        summary: "write two devices' files of one household to try the rest"),
    ],
    footer: "exit status: 0 done, 1 refused or not sound (nothing written), 2 bad arguments.")

  public static var help: String { table.help }

  private static func dispatch(_ arguments: [String], into result: inout Result) throws(ToolError) {
    let parsed: ParsedCommand
    do {
      switch try table.parse(arguments) {
      case .help(let text):
        result.output = text
        return
      case .run(let command):
        parsed = command
      }
    } catch {
      throw .usage(error.message)
    }
    let files = parsed.positional.map { URL(fileURLWithPath: $0) }
    switch parsed.name {
    case "inspect":
      let inspection = Inspection(file: try ReplicaFile.read(files[0]))
      result.output =
        parsed.flag("--json") ? String(decoding: inspection.json, as: UTF8.self) : inspection.text
    case "verify":
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
      result.output = try ReplicaDiff(ReplicaFile.read(files[0]), ReplicaFile.read(files[1])).text
    case "merge":
      let output = parsed.value("-o")!  // required: the table checked it is there
      let merged = try Merging.merge(files, into: URL(fileURLWithPath: output))
      result.output =
        "merged \(files.count) replicas of household \(merged.householdID) into \(output) (\(merged.state.recordCount) records)\n"
    case "sync":
      let outcome = try FolderSync.sync(
        // `--replica` is required: the table checked it is there.
        folder: files[0], replicaFile: URL(fileURLWithPath: parsed.value("--replica")!),
        name: parsed.value("--name"))
      result.output =
        "merged \(outcome.merged.count) file\(outcome.merged.count == 1 ? "" : "s")"
        + (outcome.merged.isEmpty ? "" : " (\(outcome.merged.joined(separator: ", ")))")
        + "; wrote \(outcome.wrote)"
        + (outcome.retired.map { "; removed \($0), this device's file of an earlier build" } ?? "")
        + "\n"
      result.errors += outcome.warnings.map { "forager-sync: warning: \($0)\n" }.joined()
    default:  // "example"
      let written = try Example.write(into: files[0])
      result.output =
        "wrote \(written.map(\.path).joined(separator: " and ")): one household, two devices that changed it offline\n"
    }
  }
}
