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
      ) { blackHole(try! ReplicaFileFormat.decode($0, file: file)) },
      Benchmark(
        "foundation.save\(suffix)", n: n, prepare: { replica.value.state },
        bytes: { _ in foundations.value.count }
      ) { blackHole(try! JSONEncoder().encode($0)) },
      Benchmark(
        "foundation.load\(suffix)", n: n,
        prepare: { foundations.value }, bytes: { $0.count }
      ) { blackHole(try! JSONDecoder().decode(HouseholdState.self, from: $0)) },
    ]
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
