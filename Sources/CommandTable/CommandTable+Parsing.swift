extension CommandTable {
  /// Checks `arguments` (without the program name) against the table.
  ///
  /// `--help` or `-h` anywhere, `help`, or `help <command>` ask for help: the program's, or the
  /// command's. An option's value follows it or its `=`. An argument that starts with `-` and
  /// is not an option of the command is refused, so a mistyped option is never taken for a
  /// file name; a lone `-` is a positional argument.
  public func parse(_ arguments: [String]) throws(CommandLineError) -> CommandRequest {
    var rest = arguments[...]
    let command: Command
    if hasSubcommands {
      guard let word = rest.popFirst() else { throw CommandLineError("no command given") }
      if word == "help" || word == "--help" || word == "-h" {
        guard let topic = rest.first else { return .help(help) }
        guard let named = commands.first(where: { $0.name == topic }) else {
          throw CommandLineError("unknown command \(topic.debugDescription)")
        }
        return .help(help(for: named))
      }
      guard let named = commands.first(where: { $0.name == word }) else {
        throw CommandLineError("unknown command \(word.debugDescription)")
      }
      command = named
    } else {
      command = commands[0]
    }
    if rest.contains(where: { $0 == "--help" || $0 == "-h" }) {
      return .help(help(for: command))
    }
    var positional: [String] = []
    var values: [String: String] = [:]
    while let argument = rest.popFirst() {
      guard argument.hasPrefix("-"), argument.count > 1 else {
        positional.append(argument)
        continue
      }
      var name = argument
      var attached: String?
      if let equals = argument.firstIndex(of: "=") {
        name = String(argument[..<equals])
        attached = String(argument[argument.index(after: equals)...])
      }
      guard let option = command.option(named: name) else {
        let elsewhere = commands.contains { $0.option(named: name) != nil }
        throw CommandLineError(
          elsewhere
            ? "\(name) does not apply to this command" : "unknown option \(name.debugDescription)")
      }
      guard values[option.name] == nil else {
        throw CommandLineError("\(option.names.joined(separator: " and ")) given twice")
      }
      if option.placeholder == nil {
        guard attached == nil else { throw CommandLineError("\(name) takes no value") }
        values[option.name] = ""
      } else if let attached {
        values[option.name] = attached
      } else {
        guard let value = rest.popFirst() else { throw CommandLineError("\(name) needs a value") }
        values[option.name] = value
      }
    }
    let needs = command.name.map { "\($0) needs" } ?? "needs"
    for option in command.options where option.isRequired && values[option.name] == nil {
      throw CommandLineError("\(needs) \(option.usage)")
    }
    let count = command.arguments.count
    if positional.count < count.lowerBound {
      throw CommandLineError(
        count.upperBound == count.lowerBound
          ? "expected \(command.arguments.expected)"
          : "\(needs) at least \(command.arguments.expected)")
    }
    if positional.count > count.upperBound {
      throw CommandLineError(
        "unexpected argument \(positional[count.upperBound].debugDescription)")
    }
    return .run(
      ParsedCommand(
        name: command.name, positional: positional, values: values,
        optionNames: Set(command.options.map(\.name))))
  }
}
