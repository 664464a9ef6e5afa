import SharedSupport
import Testing

@testable import SemanticCRDT

/// What `ORMap.merge(_:changed:)` reports of each key, held to the maps before and after:
/// a merge that reports makes the same map as one that does not, reports every key whose
/// writes changed and no other, and says of each what its writes and values were and became.
/// The change computes its flags as it is made, from writes it is lent; this holds them to
/// their definitions.
@Suite("What a map's merge reports")
struct ORMapChangeTests {
  typealias Map = ORMap<String, LWWRegister<Int>>
  typealias Writes = DotSiblings<Boxed<LWWRegister<Int>>>

  /// Three replicas' random writes, overwrites and removes of a few keys, and merges of each
  /// other's maps: `merge` is called at each merge with the map that merges, to merge into, and
  /// the map it merges. With `indexing`, each map keeps the live-dot index or not at random.
  static func randomMerges(
    seed: UInt64, indexing: Bool = false, _ merge: (inout Map, Map) -> Void
  ) {
    var random = SplitMix64(seed: seed)
    let replicas: [ReplicaID] = ["a", "b", "c"]
    let keys = ["k0", "k1", "k2", "k3", "k4"]
    var maps = replicas.map { _ in
      var map = Map()
      if indexing && random.chance(0.5) { map.indexLiveDots() }
      return map
    }
    var wall: UInt64 = 0
    for _ in 0..<60 {
      let index = random.int(in: 0..<3)
      switch random.int(in: 0...3) {
      case 0, 1:
        wall += 1
        let stamp = HybridTimestamp(wallMilliseconds: wall, replica: replicas[index])
        maps[index].set(
          random.pick(keys), to: LWWRegister(random.int(in: 0...3), at: stamp),
          by: replicas[index])
      case 2:
        maps[index].remove(random.pick(keys))
      default:
        merge(&maps[index], maps[random.int(in: 0..<3)])
      }
    }
  }

  /// Three replicas write, overwrite and remove a few keys and merge each other's maps.
  @Test(arguments: 0..<40)
  func eachReportedChangeIsTheDifferenceOfTheMaps(seed: UInt64) {
    var reports = 0
    Self.randomMerges(seed: seed) { map, other in
      let before = map
      var plain = before
      plain.merge(other)
      var reported: [String: (Map.Change, Writes?, Writes?)] = [:]
      map.merge(other) { key, change, writesBefore, writesAfter in
        #expect(reported[key] == nil, "\(key) reported twice")
        reported[key] = (change, writesBefore, writesAfter)
      }
      let after = map
      #expect(after == plain)
      for key in Set(before.kernel.entries.keys).union(after.kernel.entries.keys) {
        let (old, new) = (before.kernel.entries[key], after.kernel.entries[key])
        guard let (change, writesBefore, writesAfter) = reported[key] else {
          #expect(old == new, "\(key) changed unreported")
          continue
        }
        reports += 1
        #expect(writesBefore == old && writesAfter == new)
        #expect(change.wasAbsent == (old == nil) && change.isAbsent == (new == nil))
        #expect(change.before?.value == before[key] && change.after?.value == after[key])
        let sameDots = old.map { o in new.map { o.hasSameDots(as: $0) } ?? false } ?? false
        let expected = (old == nil && new == nil) ? false : !sameDots
        #expect(change.changedWrites == expected, "\(key): \(String(describing: old))")
        #expect(change.otherHoldsKey == (other.kernel.entries[key] != nil))
      }
    }
    // A vacuous run would hold every expectation above.
    #expect(reports > 0)
  }

  /// What a merge keeps of its changed keys' earlier writes (`WritesBefore`), which keeps no
  /// writes for a key whose writes only grew, is enough to undo it (the map and its live-dot
  /// index as they were) and to make the delta of what it changed as defined: the changed
  /// keys' writes after, under the dots the other map brought that this one had not seen and
  /// every dot those keys held before and after. Both kinds of changed key must come up.
  @Test func aMergeIsUndoneAndPassedOnFromWhatItKeeps() {
    var kept = (grown: 0, held: 0)
    for seed in 0..<UInt64(40) {
      Self.randomMerges(seed: seed, indexing: true) { map, other in
        let before = map
        var changes = WritesBefore<String, Boxed<LWWRegister<Int>>>()
        var expected = (entries: [String: Writes](), context: CausalContext())
        map.merge(other) { key, _, writesBefore, writesAfter in
          changes.append(key, writesBefore, after: writesAfter)
          expected.entries[key] = writesAfter
          writesBefore?.forEachDot { expected.context.insert($0) }
          writesAfter?.forEachDot { expected.context.insert($0) }
        }
        kept.grown += changes.grown.count
        kept.held += changes.held.count
        var undone = map
        undone.undoMerge(restoring: changes, context: before.kernel.context)
        #expect(undone == before, "seed \(seed): the undone merge left another map")
        #expect(undone.kernel.index == before.kernel.index, "seed \(seed): another index")
        let delta = Map.delta(
          ofMerging: other.kernel.context, into: before.kernel.context, changing: changes,
          merged: map)
        expected.context.formUnion(other.kernel.context.subtracting(before.kernel.context))
        #expect(delta.kernel.entries == expected.entries, "seed \(seed)")
        #expect(delta.kernel.context == expected.context, "seed \(seed)")
      }
    }
    // A vacuous run would hold every expectation.
    #expect(kept.grown > 0 && kept.held > 0, "\(kept)")
  }
}
