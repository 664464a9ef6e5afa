/// Why a `forager-sync` command stopped: a message for the person, and the exit status (1 for a
/// refused or unsound input, 2 for a command-line mistake). Nothing was written.
public struct ToolError: Error, Equatable, Sendable, CustomStringConvertible {
  public let message: String
  public let status: Int32

  /// An input the command refuses (a damaged file, another household): status 1.
  static func refused(_ message: String) -> ToolError { ToolError(message: message, status: 1) }

  /// A command-line mistake: status 2.
  static func usage(_ message: String) -> ToolError { ToolError(message: message, status: 2) }

  public var description: String { message }
}
