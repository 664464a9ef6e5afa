import ForagerSync
import Foundation
import SemanticCRDT
import SemanticCRDTJSON

#if canImport(Glibc)
  import Glibc
#endif

/// The household at n categories: merging two replicas, receiving a peer's encoded state,
/// lookups and get-or-create per operation, deltas after 100 changes, and memory per record.
enum HouseholdBenchmarks {
  /// Operations per timed run of the per-operation rows.
  static let operations = 1_000

  /// A replica holding categories `range`, created by `replica`.
  static func categories(_ range: Range<Int>, by replica: ReplicaID) -> HouseholdReplica {
    var household = Households.replica(replica)
    for index in range {
      _ = try! household.getOrCreateCategory(displayName: "Category \(index)")
    }
    return household
  }

  /// The second replica of `household.merge`: categories n/2..<3n/2, and a concurrent rename of
  /// a tenth of the shared ones.
  static func peer(_ n: Int) -> HouseholdReplica {
    var peer = categories(n / 2..<n + n / 2, by: "bench-tablet")
    for index in stride(from: n / 2, to: n, by: 10) {
      try! peer.renameCategory(
        CategoryKey(normalizing: "Category \(index)"), to: "CATEGORY \(index)")
    }
    return peer
  }

  /// First replica of `household.merge`: categories 0..<n, renaming a tenth of the shared ones
  /// too (concurrently with the peer).
  static func first(_ n: Int) -> HouseholdReplica {
    var first = categories(0..<n, by: "bench-phone")
    for index in stride(from: n / 2, to: n, by: 20) {
      try! first.renameCategory(
        CategoryKey(normalizing: "Category \(index)"), to: "category  \(index)")
    }
    return first
  }

  /// The device that receives the deltas: another device that had synced the phone's n
  /// categories before the change (a replica never receives writes under its own id that it
  /// did not make: that is refused).
  static func tablet(_ n: Int) -> HouseholdReplica {
    HouseholdReplica(
      state: categories(0..<n, by: "bench-phone").state, member: Households.member,
      clock: HybridClock(replica: "bench-tablet", wallClock: .fixed(1_733_788_800_000)))
  }

  static func all(sizes: [Int]) -> [Benchmark] {
    sizes.flatMap { n -> [Benchmark] in
      let peerReplica = Lazy { peer(n) }
      let encodedPeer = Lazy { JSONWriter.encode(peerReplica.value.state) }
      let fullMessage = Lazy {
        var peer = peerReplica.value
        var session = SyncSession()
        return session.message(from: &peer).encoded()
      }
      let store = Lazy { categories(0..<n, by: "bench-phone") }
      let names = Lazy {
        // Spread over the whole map by a multiplicative hash: the same names on every run.
        (0..<operations).map { "Category \(($0 &* 2_654_435_761) % n)" }
      }
      /// The replica after `edits`, what `delta(since:)` finds of them, the version before them,
      /// and the delta the replica collected as it made them (which names the keys it removes,
      /// ADR 0023).
      func edited(_ edits: (inout HouseholdReplica) -> Void)
        -> (HouseholdReplica, HouseholdState, HouseholdVersion, HouseholdState)
      {
        var changed = store.value
        _ = changed.takeLocalDelta()
        let version = changed.state.version
        edits(&changed)
        let collected = changed.takeLocalDelta()!
        return (changed, changed.delta(since: version)!, version, collected)
      }
      let synced = Lazy { edited(SyncBenchmarks.renamesAndCreations(n)) }
      let fieldsSynced = Lazy { edited(SyncBenchmarks.fieldEdits(n)) }
      func deltaSizeRow(
        _ name: String,
        _ input: Lazy<(HouseholdReplica, HouseholdState, HouseholdVersion, HouseholdState)>,
        compact: Bool = false
      ) -> Benchmark {
        Benchmark(
          name, n: n, prepare: { input.value },
          bytes: { input in
            SyncMessage(
              household: input.0.householdID, sender: input.0.replicaID, through: 0, since: nil,
              recipient: nil, acknowledged: nil, state: input.1, compact: compact
            ).encoded().count
          }
        ) { input in
          blackHole(input.0.delta(since: input.2))
        }
      }
      return [
        Benchmark("household.merge", n: n, prepare: { (Unique(first(n)), peerReplica.value.state) })
        {
          let remote = $0.1
          blackHole($0.0.update { try! $0.merge(remote) })
        },
        Benchmark(
          "household.receive", n: n, prepare: { (Unique(first(n)), encodedPeer.value) },
          bytes: { $0.1.count }
        ) {
          // Read with its greatest timestamp, which the merge checks without a second pass.
          let read = try! JSONReader.decode(HouseholdState.AsRead.self, from: $0.1, cores: .two)
          blackHole($0.0.update { try! $0.merge(read) })
        },
        // The app's path for the same state: a session's first message, its bytes as a wire
        // carries them (compressed), decoded on one core and merged by the session, with the
        // greatest timestamp the decoder found.
        Benchmark(
          "household.receive.message", n: n,
          prepare: { (Unique(first(n)), fullMessage.value) }, bytes: { $0.1.count }
        ) { input in
          let message = try! SyncMessage(decoding: input.1)
          var session = SyncSession()
          blackHole(input.0.update { try! session.receive(message, into: &$0) })
        },
        Benchmark(
          "household.lookup", n: n, operations: operations, prepare: { (store.value, names.value) }
        ) { input in
          for name in input.1 { blackHole(input.0.category(named: name)) }
        },
        Benchmark(
          "household.getOrCreate.existing", n: n, operations: operations,
          prepare: { (Unique(store.value), names.value) }
        ) { input in
          input.0.update { replica in
            for name in input.1 { blackHole(try! replica.getOrCreateCategory(displayName: name)) }
          }
        },
        Benchmark(
          "household.getOrCreate.new", n: n, operations: operations,
          prepare: { (Unique(categories(0..<n, by: "bench-phone")), names.value) }
        ) { input in
          input.0.update { replica in
            for index in 0..<operations {
              blackHole(try! replica.getOrCreateCategory(displayName: "Fresh \(index)"))
            }
          }
        },
        // The bytes of a delta as they go on a wire: in a sync message (each replica named
        // once, gzip around the JSON); `delta.json` has the plain JSON and its size.
        // `.compact`: the same in format 5, as a session writes it to a peer of this build
        // (ADR 0044). `.fields`: 100 edits of one field, as the peers' harness makes them.
        deltaSizeRow("delta.size", synced),
        deltaSizeRow("delta.size.compact", synced, compact: true),
        deltaSizeRow("delta.size.fields", fieldsSynced),
        deltaSizeRow("delta.size.fields.compact", fieldsSynced, compact: true),
        Benchmark(
          "delta.json", n: n, prepare: { synced.value.1 },
          bytes: { JSONWriter.encode($0).count }
        ) { delta in
          blackHole(JSONWriter.encode(delta))
        },
        Benchmark(
          "state.size", n: n, prepare: { synced.value.0.state },
          bytes: { JSONWriter.encode($0).count }
        ) { state in
          blackHole(JSONWriter.encode(state))
        },
        Benchmark(
          "delta.apply", n: n,
          prepare: { (Unique(tablet(n)), synced.value.1) }
        ) { input in
          blackHole(input.0.update { try! $0.merge(input.1) })
        },
        Benchmark(
          "delta.apply.keyed", n: n,
          prepare: { (Unique(tablet(n)), synced.value.3) },
          bytes: { JSONWriter.encode($0.1).count }
        ) { input in
          blackHole(input.0.update { try! $0.merge(input.1) })
        },
        // What a replica adds to opening a household: indexing its writes by replica and
        // counter (ADR 0026), from a state as a file gives it (decoded, so without an index).
        Benchmark(
          "household.index", n: n,
          prepare: {
            try! JSONReader.decode(
              HouseholdState.self, from: JSONWriter.encode(store.value.state), cores: .two)
          }
        ) { state in
          blackHole(
            HouseholdReplica(
              state: state, member: Households.member,
              clock: HybridClock(replica: "bench-phone", wallClock: .fixed(1_733_788_800_000))))
        },
        Benchmark(
          "memory.household", n: n, prepare: { () },
          bytes: { _ in residentBytesPerRecord(n) }
        ) { _ in
          blackHole(categories(0..<n, by: "bench-phone"))
        },
      ]
    }
  }

  /// Memory a household of `n` categories holds, per record: the resident set before and after
  /// building it, with the household alive. Free heap pages are returned to the system (glibc's
  /// `malloc_trim`) before each reading: otherwise memory freed by earlier rows is reused unseen
  /// (small sizes read 0) and memory the build freed again still counts.
  static func residentBytesPerRecord(_ n: Int) -> Int {
    returnFreeMemory()
    let before = residentBytes()
    let household = categories(0..<n, by: "bench-phone")
    returnFreeMemory()  // what building it used and freed again
    let after = residentBytes()
    withExtendedLifetime(household) {}
    return max(0, after - before) / n
  }

  /// Calls glibc's `malloc_trim(0)` where there is one (looked up at run time: the Swift
  /// module map does not export `malloc.h`).
  static func returnFreeMemory() {
    #if os(Linux)
      typealias Trim = @convention(c) (Int) -> Int32
      if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
      }
    #endif
  }

  /// Restarts the kernel's record of the peak resident set (`VmHWM`) from the current one;
  /// `false` where that is not possible.
  static func resetPeakResidentBytes() -> Bool {
    #if os(Linux)
      return (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8))
        != nil
    #else
      return false
    #endif
  }

  /// The peak resident set since the last ``resetPeakResidentBytes()``, from /proc on Linux;
  /// 0 elsewhere.
  static func peakResidentBytes() -> Int {
    #if os(Linux)
      guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
      else { return 0 }
      return kilobytes * 1024
    #else
      return 0
    #endif
  }

  /// The process's resident set size, from /proc on Linux; 0 elsewhere.
  static func residentBytes() -> Int {
    #if os(Linux)
      guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
        let pages = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
      else { return 0 }
      return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    #else
      return 0
    #endif
  }
}
