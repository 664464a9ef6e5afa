// The child process of the crash test: resumes from the replica file, then takes a step and
// saves, forever, printing "saved <step>" after each save returns, until it is killed.
import ForagerSync
import ForagerTestSupport
import Foundation

/// Writes a line straight to the pipe (no buffer a kill could lose).
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let file = URL(fileURLWithPath: CommandLine.arguments[1])
let store = ReplicaStore(fileURL: file)
do {
  let stored = try store.read()
  var steps = stored.map { CrashWorkload.steps(of: $0.state) } ?? 0
  var replica = CrashWorkload.replica(afterSteps: steps)
  if let stored, stored.state != replica.state {
    say("resumed from a state that no step produced")
    exit(3)
  }
  while true {
    steps += 1
    CrashWorkload.apply(step: steps, to: &replica)
    try store.save(replica)
    say("saved \(steps)")
  }
} catch {
  say("error: \(error)")
  exit(2)
}
