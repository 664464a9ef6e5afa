import CRDTTestSupport
import SemanticCRDT
import SharedSupport
import Testing

@Suite("The property kit itself")
struct KitTests {
  @Test func splitMixMatchesTheReferenceSequence() {
    // Reference values of SplitMix64 (Steele et al.) for seed 0.
    var random = SplitMix64(seed: 0)
    #expect(random.next() == 0xE220_A839_7B1D_CDAF)
    #expect(random.next() == 0x6E78_9E6A_A1B9_65F4)
    var again = SplitMix64(seed: 0)
    #expect(again.next() == 0xE220_A839_7B1D_CDAF)
  }

  @Test func stableHashIsFNV1a() {
    #expect(stableHash("") == 0xCBF2_9CE4_8422_2325)
    #expect(stableHash("a") == 0xAF63_DC4C_8601_EC8C)
  }

  @Test func shrinkingFindsTheMinimalFailingSequence() {
    let steps = Array(0..<50)
    let (shrunk, message) = shrink(steps, message: "initial") { candidate in
      candidate.contains(3) && candidate.contains(41)
        ? "has 3 and 41 (\(candidate.count) steps)" : nil
    }
    #expect(shrunk == [3, 41])
    #expect(message == "has 3 and 41 (2 steps)")
  }

  @Test func aFailingPropertyReportsASeedThatReplaysTheFailure() throws {
    let generate = { (random: inout SplitMix64) -> [Int] in
      (0..<20).map { _ in random.int(in: 0...9) }
    }
    let failure = try #require(
      checkProperty("no seven", iterations: 100, generate: generate) { steps in
        steps.contains(7) ? "found a 7" : nil
      })
    #expect(failure.shrunkSteps == ["7"])
    #expect(failure.description.contains("FORAGER_SEED=\(failure.seed)"))
    var replay = SplitMix64(seed: failure.seed)
    #expect(generate(&replay).contains(7))
  }

  @Test func regressionSeedsRunFirst() throws {
    var seen: [UInt64] = []
    _ = checkProperty(
      "records seeds", iterations: 3, regressionSeeds: [42, 43],
      generate: { random in
        [random.next()]
      },
      check: { steps in
        seen.append(steps[0])
        return nil
      })
    var first = SplitMix64(seed: 42)
    var second = SplitMix64(seed: 43)
    #expect(Array(seen.prefix(2)) == [first.next(), second.next()])
    #expect(seen.count == 2 + PropertyEnvironment.iterations(default: 3))
  }

  @Test func aCounterWhoseMergeAddsIsCaught() throws {
    let failure = try #require(checkScenarios(SummingCounterModel.self, iterations: 200))
    #expect(!failure.shrunkSteps.isEmpty)
    #expect(failure.shrunkSteps.count <= 4, "shrunk to \(failure.shrunkSteps)")
  }

  @Test func aRegisterThatPrefersTheLeftSideOnTiesIsCaught() throws {
    let failure = try #require(checkScenarios(LeftBiasedRegisterModel.self, iterations: 300))
    #expect(
      failure.message.contains("Commutativity") || failure.message.contains("shows"),
      "\(failure.message)")
  }

  /// Random scenarios must exercise what the laws are about: concurrent merges, deltas, loss
  /// and duplication. A generator that never produced them would pass every law vacuously.
  @Test func scenariosExerciseConcurrencyDeltasAndFaults() {
    var statistics = ScenarioStatistics()
    var random = SplitMix64(seed: 7)
    for _ in 0..<200 {
      let scenario = ReplicaScenario<ORMapModel>.random(using: &random)
      #expect(scenario.run(statistics: &statistics) == nil)
    }
    #expect(statistics.operations > 2_000)
    #expect(statistics.deliveries > 500)
    #expect(statistics.deltaDeliveries > statistics.deliveries / 3)
    #expect(statistics.duplicatedDeliveries > 100)
    #expect(statistics.dropped > 100)
    #expect(statistics.mergesThatChangedState > statistics.deliveries / 4)
    #expect(statistics.concurrentMerges > statistics.deliveries / 10, "\(statistics)")
  }

  @Test func theORSetSpecificationIsAddWins() {
    typealias Op = ORSetModel.Operation
    let add = Event<Op>(
      id: 0, replica: "r0", operation: .add("a"), timestamp: stamp(1), observed: [])
    let remove = Event<Op>(
      id: 1, replica: "r1", operation: .remove("a"), timestamp: stamp(2), observed: [0])
    let concurrentAdd = Event<Op>(
      id: 2, replica: "r2", operation: .add("a"), timestamp: stamp(3), observed: [])
    #expect(ORSetModel.specification(of: [add]) == ["a"])
    #expect(ORSetModel.specification(of: [add, remove]) == [])
    #expect(ORSetModel.specification(of: [add, remove, concurrentAdd]) == ["a"])
  }

  @Test func theORMapSpecificationCountsConcurrentIncrements() {
    typealias Op = ORMapModel.Operation
    let one = Event<Op>(
      id: 0, replica: "r0", operation: .increment("k", by: 1), timestamp: stamp(1), observed: [])
    let two = Event<Op>(
      id: 1, replica: "r1", operation: .increment("k", by: 2), timestamp: stamp(1), observed: [])
    let after = Event<Op>(
      id: 2, replica: "r0", operation: .increment("k", by: 4), timestamp: stamp(2),
      observed: [0, 1])
    let removal = Event<Op>(
      id: 3, replica: "r1", operation: .remove("k"), timestamp: stamp(3), observed: [0, 1])
    #expect(ORMapModel.specification(of: [one, two]) == ["k": 3])
    #expect(ORMapModel.specification(of: [one, two, after]) == ["k": 7])
    #expect(ORMapModel.specification(of: [one, two, removal]) == [:])
    #expect(ORMapModel.specification(of: [one, two, after, removal]) == ["k": 7])
  }

  func stamp(_ wall: UInt64) -> HybridTimestamp {
    HybridTimestamp(wallMilliseconds: wall, replica: "r0")
  }
}
