import ForagerSync
import Foundation

/// The store's files at n categories, on this machine's disk: saving one edit (a journal line
/// appended and flushed to disk), and opening a snapshot beside a journal of 1,000 edits.
enum StoreBenchmarks {
  /// Edits saved per timed run of `store.save.edit`; the figure is per edit.
  static let savedEdits = 20
  /// The journal `store.open.journal` replays.
  static let journalEdits = 1_000

  /// Where the rows keep their files; removed by ``removeFiles()``.
  static let folder = FileManager.default.temporaryDirectory
    .appendingPathComponent("forager-bench-store-\(ProcessInfo.processInfo.processIdentifier)")

  static func all(sizes: [Int]) -> [Benchmark] {
    sizes.flatMap { n -> [Benchmark] in
      // Opened once: each run appends its edits after the last run's, as an app's store does.
      let saving = Lazy { () -> Unique<(ReplicaStore, HouseholdReplica)> in
        Unique(opened(snapshotOf: Households.categories(n), named: "save-\(n).json"))
      }
      var nextEdit = 0
      let journaled = Lazy { journaledFile(n, named: "open-\(n).json") }
      return [
        Benchmark(
          "store.save.edit", n: n, operations: savedEdits, prepare: { saving.value }
        ) { box in
          box.update { files in
            for _ in 0..<savedEdits {
              nextEdit += 1
              _ = try! files.1.getOrCreateCategory(displayName: "Saved \(nextEdit)")
              blackHole(try! files.0.append(files.1.takeLocalDelta()!, of: files.1))
            }
          }
        },
        Benchmark(
          "store.open", n: n,
          prepare: {
            opened(snapshotOf: Households.categories(n), named: "plain-\(n).json").0.fileURL
          }
        ) { file in
          var store = ReplicaStore(fileURL: file)
          blackHole(try! store.open(household: Households.household, member: Households.member))
        },
        Benchmark(
          "store.open.journal", n: n, prepare: { journaled.value },
          bytes: { ReplicaStore(fileURL: $0).journalSizeOnDisk }
        ) { file in
          var store = ReplicaStore(fileURL: file)
          blackHole(try! store.open(household: Households.household, member: Households.member))
        },
      ]
    }
  }

  /// Opening a store with a journal of ``journalEdits`` edits against decoding its snapshot's
  /// bytes in memory (as `codec.load` does), in alternating rounds (see ``Comparison``).
  static func comparisons(sizes: [Int]) -> [Comparison] {
    sizes.map { n in
      let file = Lazy { journaledFile(n, named: "compare-\(n).json") }
      let snapshot = Lazy { [UInt8](FileManager.default.contents(atPath: file.value.path)!) }
      return Comparison(
        "store.open.journal / codec.load", n: n,
        {
          var store = ReplicaStore(fileURL: file.value)
          blackHole(try! store.open(household: Households.household, member: Households.member))
        },
        over: {
          blackHole(try! ReplicaFileFormat.decode(snapshot.value, file: file.value, cores: .two))
        })
    }
  }

  /// A file in ``folder`` holding a snapshot of `n` categories beside a journal of
  /// ``journalEdits`` edits.
  static func journaledFile(_ n: Int, named name: String) -> URL {
    var (store, replica) = opened(snapshotOf: Households.categories(n), named: name)
    // Room for all 1,000 lines at every size (the default compacts earlier below about
    // 20,000 records, where a snapshot is small).
    store.compaction = JournalCompaction(fractionOfSnapshot: 1, minimumBytes: 64 << 20)
    for index in 0..<journalEdits {
      _ = try! replica.getOrCreateCategory(displayName: "Journaled \(index)")
      let write = try! store.append(replica.takeLocalDelta()!, of: replica)
      precondition(write == .line, "the journal compacted at edit \(index)")
    }
    return store.fileURL
  }

  /// A store of a new file in ``folder`` holding a snapshot of `replica`, opened.
  static func opened(snapshotOf replica: HouseholdReplica, named name: String)
    -> (ReplicaStore, HouseholdReplica)
  {
    try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    var store = ReplicaStore(fileURL: folder.appendingPathComponent(name))
    try! store.save(replica)
    let opened = try! store.open(household: Households.household, member: Households.member)
    return (store, opened)
  }

  static func removeFiles() {
    try? FileManager.default.removeItem(at: folder)
  }
}

extension ReplicaStore {
  /// The journal's size on disk, 0 when there is none.
  fileprivate var journalSizeOnDisk: Int {
    (try? FileManager.default.attributesOfItem(atPath: journalURL.path)[.size] as? Int) ?? 0
  }
}
