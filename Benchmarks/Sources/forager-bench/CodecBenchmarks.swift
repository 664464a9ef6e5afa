import ForagerSync
import Foundation
import SemanticCRDT

/// Save and load of a replica file with our codec, against JSONEncoder/JSONDecoder of the same
/// state, in the same run. Ours does more (envelope, checksum verification, invariant checks).
enum CodecBenchmarks {
  static func all(sizes: [Int], mixedSizes: [Int]) -> [Benchmark] {
    sizes.flatMap { n in rows(suffix: "", n: n) { Households.categories(n) } }
      + mixedSizes.flatMap { n in rows(suffix: ".mixed", n: n) { Households.mixed(n) } }
  }

  static func rows(suffix: String, n: Int, build: @escaping () -> HouseholdReplica) -> [Benchmark] {
    let replica = Lazy(build)
    // Encoded once: the load rows read these bytes and never change them.
    let ours = Lazy { ReplicaFileFormat.encode(ReplicaFileContents(replica.value)) }
    let foundations = Lazy { try! JSONEncoder().encode(replica.value.state) }
    let file = URL(fileURLWithPath: "/memory/bench.json")
    return [
      Benchmark(
        "codec.save\(suffix)", n: n, prepare: { ReplicaFileContents(replica.value) },
        bytes: { _ in ours.value.count }
      ) { blackHole(ReplicaFileFormat.encode($0)) },
      Benchmark(
        "codec.load\(suffix)", n: n,
        prepare: { ours.value }, bytes: { $0.count }
      ) { blackHole(try! ReplicaFileFormat.decode($0, file: file, cores: .two)) },
      Benchmark(
        "foundation.save\(suffix)", n: n, prepare: { replica.value.state },
        bytes: { _ in foundations.value.count }
      ) { blackHole(try! JSONEncoder().encode($0)) },
      Benchmark(
        "foundation.load\(suffix)", n: n,
        prepare: { foundations.value }, bytes: { $0.count }
      ) { blackHole(try! JSONDecoder().decode(HouseholdState.self, from: $0)) },
      Benchmark(
        "memory.load\(suffix)", n: n, prepare: { replica.value },
        bytes: { loadingOverhead(of: $0) }
      ) { blackHole($0) },
    ]
  }

  /// What reading a replica file costs in memory beyond the state it yields, in thousandths of
  /// the file's size, measured in a fresh process (as at an app's launch: the heap holds
  /// nothing that earlier rows freed): the peak resident set while `ReplicaStore.read()` runs,
  /// less the resident set once it has returned with the state alive and freed memory given
  /// back. The file's bytes and everything decoding allocates and frees count; the state itself
  /// does not, since an app keeps it. Linux only (the peak comes from /proc); 0 elsewhere.
  static func loadingOverhead(of replica: HouseholdReplica) -> Int {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("forager-bench-\(ProcessInfo.processInfo.processIdentifier)")
    try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("load.forager.json")
    var store = ReplicaStore(fileURL: file)
    try! store.save(replica)
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: "/proc/self/exe")
    probe.arguments = [loadProbeArgument, file.path]
    let output = Pipe()
    probe.standardOutput = output
    guard (try? probe.run()) != nil else { return 0 }
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    probe.waitUntilExit()
    return Int(
      String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
  }

  /// The argument that makes `forager-bench` the child process of ``loadingOverhead(of:)``.
  static let loadProbeArgument = "--measure-loading"

  /// The child's side of ``loadingOverhead(of:)``: reads `path` once and returns the overhead.
  static func measureLoading(_ path: String) -> Int {
    let store = ReplicaStore(fileURL: URL(fileURLWithPath: path))
    let size = try! FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
    HouseholdBenchmarks.returnFreeMemory()
    guard HouseholdBenchmarks.resetPeakResidentBytes() else { return 0 }
    let contents = try! store.read()
    HouseholdBenchmarks.returnFreeMemory()
    let after = HouseholdBenchmarks.residentBytes()
    let peak = HouseholdBenchmarks.peakResidentBytes()
    withExtendedLifetime(contents) {}
    return max(0, peak - after) * 1000 / size
  }
}

/// A value built on first use, so that `list` and filtered runs build nothing they skip.
final class Lazy<Value> {
  private let build: () -> Value
  private var built: Value?

  init(_ build: @escaping () -> Value) { self.build = build }

  var value: Value {
    if let built { return built }
    let value = build()
    built = value
    return value
  }
}
