import ForagerSync
import Foundation
import SemanticCRDT

/// Save and load of a replica file with our codec, against JSONEncoder/JSONDecoder of the same
/// state, in the same run. Ours does more (envelope, checksum verification, invariant checks).
enum CodecBenchmarks {
  /// The rows at every size, and at the largest mixed size, our load against Foundation's in
  /// alternating rounds (see ``Comparison``): the ratio, from runs a second apart rather
  /// than rows a minute apart.
  static func all(sizes: [Int], mixedSizes: [Int]) -> (rows: [Benchmark], comparisons: [Comparison])
  {
    let plain = sizes.map { n in Inputs(suffix: "", n: n) { Households.categories(n) } }
    let mixed = mixedSizes.map { n in Inputs(suffix: ".mixed", n: n) { Households.mixed(n) } }
    return ((plain + mixed).flatMap(rows), mixed.suffix(1).map(loadAgainstFoundation))
  }

  /// One size's household, built on first use, and its bytes in each codec, encoded once: the
  /// load rows read these bytes and never change them.
  struct Inputs {
    let suffix: String
    let n: Int
    let replica: Lazy<HouseholdReplica>
    let ours: Lazy<[UInt8]>
    let foundations: Lazy<Data>

    init(suffix: String, n: Int, build: @escaping () -> HouseholdReplica) {
      let replica = Lazy(build)
      (self.suffix, self.n, self.replica) = (suffix, n, replica)
      ours = Lazy { ReplicaFileFormat.encode(ReplicaFileContents(replica.value)) }
      foundations = Lazy { try! JSONEncoder().encode(replica.value.state) }
    }
  }

  static let file = URL(fileURLWithPath: "/memory/bench.json")

  static func rows(_ inputs: Inputs) -> [Benchmark] {
    let (suffix, n, replica, ours, foundations) = (
      inputs.suffix, inputs.n, inputs.replica, inputs.ours, inputs.foundations
    )
    return [
      Benchmark(
        "codec.save\(suffix)", n: n, prepare: { ReplicaFileContents(replica.value) },
        bytes: { _ in ours.value.count }
      ) { blackHole(ReplicaFileFormat.encode($0)) },
      Benchmark(
        "codec.load\(suffix)", n: n,
        prepare: { ours.value }, bytes: { $0.count }
      ) { loadOurs($0) },
      Benchmark(
        "foundation.save\(suffix)", n: n, prepare: { replica.value.state },
        bytes: { _ in foundations.value.count }
      ) { blackHole(try! JSONEncoder().encode($0)) },
      Benchmark(
        "foundation.load\(suffix)", n: n,
        prepare: { foundations.value }, bytes: { $0.count }
      ) { loadFoundations($0) },
      Benchmark(
        "memory.load\(suffix)", n: n, prepare: { replica.value },
        bytes: { loadingOverhead(of: $0) }
      ) { blackHole($0) },
    ]
  }

  /// Foundation's load over ours, each as its row times it: the ratio is how many times
  /// faster ours is.
  static func loadAgainstFoundation(_ inputs: Inputs) -> Comparison {
    let (ours, foundations) = (inputs.ours, inputs.foundations)
    return Comparison(
      "foundation.load\(inputs.suffix) / codec.load\(inputs.suffix)", n: inputs.n,
      { loadFoundations(foundations.value) }, over: { loadOurs(ours.value) })
  }

  /// What `codec.load` times: our bytes decoded and checked, on two cores.
  static func loadOurs(_ bytes: [UInt8]) {
    blackHole(try! ReplicaFileFormat.decode(bytes, file: file, cores: .two))
  }

  /// What `foundation.load` times: Foundation's bytes decoded by `JSONDecoder`.
  static func loadFoundations(_ bytes: Data) {
    blackHole(try! JSONDecoder().decode(HouseholdState.self, from: bytes))
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
