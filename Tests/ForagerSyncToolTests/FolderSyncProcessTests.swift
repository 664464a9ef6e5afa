import ForagerSync
import ForagerSyncTool
import ForagerTestSupport
import Foundation
import SemanticCRDT
import Testing

// Runs processes: only where test code may start them (Package.swift).
#if RUNS_PROCESSES
  /// Several processes (not threads) edit their own replicas and sync through one folder at the
  /// same time, while the folder fills with what sync services leave behind. After a last round,
  /// every replica is equal and every acknowledged edit is there.
  ///
  /// `FORAGER_FOLDER_ROUNDS` sets the rounds per process (default 15), `FORAGER_FOLDER_DEVICES`
  /// the processes (default 3); `FORAGER_SEED` replays.
  @Suite struct FolderSyncProcessTests {
    @Test(.timeLimit(.minutes(5)))
    func concurrentDevicesConvergeThroughOneFolder() throws {
      let environment = ProcessInfo.processInfo.environment
      let rounds = environment["FORAGER_FOLDER_ROUNDS"].flatMap(Int.init) ?? 15
      let deviceCount = environment["FORAGER_FOLDER_DEVICES"].flatMap(Int.init) ?? 3
      let seed = environment["FORAGER_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...1 << 40)
      let worker = BuiltProducts.executable("FolderSyncWorker")
      try #require(FileManager.default.isExecutableFile(atPath: worker.path))
      let root = TemporaryFolder("folder-sync")
      let shared = root.file("shared")
      try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
      let household = UUID()
      let replicas = (0..<deviceCount).map { root.file("device-\($0 + 1).forager.json") }

      // What sync services leave behind, there from the start.
      try Data("{\"format\":2,\"checksum\":".utf8).write(
        to: shared.appendingPathComponent("junk.forager.json"))
      try Data("partial".utf8).write(
        to: shared.appendingPathComponent("device-9.forager.json.part"))
      try Data().write(to: shared.appendingPathComponent(".device-8.forager.json.icloud"))
      var strangerStore = ReplicaStore(fileURL: root.file("stranger.json"))
      var strangerReplica = try strangerStore.open(household: HouseholdID(), member: MemberID())
      try strangerReplica.getOrCreateCategory(displayName: "Not Ours")
      try ReplicaStore.save(
        to: shared.appendingPathComponent("stranger.forager.json"), strangerReplica)

      var processes: [(Process, Pipe)] = []
      for (index, replica) in replicas.enumerated() {
        let process = Process()
        process.executableURL = worker
        process.arguments = [
          shared.path, replica.path, household.uuidString, UUID().uuidString,
          String(seed &+ UInt64(index)), String(rounds),
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        processes.append((process, output))
      }
      var edits: [String] = []
      for (index, (process, output)) in processes.enumerated() {
        let lines = String(
          decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "seed \(seed): device \(index + 1) failed")
        edits += lines.split(separator: "\n").map(String.init)
        if index == 0 {
          // A sync service's conflicted copy of a device's file appears mid-run.
          let original = shared.appendingPathComponent("device-1.forager.json")
          if FileManager.default.fileExists(atPath: original.path) {
            try? FileManager.default.copyItem(
              at: original,
              to: shared.appendingPathComponent("device-1 (conflicted copy).forager.json"))
          }
        }
      }
      #expect(edits.count >= rounds * deviceCount, "seed \(seed): too few edits to test anything")

      // The last round: each device syncs twice, in turn.
      for _ in 0..<2 {
        for replica in replicas {
          let result = SyncTool.run(["sync", shared.path, "--replica", replica.path])
          #expect(result.status == 0, "seed \(seed): \(result.errors)")
          #expect(result.errors.contains("junk.forager.json"), "the damaged file is reported")
          #expect(result.errors.contains("stranger.forager.json: a replica of household"))
          #expect(result.errors.contains("a partial download"))
          #expect(result.errors.contains("a placeholder of a file not downloaded yet"))
        }
      }
      let states = try replicas.map { try #require(try ReplicaStore(fileURL: $0).read()).state }
      for (index, state) in states.enumerated().dropFirst() {
        #expect(state == states[0], "seed \(seed): device \(index + 1) differs from device 1")
      }
      let final = states[0]
      var uses: [String: UInt64] = [:]
      for edit in edits {
        if edit.hasPrefix("category ") {
          let key = CategoryKey(rawValue: String(edit.dropFirst("category ".count)))
          #expect(final.categories.contains(key), "seed \(seed): lost \(edit)")
        } else {
          uses[String(edit.dropFirst("use ".count)), default: 0] += 1
        }
      }
      for (key, count) in uses {
        let template = final.ingredients[IngredientKey(rawValue: key)]
        #expect(
          template?.usageCount == count,
          "seed \(seed): \(key) counts \(template?.usageCount ?? 0), made \(count)")
      }
      #expect(!final.categories.contains(CategoryKey(normalizing: "Not Ours")))
      #expect(final.invariantViolations().isEmpty)
    }
  }
#endif
