import ForagerSimulation
import Foundation

// The command-line front of ForagerSimulation: parse, run, print, exit 0/1/2.

func write(_ text: String, to handle: FileHandle) {
  handle.write(Data(text.utf8))
}

let command: SimulationCommand
do {
  command = try SimulationCommand(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
  write("forager-sim: \(error)\n", to: .standardError)
  exit(2)
}
if command.showHelp {
  write(SimulationCommand.help + "\n", to: .standardOutput)
  exit(0)
}

HeapSettings.keepHeapCompact()
let configuration = command.configuration
let showsProgress = configuration.steps >= 20_000
// The command owns its process, so the second core checks states while the run goes on.
let report = Simulation.run(configuration, cores: .two) { done, total in
  guard showsProgress else { return }
  write("forager-sim: step \(done) of \(total)\n", to: .standardError)
}
write(report.text, to: .standardOutput)
if let path = command.jsonPath {
  do {
    try Data(report.json).write(to: URL(fileURLWithPath: path))
  } catch {
    write("forager-sim: cannot write \(path): \(error.localizedDescription)\n", to: .standardError)
    exit(2)
  }
}
exit(report.holds ? 0 : 1)
