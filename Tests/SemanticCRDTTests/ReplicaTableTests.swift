import SemanticCRDT
import SharedSupport
import Testing

/// The sorted table that holds a context's and a version's value per replica, against a
/// dictionary: the same contents after any run of changes, in one order, each replica once.
@Suite("Tables by replica")
struct ReplicaTableTests {
  /// Ids that short ASCII ids sort among, a longer one, and one text spelled two ways that
  /// Foundation on Linux leaves apart (a Hangul syllable and its last consonant, `"\u{AC00}"`
  /// then `"\u{11A8}"`, which is `"\u{AC01}"`): equal as ids, so one entry of the table.
  static let ids: [ReplicaID] = [
    "a", "b", "ab", "k2v7q", "zz", "a-replica-id-longer-than-fifteen-bytes",
    ReplicaID("\u{AC00}\u{11A8}"), ReplicaID("\u{AC01}"), ReplicaID("\u{E9}"),
  ]

  /// Random settings, removals and in-place changes, checked after each against a dictionary.
  @Test func holdsWhatADictionaryHolds() {
    for seed in 0..<UInt64(200) {
      var random = SplitMix64(seed: seed)
      var table = ReplicaTable<Int>()
      var model: [ReplicaID: Int] = [:]
      for _ in 0..<random.int(in: 1...80) {
        let replica = random.pick(Self.ids)
        switch random.int(in: 0...3) {
        case 0:
          table[replica] = nil
          model[replica] = nil
        case 1:
          let added = random.int(in: 1...9)
          let result = table.update(replica, default: 100) { value -> Int in
            value += added
            return value
          }
          model[replica, default: 100] += added
          #expect(result == model[replica], "seed \(seed)")
        default:
          let value = random.int(in: 0...1_000)
          table[replica] = value
          model[replica] = value
        }
        Self.expect(table, holds: model, seed: seed)
      }
    }
  }

  /// Built from pairs in any order with repeats, the later value of a replica stands, as a
  /// dictionary assigned in that order keeps it.
  @Test func keepsTheLaterOfRepeatedPairs() {
    for seed in 0..<UInt64(200) {
      var random = SplitMix64(seed: seed)
      var pairs: [(ReplicaID, Int)] = []
      var model: [ReplicaID: Int] = [:]
      for value in 0..<random.int(in: 0...30) {
        let replica = random.pick(Self.ids)
        pairs.append((replica, value))
        model[replica] = value
      }
      Self.expect(ReplicaTable(pairs), holds: model, seed: seed)
    }
  }

  /// Two tables walked together visit every replica of either once, in order, with each side's
  /// value; equal contents make equal tables.
  @Test func walksTwoTablesTogether() {
    for seed in 0..<UInt64(200) {
      var random = SplitMix64(seed: seed)
      func randomTable() -> (ReplicaTable<Int>, [ReplicaID: Int]) {
        var model: [ReplicaID: Int] = [:]
        for replica in Self.ids where random.chance(0.5) { model[replica] = random.int(in: 0...9) }
        return (ReplicaTable(model.map { ($0.key, $0.value) }), model)
      }
      let (left, leftModel) = randomTable()
      let (right, rightModel) = randomTable()
      var visited: [ReplicaID] = []
      left.forEachReplica(with: right) { replica, mine, theirs in
        visited.append(replica)
        #expect(mine == leftModel[replica] && theirs == rightModel[replica], "seed \(seed)")
      }
      #expect(Set(visited) == Set(leftModel.keys).union(rightModel.keys), "seed \(seed)")
      #expect(visited.count == Set(visited).count, "seed \(seed): a replica visited twice")
      #expect(zip(visited, visited.dropFirst()).allSatisfy { ReplicaTable<Int>.precedes($0, $1) })
      #expect((left == right) == (leftModel == rightModel), "seed \(seed)")
      #expect(left.mapValues { $0 * 2 } == ReplicaTable(leftModel.map { ($0.key, $0.value * 2) }))
      #expect(
        left.filter { $1 > 4 }
          == ReplicaTable(leftModel.filter { $0.value > 4 }.map { ($0.key, $0.value) }))
      var joined = left
      joined.formUnion(right) { $0 = max($0, $1) }
      Self.expect(
        joined, holds: leftModel.merging(rightModel, uniquingKeysWith: max), seed: seed)
      let bringsNoReplica = rightModel.keys.allSatisfy { leftModel[$0] != nil }
      #expect(Self.shareReplicas(joined, left) == bringsNoReplica, "seed \(seed)")
    }
  }

  /// Tables that name the same replicas share them: a version read from a context, a join
  /// that brings no new replica, a change of a value. So the versions a replica keeps of a
  /// context cost its counters, not its ids again (ADR 0051).
  @Test func tablesOfTheSameReplicasShareThem() {
    let context = CausalContext(
      replicas: Dictionary(Self.ids.map { ($0, CounterSet([1...3])) }) { first, _ in first })
    let version = context.versionVector
    #expect(Self.shareReplicas(version.table, context.replicas))
    var later = context
    later.formUnion(CausalContext(VersionVector([Self.ids[2]: 5])))
    #expect(later != context)
    #expect(Self.shareReplicas(later.replicas, context.replicas))
    #expect(Self.shareReplicas(later.versionVector.table, version.table))
    var newer = version
    newer.merge(VersionVector([Self.ids[0]: 9, Self.ids[1]: 1]))
    #expect(newer[Self.ids[0]] == 9 && Self.shareReplicas(newer.table, version.table))
    // A context with a gap at a replica's start gives a version without it, of its own.
    var gapped = context
    gapped.formUnion(CausalContext(replicas: ["late": CounterSet([5...6])]))
    #expect(gapped.versionVector == version)
    #expect(!Self.shareReplicas(gapped.versionVector.table, gapped.replicas))
  }

  /// Whether both tables hold their replicas in one array's storage.
  static func shareReplicas<First, Second>(
    _ first: ReplicaTable<First>, _ second: ReplicaTable<Second>
  ) -> Bool {
    first.replicas.withUnsafeBufferPointer { mine in
      second.replicas.withUnsafeBufferPointer { $0.baseAddress == mine.baseAddress }
    }
  }

  /// The table holds exactly `model`, in its order, each replica once, and finds each.
  static func expect(_ table: ReplicaTable<Int>, holds model: [ReplicaID: Int], seed: UInt64) {
    #expect(table.count == model.count, "seed \(seed)")
    #expect(table.isEmpty == model.isEmpty, "seed \(seed)")
    let replicas = Array(table.replicas)
    #expect(
      zip(replicas, replicas.dropFirst()).allSatisfy { ReplicaTable<Int>.precedes($0, $1) },
      "seed \(seed): not in order, or a replica twice")
    for replica in ids {
      #expect(table[replica] == model[replica], "seed \(seed): \(replica)")
    }
    var listed: [ReplicaID: Int] = [:]
    for (replica, value) in table { listed[replica] = value }
    #expect(listed == model, "seed \(seed)")
  }
}
