import CRDTTestSupport
import SharedSupport
import Testing

@testable import SemanticCRDT

@Suite("Causal context and counter sets")
struct CausalContextTests {
  /// CounterSet against a plain Set<UInt64> over random inserts and unions: sets of like size,
  /// and a set of many intervals beside one of a few (a state's context, fragmented by
  /// removals, and a delta's), which unions, subsets and intersections serve by lookups.
  @Test(
    arguments: [(0...30, 0...30, 40), (60...200, 0...6, 400)]
      as [(ClosedRange<Int>, ClosedRange<Int>, UInt64)])
  func counterSetMatchesAPlainSet(
    sizes: ClosedRange<Int>, otherSizes: ClosedRange<Int>, largest: UInt64
  ) {
    var random = SplitMix64(seed: 2_026_11_22 &+ largest)
    for _ in 0..<300 {
      var counters = CounterSet()
      var model = Set<UInt64>()
      var other = CounterSet()
      var otherModel = Set<UInt64>()
      // A prefix now and then, so that unions reach, join and extend it.
      if random.chance(0.3) {
        let end = UInt64.random(in: 1...largest / 4, using: &random)
        counters = CounterSet([1...end])
        model.formUnion(1...end)
      }
      for _ in 0..<random.int(in: sizes) {
        let value = UInt64.random(in: 1...largest, using: &random)
        counters.insert(value)
        model.insert(value)
      }
      for _ in 0..<random.int(in: otherSizes) {
        // Runs as well as single counters, which may bridge intervals here.
        let start = UInt64.random(in: 1...largest, using: &random)
        let end = min(largest, start + UInt64(random.int(in: 0...3)))
        other.formUnion(CounterSet([start...end]))
        otherModel.formUnion(start...end)
      }
      if random.chance(0.2) {
        // A part of this set, so that subsets hold too.
        otherModel = model.filter { $0 > largest / 2 }
        other = counters.above(largest / 2)
      } else if random.chance(0.2) {
        // A prefix alone, as most contexts hold: differences from it take a shortcut.
        let end = UInt64.random(in: 1...largest, using: &random)
        other = CounterSet([1...end])
        otherModel = Set(1...end)
      }
      let members = { (set: CounterSet) in Set((1...largest + 5).filter { set.contains($0) }) }
      // The set a model makes, stored canonically: what every result must equal, not merely
      // hold the same counters as.
      let canonical = { (model: Set<UInt64>) in CounterSet(model.map { $0...$0 }) }
      #expect(members(counters) == model)
      #expect(counters == canonical(model))
      #expect(counters.count == UInt64(model.count))
      #expect(counters.maximum == model.max() ?? 0)
      // One run per counter whose predecessor is absent.
      #expect(counters.rangeCount == model.filter { !model.contains($0 - 1) }.count)
      #expect(counters.intersects(other) == !model.isDisjoint(with: otherModel))
      #expect(counters.isSubset(of: other) == model.isSubset(of: otherModel))
      let bound = UInt64.random(in: 0...largest, using: &random)
      #expect(counters.above(bound) == canonical(model.filter { $0 > bound }))
      // Excluded runs of any length, which may start in one interval and end in the next.
      let excluded = CounterSet.ranges(
        ofSorted: (1...largest + 5).filter { _ in random.next() % 3 == 0 } as [UInt64])
      let isExcluded = { (value: UInt64) in excluded.contains { $0.contains(value) } }
      #expect(
        counters.upTo(bound, excluding: excluded)
          == canonical(model.filter { $0 <= bound && !isExcluded($0) }))
      var union = counters
      union.formUnion(other)
      #expect(members(union) == model.union(otherModel))
      // Canonical: equal sets store equal values, whichever way the union was made.
      #expect(union == CounterSet(model.union(otherModel).map { $0...$0 }))
      var reversed = other
      reversed.formUnion(counters)
      #expect(reversed == union)
      #expect(other.intersects(counters) == counters.intersects(other))
      #expect(other.isSubset(of: counters) == otherModel.isSubset(of: model))
      #expect(counters.subtracting(other) == canonical(model.subtracting(otherModel)))
      #expect(other.subtracting(counters) == canonical(otherModel.subtracting(model)))
      // Per replica, and for a replica the other context has not seen.
      let here = CausalContext(replicas: ["a": counters, "b": other])
      let there = CausalContext(replicas: ["a": other])
      let difference = here.subtracting(there)
      #expect(
        Set((1...largest + 5).filter { difference.contains(Dot("a", $0)) })
          == model.subtracting(otherModel))
      #expect(Set((1...largest + 5).filter { difference.contains(Dot("b", $0)) }) == otherModel)
    }
  }

  @Test func contiguousDeliveryKeepsOnlyAPrefix() {
    var context = CausalContext()
    for counter in [3, 1, 2, 5, 4] as [UInt64] { context.insert(Dot("r", counter)) }
    #expect(context.versionVector == VersionVector(["r": 5]))
    #expect(context.description == "{r: 1…5}")
    context.insert(Dot("r", 9))
    #expect(context.versionVector == VersionVector(["r": 5]))
    #expect(context.maximum(of: "r") == 9)
    #expect(context.description == "{r: 1…5, 9…9}")
    #expect(context.nextDot(for: "r") == Dot("r", 10))
  }

  /// A context's runs are its replicas' runs, summed, the prefix counting as one.
  @Test func rangeCountSumsEveryReplicasRuns() {
    var context = CausalContext()
    #expect(context.rangeCount == 0)
    for counter in [1, 2, 3, 5, 7] as [UInt64] { context.insert(Dot("a", counter)) }
    context.insert(Dot("b", 2))
    #expect(context.rangeCount == 4)
    context.insert(Dot("a", 4))
    #expect(context.rangeCount == 3)
  }

  @Test func versionVectorOrderAndMeet() {
    let a = VersionVector(["x": 3, "y": 1])
    let b = VersionVector(["x": 2, "y": 4])
    #expect(!a.dominates(b) && !b.dominates(a))
    #expect(a.isConcurrent(with: b))
    #expect(a.merging(b) == VersionVector(["x": 3, "y": 4]))
    #expect(VersionVector.meet([a, b]) == VersionVector(["x": 2, "y": 1]))
    #expect(VersionVector.meet([a, VersionVector(["x": 9])]) == VersionVector(["x": 3]))
    #expect(VersionVector(["x": 0]) == VersionVector())
  }

  /// Contexts and versions against sets of dots and dictionaries, over random contexts of up
  /// to 20 replicas beside ones of a few (a delta's): joined in place by lookups or in one pass
  /// over both tables, subtracted, compared, and their versions joined, compared and met.
  @Test func contextsAndVersionsMatchSetsAndDictionaries() {
    let pool = (0..<20).map { ReplicaID("r\($0)") }
    var random = SplitMix64(seed: 2_026_12_06)
    func randomDots(replicas: ClosedRange<Int>) -> Set<Dot> {
      var dots: Set<Dot> = []
      for replica in random.shuffled(pool).prefix(random.int(in: replicas)) {
        for counter in 1...UInt64(12) where random.chance(0.6) {
          dots.insert(Dot(replica, counter))
        }
      }
      return dots
    }
    func context(of dots: Set<Dot>) -> CausalContext {
      var context = CausalContext()
      for dot in random.shuffled(dots.sorted()) { context.insert(dot) }
      return context
    }
    func prefixes(_ dots: Set<Dot>) -> [ReplicaID: UInt64] {
      var prefixes: [ReplicaID: UInt64] = [:]
      for replica in pool {
        var prefix: UInt64 = 0
        while dots.contains(Dot(replica, prefix + 1)) { prefix += 1 }
        if prefix > 0 { prefixes[replica] = prefix }
      }
      return prefixes
    }
    for round in 0..<400 {
      let mine = randomDots(replicas: 0...20)
      let theirs = randomDots(replicas: round.isMultiple(of: 2) ? 0...2 : 0...20)
      let (left, right) = (context(of: mine), context(of: theirs))
      #expect(Set(left.dots) == mine, "round \(round)")
      var joined = left
      joined.formUnion(right)
      #expect(Set(joined.dots) == mine.union(theirs), "round \(round)")
      #expect(joined == context(of: mine.union(theirs)), "round \(round): not canonical")
      #expect(Set(left.subtracting(right).dots) == mine.subtracting(theirs), "round \(round)")
      #expect(left.isSubset(of: right) == mine.isSubset(of: theirs), "round \(round)")
      #expect(left.isDisjoint(with: right) == mine.isDisjoint(with: theirs), "round \(round)")
      let (version, other) = (left.versionVector, right.versionVector)
      #expect(version == VersionVector(prefixes(mine)), "round \(round)")
      #expect(version.counters == prefixes(mine), "round \(round)")
      let covered = Set(mine.filter { $0.counter <= other[$0.replica] })
      #expect(Set(left.subtracting(other).dots) == mine.subtracting(covered), "round \(round)")
      let (a, b) = (prefixes(mine), prefixes(theirs))
      #expect(
        version.dominates(other) == b.allSatisfy { a[$0.key, default: 0] >= $0.value },
        "round \(round)")
      #expect(
        version.merging(other) == VersionVector(a.merging(b, uniquingKeysWith: max)),
        "round \(round)")
      let met = Dictionary(
        uniqueKeysWithValues: a.compactMap { key, value in b[key].map { (key, min(value, $0)) } })
      #expect(VersionVector.meet([version, other]) == VersionVector(met), "round \(round)")
      let newer = a.filter { $0.value > b[$0.key, default: 0] }
      #expect(version.delta(since: other) == (newer.isEmpty ? nil : VersionVector(newer)))
    }
  }
}
