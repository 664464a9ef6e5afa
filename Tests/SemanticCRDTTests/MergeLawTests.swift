import CRDTTestSupport
import SemanticCRDT
import Testing

/// Every Mergeable type of SemanticCRDT, through random replica scenarios: the reference model
/// at every step, mutation deltas, commutativity, associativity, idempotence, inflation, the
/// delta law, Codable round trips, and convergence after a full exchange.
///
/// `FORAGER_PROPERTY_ITERATIONS` scales the number of scenarios; `FORAGER_SEED` replays one.
@Suite("Merge laws and convergence, every type")
struct MergeLawTests {
  static let iterations = 200

  func expectHolds(_ failure: PropertyFailure?) {
    if let failure { Issue.record("\(failure)") }
  }

  @Test func orSet() {
    expectHolds(
      checkScenarios(
        ORSetModel.self, iterations: Self.iterations, regressionSeeds: RegressionSeeds.orSet))
  }

  @Test func orMap() {
    expectHolds(
      checkScenarios(
        ORMapModel.self, iterations: Self.iterations, regressionSeeds: RegressionSeeds.orMap))
  }

  @Test func orMapOfMVRegisters() {
    expectHolds(
      checkScenarios(
        MapOfRegistersModel.self, iterations: Self.iterations,
        regressionSeeds: RegressionSeeds.mapOfRegisters))
  }

  @Test func orMapOfORSets() {
    expectHolds(
      checkScenarios(
        MapOfSetsModel.self, iterations: Self.iterations,
        regressionSeeds: RegressionSeeds.mapOfSets))
  }

  @Test func orMapOfORMaps() {
    expectHolds(
      checkScenarios(
        MapOfMapsModel.self, iterations: Self.iterations,
        regressionSeeds: RegressionSeeds.mapOfMaps))
  }

  /// The maps again, each replica keeping the live-dot index: deltas read it, merges of small
  /// deltas find what they retire through it, and every step checks it holds the live dots.
  /// Half the scenarios by default: the four maps' laws are checked above, and rebuilding the
  /// index at every step made this the default run's longest test (46 s of a debug build).
  @Test func orMapsKeepingTheLiveDotIndex() {
    let iterations = Self.iterations / 2
    expectHolds(checkScenarios(Indexed<ORMapModel>.self, iterations: iterations))
    expectHolds(checkScenarios(Indexed<MapOfRegistersModel>.self, iterations: iterations))
    expectHolds(checkScenarios(Indexed<MapOfSetsModel>.self, iterations: iterations))
    expectHolds(checkScenarios(Indexed<MapOfMapsModel>.self, iterations: iterations))
  }

  @Test func lwwMap() {
    expectHolds(
      checkScenarios(
        LWWMapModel.self, iterations: Self.iterations, regressionSeeds: RegressionSeeds.lwwMap))
  }

  @Test func lwwRegister() {
    expectHolds(
      checkScenarios(
        LWWRegisterModel.self, iterations: Self.iterations,
        regressionSeeds: RegressionSeeds.lwwRegister))
  }

  @Test func mvRegister() {
    expectHolds(
      checkScenarios(
        MVRegisterModel.self, iterations: Self.iterations,
        regressionSeeds: RegressionSeeds.mvRegister))
  }

  @Test func gCounter() {
    expectHolds(checkScenarios(GCounterModel.self, iterations: Self.iterations))
  }

  @Test func maxRegister() {
    expectHolds(checkScenarios(MaxRegisterModel.self, iterations: Self.iterations))
  }

  @Test func pnCounter() {
    expectHolds(checkScenarios(PNCounterModel.self, iterations: Self.iterations))
  }

  @Test func versionVector() {
    expectHolds(checkScenarios(VersionVectorModel.self, iterations: Self.iterations))
  }

  /// Hybrid timestamps merge by maximum; checked on random triples biased to collide.
  @Test func hybridTimestamp() {
    struct Triple: CustomStringConvertible {
      let stamps: [HybridTimestamp]
      var description: String { stamps.map(\.description).joined(separator: ", ") }
    }
    let failure = checkProperty(
      "HybridTimestamp laws", iterations: PropertyEnvironment.iterations(default: Self.iterations),
      generate: { random in
        [
          Triple(
            stamps: (0..<3).map { _ in
              HybridTimestamp(
                wallMilliseconds: UInt64(random.int(in: 0...2)),
                logical: UInt32(random.int(in: 0...1)),
                replica: ReplicaID(random.pick(["a", "b"])))
            })
        ]
      },
      check: { triples in
        guard let stamps = triples.first?.stamps else { return nil }
        let (a, b, c) = (stamps[0], stamps[1], stamps[2])
        if a.merging(b) != b.merging(a) { return "not commutative" }
        if a.merging(b).merging(c) != a.merging(b.merging(c)) { return "not associative" }
        if a.merging(a) != a { return "not idempotent" }
        if a.merging(b) < a || a.merging(b) < b { return "not inflationary" }
        return checkCodableRoundTrip(a)
      })
    expectHolds(failure)
  }
}
