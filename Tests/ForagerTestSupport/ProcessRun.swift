import Foundation

#if RUNS_PROCESSES
  /// A built executable run to its end, as a person runs it: what it printed and its exit status.
  public struct ProcessRun: Sendable {
    public let status: Int32
    public let output: String
    public let errors: String

    /// Runs `executable` (a product of this package, see ``BuiltProducts``) with `arguments`.
    public init(_ executable: String, _ arguments: [String]) throws {
      let process = Process()
      process.executableURL = BuiltProducts.executable(executable)
      process.arguments = arguments
      let output = Pipe()
      let errors = Pipe()
      process.standardOutput = output
      process.standardError = errors
      try process.run()
      let outputData = output.fileHandleForReading.readDataToEndOfFile()
      let errorData = errors.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      status = process.terminationStatus
      self.output = String(decoding: outputData, as: UTF8.self)
      self.errors = String(decoding: errorData, as: UTF8.self)
    }
  }
#endif
