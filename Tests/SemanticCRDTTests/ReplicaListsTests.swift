import SemanticCRDT
import SharedSupport
import Testing

/// The lists by replica that merges and deltas gather dots in, against a dictionary of arrays.
@Suite("Lists by replica")
struct ReplicaListsTests {
  /// Runs of one replica and switches between three, as a merge's dots come: each replica's
  /// elements in the order they came, every replica once, nothing else.
  @Test func keepEachReplicasElementsInTheOrderTheyCame() {
    for seed in 0..<UInt64(50) {
      var random = SplitMix64(seed: seed)
      var lists = ReplicaLists<Int>()
      var model: [ReplicaID: [Int]] = [:]
      #expect(lists.isEmpty)
      var replica: ReplicaID = "a"
      for element in 0..<random.int(in: 1...60) {
        // A run continues more often than not, as a key's writes and a replica's keys do.
        if random.chance(0.3) { replica = random.pick(["a", "b", "c"]) }
        lists.append(element, of: replica)
        model[replica, default: []].append(element)
      }
      var seen: [ReplicaID: [Int]] = [:]
      lists.forEach { replica, elements in
        #expect(seen[replica] == nil, "seed \(seed): \(replica) given twice")
        seen[replica] = elements
      }
      #expect(seen == model, "seed \(seed)")
      #expect(!lists.isEmpty)
    }
  }
}
