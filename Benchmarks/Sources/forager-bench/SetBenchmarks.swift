import SemanticCRDT
import SemanticCRDTJSON

/// Merging two big sets and maps: A holds keys 0..<n, B holds n/2..<3n/2 (50% overlap), B is
/// merged into A. Beside them, a plain dictionary of (stamp, replica, deleted) doing the same
/// merge: the floor any CRDT merge of these entries is measured against.
enum SetBenchmarks {
  static func key(_ index: Int) -> String { "key-\(index)" }

  static func orSet(_ range: Range<Int>, by replica: ReplicaID) -> ORSet<String> {
    var set = ORSet<String>()
    for index in range { set.insert(key(index), by: replica) }
    return set
  }

  static func lwwMap(_ range: Range<Int>, by replica: ReplicaID) -> LWWMap<String, Int> {
    var clock = HybridClock(replica: replica, wallClock: .fixed(1_733_788_800_000))
    var map = LWWMap<String, Int>()
    for index in range { map.set(key(index), to: index, at: clock.tick()) }
    return map
  }

  typealias Stamped = (stamp: UInt64, replica: String, deleted: Bool)

  static func dictionary(_ range: Range<Int>, by replica: String) -> [String: Stamped] {
    var dictionary: [String: Stamped] = [:]
    dictionary.reserveCapacity(range.count)
    for index in range { dictionary[key(index)] = (UInt64(index), replica, false) }
    return dictionary
  }

  static func all(sizes: [Int]) -> [Benchmark] {
    sizes.flatMap { n in
      let second = Lazy { (orSet(n / 2..<n + n / 2, by: "b"), lwwMap(n / 2..<n + n / 2, by: "b")) }
      let secondDictionary = Lazy { dictionary(n / 2..<n + n / 2, by: "b") }
      return [
        Benchmark(
          "orset.merge", n: n, prepare: { (Unique(orSet(0..<n, by: "a")), second.value.0) },
          bytes: { _ in JSONWriter.encode(second.value.0).count }
        ) { input in
          input.0.update { $0.merge(input.1) }
        },
        Benchmark(
          "lwwmap.merge", n: n, prepare: { (Unique(lwwMap(0..<n, by: "a")), second.value.1) }
        ) { input in
          input.0.update { $0.merge(input.1) }
        },
        Benchmark(
          "baseline.dictionary.merge", n: n,
          prepare: { (Unique(dictionary(0..<n, by: "a")), secondDictionary.value) }
        ) { input in
          input.0.update { mine in
            for (key, theirs) in input.1 {
              if let current = mine[key],
                (current.stamp, current.replica) >= (theirs.stamp, theirs.replica)
              {
                continue
              }
              mine[key] = theirs
            }
          }
        },
      ]
    }
  }
}
