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
    let file = URL(fileURLWithPath: "/memory/bench.json")
    return [
      Benchmark(
        "codec.save\(suffix)", n: n, prepare: { ReplicaFileContents(replica.value) },
        bytes: { ReplicaFileFormat.encode($0).count }
      ) { blackHole(ReplicaFileFormat.encode($0)) },
      Benchmark(
        "codec.load\(suffix)", n: n,
        prepare: { ReplicaFileFormat.encode(ReplicaFileContents(replica.value)) },
        bytes: { $0.count }
      ) { blackHole(try! ReplicaFileFormat.decode($0, file: file)) },
      Benchmark(
        "foundation.save\(suffix)", n: n, prepare: { replica.value.state },
        bytes: { try! JSONEncoder().encode($0).count }
      ) { blackHole(try! JSONEncoder().encode($0)) },
      Benchmark(
        "foundation.load\(suffix)", n: n,
        prepare: { try! JSONEncoder().encode(replica.value.state) },
        bytes: { $0.count }
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
