import CRDTTestSupport
import ForagerSync
import ForagerTestSupport
import Foundation
import SemanticCRDT
import SharedSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// Runs processes: only where test code may start them (Package.swift).
#if RUNS_PROCESSES
  /// Kills a process that writes a replica file with SIGKILL at random moments, and checks the
  /// file after every kill.
  ///
  /// `FORAGER_CRASH_KILLS` sets the number of kills of each test (default 20); `FORAGER_SEED`
  /// replays.
  @Suite struct StoreCrashTests {
    static let kills = Int(ProcessInfo.processInfo.environment["FORAGER_CRASH_KILLS"] ?? "") ?? 20

    /// A process appends each step's delta to the journal with `ReplicaStore`, compacting every
    /// few steps: after every kill (in an append, a snapshot, or between a snapshot and emptying
    /// the journal) the snapshot and journal open, and hold exactly steps 1 to n, each whole, with
    /// n the last step the process acknowledged saving or the one it was saving: no torn step, no
    /// lost one. A fresh file every 50 kills keeps a long run's files small.
    @Test(.timeLimit(.minutes(60)))
    func killedMidSaveLeavesAWholeFile() throws {
      let kills = Self.kills
      let seed = PropertyEnvironment.replaySeed ?? UInt64.random(in: 0...UInt64.max)
      var random = SplitMix64(seed: seed)
      var folder = TemporaryFolder("crash")
      var previous = 0
      var saved = 0
      for round in 0..<kills {
        if round % 50 == 0 {
          folder = TemporaryFolder("crash")
          previous = 0
        }
        let file = folder.file("replica.json")
        let lines = try Self.runAndKill(
          [file.path], afterMicroseconds: random.int(in: 30_000...250_000))
        try #require(
          !lines.contains { !$0.hasPrefix("saved ") },
          "seed \(seed), kill \(round): worker said \(lines)")
        let acknowledged = lines.last.flatMap { Int($0.dropFirst("saved ".count)) } ?? previous
        saved += lines.count

        let state: HouseholdState
        do {
          var store = ReplicaStore(fileURL: file)
          state = try store.open(household: CrashWorkload.household, member: CrashWorkload.member)
            .state
        } catch {
          Issue.record("seed \(seed), kill \(round): \(error)")
          return
        }
        guard let steps = CrashWorkload.steps(of: state) else {
          Issue.record("seed \(seed), kill \(round): the file does not hold whole steps 1 to n")
          return
        }
        #expect(
          steps == acknowledged || steps == acknowledged + 1,
          "seed \(seed), kill \(round): file holds step \(steps), last acknowledged \(acknowledged)"
        )
        previous = steps
      }
      #expect(saved > kills, "seed \(seed): the worker saved too rarely to test anything")
      // Kills in the middle of a snapshot leave temporary files; the next open removes them all,
      // and touches neither the snapshot nor the journal.
      let file = folder.file("replica.json")
      let before = (try Data(contentsOf: file), try Data(contentsOf: ReplicaJournal.url(of: file)))
      var store = ReplicaStore(fileURL: file)
      _ = try store.open(household: CrashWorkload.household, member: CrashWorkload.member)
      let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        .filter { $0 != "replica.json" && $0 != "replica.json.journal" }
      #expect(leftovers.isEmpty, "temporary files survive an open: \(leftovers)")
      #expect(try Data(contentsOf: file) == before.0)
      #expect(try Data(contentsOf: ReplicaJournal.url(of: file)) == before.1)
    }

    /// Kills a process that edits through a `HouseholdStore` and flushes every third edit: after
    /// every kill the file opens, its categories are "Step 1" to "Step n" with no gap (the saves
    /// wrote the edits in order), n is at least the last step the process saw flushed and at
    /// most one past the last it saw applied, and the next launch resumes from there, with the
    /// household the first launch created. A fresh file every 50 kills keeps a long run's files
    /// small.
    @Test(.timeLimit(.minutes(60)))
    func householdStoreKilledBetweenEditsKeepsEveryFlushedEdit() throws {
      let kills = Self.kills
      let seed = PropertyEnvironment.replaySeed ?? UInt64.random(in: 0...UInt64.max)
      var random = SplitMix64(seed: seed)
      var folder = TemporaryFolder("store-crash")
      var previous = 0
      var flushedTotal = 0
      var household: HouseholdID?
      for round in 0..<kills {
        if round % 50 == 0 {
          folder = TemporaryFolder("store-crash")
          (previous, household) = (0, nil)
        }
        let file = folder.file("household.json")
        let lines = try Self.runAndKill(
          [file.path, "household-store"], afterMicroseconds: random.int(in: 30_000...250_000))
        let context = "seed \(seed), kill \(round)"
        var edited = previous
        var flushed = previous
        for line in lines {
          let parts = line.split(separator: " ")
          guard parts.count == 2, let step = Int(parts[1]),
            ["edited", "flushed"].contains(parts[0])
          else {
            Issue.record("\(context): the worker said \(line)")
            return
          }
          if parts[0] == "edited" { edited = step } else { flushed = step }
        }
        guard let contents = try ReplicaStore(fileURL: file).read() else {
          // Killed before the first launch saved: nothing was acknowledged.
          #expect(lines.isEmpty, "\(context): no file after \(lines)")
          continue
        }
        if household == nil { household = contents.state.householdID }
        #expect(contents.state.householdID == household, "\(context): another household")
        var store = ReplicaStore(fileURL: file)
        let stored = try store.open(household: contents.state.householdID, member: contents.member)
        guard let steps = CrashWorkload.storeSteps(of: stored.state) else {
          Issue.record("\(context): the file's categories are not a run of steps")
          return
        }
        #expect(
          steps >= flushed && steps <= edited + 1,
          "\(context): the file holds step \(steps); flushed \(flushed), edited \(edited)")
        flushedTotal += max(0, flushed - previous)
        previous = steps
      }
      #expect(flushedTotal > kills, "seed \(seed): the worker flushed too rarely to test anything")
    }

    /// Runs the crash worker with `arguments`, kills it with SIGKILL after the given time, and
    /// returns the lines it printed.
    static func runAndKill(_ arguments: [String], afterMicroseconds delay: Int) throws
      -> [Substring]
    {
      let worker = BuiltProducts.executable("StoreCrashWorker")
      try #require(
        FileManager.default.isExecutableFile(atPath: worker.path), "no worker at \(worker.path)")
      let process = Process()
      process.executableURL = worker
      process.arguments = arguments
      // A worker that crashes on its own must fail the test, not hang it: Swift's backtracer,
      // which a crash starts, inherits the worker's descriptors, and killed mid-backtrace the
      // worker leaves it holding them, so Foundation never learns the worker ended (a run whose
      // stale build crashed the worker waited 17 minutes). Without it, the worker that printed
      // nothing fails the count of saves.
      process.environment = ProcessInfo.processInfo.environment.merging([
        "SWIFT_BACKTRACE": "enable=no"
      ]) { $1 }
      let output = Pipe()
      process.standardOutput = output
      try process.run()
      usleep(UInt32(delay))
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        .split(separator: "\n")
    }
  }
#endif
