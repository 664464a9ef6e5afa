// The child process of the crash tests, killed at random moments with SIGKILL.
//
// `StoreCrashWorker <file>`: opens the replica file and its journal with `ReplicaStore`, then
// takes a step and appends its delta (compacting often), forever, printing "saved <step>"
// after each append returns.
//
// `StoreCrashWorker <file> household-store`: opens the file with `HouseholdStore` (creating the
// household on the first launch), then adds category "Step <n>" after the last one there,
// forever, printing "edited <n>" after each edit and "flushed <n>" after every third edit's
// flush returns.
import ForagerSync
import ForagerTestSupport
import Foundation

/// Writes a line straight to the pipe (no buffer a kill could lose).
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let file = URL(fileURLWithPath: CommandLine.arguments[1])
do {
  if CommandLine.arguments.dropFirst(2).first == "household-store" {
    let store = try await HouseholdStore(
      fileURL: file, firstLaunch: .createHousehold(ownerName: "Crash"),
      compaction: CrashWorkload.compaction)
    guard var step = CrashWorkload.storeSteps(of: await store.replica.state) else {
      say("resumed from a state that no step produced")
      exit(3)
    }
    while true {
      step += 1
      try await store.edit { [step] in _ = try $0.getOrCreateCategory(displayName: "Step \(step)") }
      say("edited \(step)")
      if step % 3 == 0 {
        try await store.flush()
        say("flushed \(step)")
      }
    }
  } else {
    var store = ReplicaStore(fileURL: file, compaction: CrashWorkload.compaction)
    var replica = try store.open(household: CrashWorkload.household, member: CrashWorkload.member)
    guard var steps = CrashWorkload.steps(of: replica.state) else {
      say("resumed from a state that no step produced")
      exit(3)
    }
    while true {
      steps += 1
      CrashWorkload.apply(step: steps, to: &replica)
      try store.append(replica.takeLocalDelta()!, of: replica)
      say("saved \(steps)")
    }
  }
} catch {
  say("error: \(error)")
  exit(2)
}
