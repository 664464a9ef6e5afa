extension CommandTable {
  /// The program's help: what it does, its commands (or its only command's help), and the
  /// exit statuses.
  public var help: String {
    guard hasSubcommands else { return help(for: commands[0]) }
    let width = commands.map { usage(of: $0).count }.max()! + 2
    let lines = commands.map { "  \(padded(usage(of: $0), to: width))\($0.summary)" }
    return """
      \(program): \(summary)

      usage: \(program) <command> [arguments]   (\(program) help <command> for one)

      commands:
      \(lines.joined(separator: "\n"))

      \(footer)

      """
  }

  /// One command's help: its usage line, what it does, its details and its options.
  public func help(for command: Command) -> String {
    var text = "usage: \(program) \(usage(of: command))\n"
    text += hasSubcommands ? "  \(command.summary)\n" : "\n\(program): \(summary)\n"
    if let details = command.details { text += "\n\(details)\n" }
    let options = command.options + [.flag("--help", help: "this text")]
    let width = options.map(\.usage.count).max()! + 2
    text += "\noptions:\n"
    text += options.map { "  \(padded($0.usage, to: width))\($0.help)\n" }.joined()
    text += "\n\(footer)\n"
    return text
  }

  /// `inspect <file> [--json]`: the command's name, its arguments, its options (optional ones
  /// in brackets). A command with many options shows `[options]` for the optional ones.
  func usage(of command: Command) -> String {
    let optional = command.options.filter { !$0.isRequired }
    var parts = [command.name, command.arguments.usage.isEmpty ? nil : command.arguments.usage]
      .compactMap { $0 }
    parts += command.options.filter(\.isRequired).map(\.usage)
    parts += optional.count > 3 ? ["[options]"] : optional.map { "[\($0.usage)]" }
    return parts.joined(separator: " ")
  }

  private func padded(_ text: String, to width: Int) -> String {
    text + String(repeating: " ", count: max(width - text.count, 1))
  }
}
