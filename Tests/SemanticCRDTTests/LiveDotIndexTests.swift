import CRDTTestSupport
import SemanticCRDT
import SharedSupport
import Testing

/// The live-dot index against plain collections, and the deltas it makes against the deltas
/// found by visiting every key. `FORAGER_PROPERTY_ITERATIONS` scales the random cases.
@Suite("Live-dot index")
struct LiveDotIndexTests {
  static let iterations = PropertyEnvironment.iterations(default: 120)

  /// Random inserts and removes of counters around block edges (63, 64, 127, 128, …) on two
  /// replicas: every query (a dot's key among them) answers what a dictionary of the live dots
  /// answers, its shape is sound, and the index
  /// equals one built from scratch (a block that empties goes). One seed in four spreads the
  /// counters over a thousand blocks, more than there are dots, so that building from scratch
  /// sorts them instead of placing each in its block.
  @Test func answersWhatAPlainDictionaryAnswers() {
    for seed in 0..<UInt64(Self.iterations) {
      var random = SplitMix64(seed: seed)
      var index = LiveDotIndex<String>()
      var model: [Dot: String] = [:]
      let blocks = seed % 4 == 0 ? 1_000 : 4
      let top = 64 * (blocks + 1)
      for _ in 0..<random.int(in: 1...120) {
        // Half the counters are within a few of a block edge, so that runs of live counters
        // cross edges (…63, 64…) and blocks fill and empty.
        let counter =
          random.chance(0.5)
          ? 64 * random.int(in: 1...blocks) + random.int(in: -3...2)
          : random.int(in: 1...top - 20)
        let dot = Dot(random.chance(0.5) ? "a" : "b", UInt64(counter))
        if random.chance(0.6) {
          let key = "k\(random.int(in: 0...9))"
          index.insert(dot, key)
          model[dot] = key
        } else {
          index.remove(dot)
          model[dot] = nil
        }
      }
      let rebuilt = LiveDotIndex(
        Dictionary(grouping: model, by: \.value).mapValues { dots in
          DotSiblings(
            unsorted: dots.map { DottedValue(dot: $0.key, value: ()) }.sorted { $0.dot < $1.dot })!
        })
      #expect(index == rebuilt, "seed \(seed): the index differs from one built from its dots")
      #expect(index.count == model.count, "seed \(seed)")
      #expect(index.shapeViolations().isEmpty, "seed \(seed): \(index.shapeViolations())")
      for counter in 1...UInt64(top) {
        for replica in ["a", "b"] as [ReplicaID] {
          let dot = Dot(replica, counter)
          #expect(index.key(of: dot) == model[dot], "seed \(seed): the key of \(dot)")
        }
      }
      for replica in ["a", "b"] as [ReplicaID] {
        let low = UInt64(random.int(in: 1...top))
        let range = low...max(low, UInt64(random.int(in: 1...top)))
        var keys: [String] = []
        index.forEachKey(of: replica, in: range) { keys.append($0) }
        let expected = model.filter { $0.key.replica == replica && range.contains($0.key.counter) }
          .sorted { $0.key < $1.key }.map(\.value)
        #expect(keys == expected, "seed \(seed): keys of \(replica) in \(range)")
        let bound = UInt64(random.int(in: 0...top))
        let live = model.keys.filter { $0.replica == replica && $0.counter <= bound }
          .map(\.counter).sorted()
        #expect(
          index.liveRanges(of: replica, upTo: bound) == CounterSet.ranges(ofSorted: live),
          "seed \(seed): live ranges of \(replica) up to \(bound)")
      }
    }
  }

  /// A dot under two keys (no sound state has one, but a build must not trust that) is indexed
  /// once, under one of them, whether the counters are dense or sparse.
  @Test(arguments: [UInt64(5), 5_000])
  func indexesADotUnderTwoKeysOnce(otherCounter: UInt64) {
    let twice = Dot("a", 3)
    let index = LiveDotIndex<String>([
      "x": DotSiblings(dot: twice, value: ()), "y": DotSiblings(dot: twice, value: ()),
      "z": DotSiblings(dot: Dot("a", otherCounter), value: ()),
    ])
    #expect(index.count == 2)
    var keys: [String] = []
    index.forEachKey(of: "a", in: 3...3) { keys.append($0) }
    #expect(keys.count == 1 && ["x", "y"].contains(keys[0]))
  }

  /// A state's check, with the index kept, names a dot live under two keys (the index holds it
  /// under one of them) and counts it against the index, whichever key the index chose.
  @Test func theCheckFindsADotLiveUnderTwoKeysThroughTheIndex() {
    var kernel = DotKernel<String, Void>(
      entries: [
        "x": DotSiblings(dot: Dot("a", 3), value: ()),
        "y": DotSiblings(dot: Dot("a", 3), value: ()),
      ],
      context: CausalContext(VersionVector(["a": 3])))
    kernel.indexLiveDots()
    let problems = kernel.invariantViolations()
    #expect(problems.contains("dot a:3 is live twice"), "\(problems)")
    #expect(problems.contains("the live-dot index does not hold exactly the live dots"))
  }

  /// `count` empty maps that keep the live-dot index.
  static func indexedMaps(_ count: Int) -> [ORMap<String, GCounter>] {
    (0..<count).map { _ in
      var map = ORMap<String, GCounter>()
      map.indexLiveDots()
      return map
    }
  }

  /// Merges of maps holding more keys than a merge gathers the dots of
  /// (`LiveDotIndex.gatheringThreshold`), whose writes, overwrites and removes interleave
  /// three replicas' counters: the index stays exact after each merge, a replica the receiver
  /// had not seen and one it had alike.
  @Test func mergesOfManyKeysKeepTheIndexExact() {
    let threshold = LiveDotIndex<String>.gatheringThreshold
    for seed in 0..<UInt64(max(2, Self.iterations / 40)) {
      var random = SplitMix64(seed: seed)
      let replicas: [ReplicaID] = ["p", "q", "r"]
      var states = Self.indexedMaps(replicas.count)
      for round in 0..<3 {
        for at in states.indices {
          for _ in 0..<2 * threshold {
            let key = "k\(random.int(in: 0..<2 * threshold))"
            if random.chance(0.1) {
              states[at].remove(key)
            } else {
              states[at].update(key, by: replicas[at], default: GCounter()) {
                $0.increment(by: 1, replica: replicas[at])
              }
            }
          }
        }
        for at in states.indices {
          let from = (at + 1 + round % 2) % states.count
          #expect(states[from].count >= threshold, "seed \(seed): a merge too small to gather")
          states[at].merge(states[from])
          #expect(
            states[at].invariantViolations().isEmpty,
            "seed \(seed), round \(round): \(states[at].invariantViolations().prefix(3))")
        }
      }
    }
  }

  /// States reached by random writes, removes and merges of three replicas: the delta a state
  /// keeping the index makes for a random version equals the delta found by visiting every
  /// key, the index stays exact, and merging a delta through the index gives what merging it
  /// as a state does.
  @Test func makesTheDeltasAScanMakes() {
    for seed in 0..<UInt64(Self.iterations) {
      var random = SplitMix64(seed: seed)
      let replicas: [ReplicaID] = ["p", "q", "r"]
      var states = Self.indexedMaps(replicas.count)
      for _ in 0..<random.int(in: 1...80) {
        let at = random.int(in: 0...2)
        let key = "k\(random.int(in: 0...11))"
        switch random.int(in: 0...9) {
        case 0...5:
          states[at].update(key, by: replicas[at], default: GCounter()) {
            $0.increment(by: 1, replica: replicas[at])
          }
        case 6...7: states[at].remove(key)
        default: states[at].merge(states[random.int(in: 0...2)])
        }
      }
      for state in states {
        #expect(state.invariantViolations().isEmpty, "seed \(seed): \(state.invariantViolations())")
        let version = VersionVector(
          Dictionary(
            uniqueKeysWithValues: replicas.compactMap { replica in
              let counter = UInt64(random.int(in: 0...Int(state.context.maximum(of: replica) + 2)))
              return counter > 0 ? (replica, counter) : nil
            }))
        let indexed = state.delta(since: version)
        #expect(
          indexed == state.stateForm.delta(since: version),
          "seed \(seed): the indexed delta since \(version) differs from the scanned one")
        for other in states where other.context.versionVector.dominates(version) {
          guard let indexed else { continue }
          #expect(
            other.merging(indexed) == other.merging(state),
            "seed \(seed): the delta law fails through the index")
        }
      }
    }
  }
}
