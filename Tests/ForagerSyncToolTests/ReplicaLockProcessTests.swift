import ForagerSync
import ForagerTestSupport
import Foundation
import SemanticCRDT
import Testing

// Runs processes: only where test code may start them (Package.swift).
#if RUNS_PROCESSES
  /// Two `forager-sync sync` processes on one `--replica` at the same time: before the lock, the
  /// later save overwrote the earlier one's acknowledged merge (38 of 40 trials lost an edit).
  /// Now one of them holds the replica's lock and the other refuses at once, having changed
  /// nothing; every sync that reported success keeps what it merged.
  @Suite("One process owns a replica file")
  struct ReplicaLockProcessTests {
    /// Trials, from `FORAGER_LOCK_TRIALS` (100 by default).
    static let trials =
      ProcessInfo.processInfo.environment["FORAGER_LOCK_TRIALS"].flatMap(Int.init) ?? 100

    struct Started {
      let process: Process
      let errors: Pipe
    }

    static func start(_ arguments: [String]) throws -> Started {
      let process = Process()
      process.executableURL = BuiltProducts.executable("forager-sync")
      process.arguments = arguments
      let errors = Pipe()
      process.standardOutput = FileHandle.nullDevice
      process.standardError = errors
      try process.run()
      return Started(process: process, errors: errors)
    }

    @Test func concurrentSyncsOfOneReplicaLoseNoAcknowledgedEdit() throws {
      let root = TemporaryFolder("forager-lock")
      let household = HouseholdID()
      let ana = MemberID()
      let replicaFile = root.file("phone.forager.json")
      try ReplicaStore.save(
        to: replicaFile,
        HouseholdReplica.create(
          household: household, owner: ana, ownerName: "Ana", replica: "phone"))
      var acknowledged: [String] = []
      var refusals = 0
      for trial in 0..<Self.trials {
        var runs: [(name: String, started: Started)] = []
        for side in ["a", "b"] {
          let folder = root.file("\(side)\(trial)")
          try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
          var peer = HouseholdReplica(
            joining: household, member: ana, replica: ReplicaID("peer-\(side)\(trial)"))
          let name = "Edit \(side)\(trial)"
          try peer.getOrCreateCategory(displayName: name)
          try ReplicaStore.save(to: folder.appendingPathComponent("peer.forager.json"), peer)
          runs.append(
            (name, try Self.start(["sync", folder.path, "--replica", replicaFile.path])))
        }
        for run in runs {
          let errors = String(
            decoding: run.started.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
          run.started.process.waitUntilExit()
          if run.started.process.terminationStatus == 0 {
            acknowledged.append(run.name)
          } else {
            refusals += 1
            #expect(errors.contains("in use by another process"), "trial \(trial): \(errors)")
          }
        }
      }
      let final = try #require(try ReplicaStore(fileURL: replicaFile).read())
      let device = HouseholdReplica(
        state: final.state, member: ana, clock: HybridClock(replica: "reader"))
      let missing = acknowledged.filter { device.category(named: $0) == nil }
      #expect(missing.isEmpty, "acknowledged but lost: \(missing)")
      #expect(
        acknowledged.count >= Self.trials, "\(acknowledged.count) acknowledged, \(refusals) refused"
      )
      print(
        "lock trials: \(Self.trials), \(acknowledged.count) syncs acknowledged, \(refusals) refused as locked, \(missing.count) lost"
      )
    }
  }
#endif
