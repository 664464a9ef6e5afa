import CRDTTestSupport
import ForagerSync
import ForagerTestSupport
import SemanticCRDT
import Testing

/// Devices on normalizer v1 and v2 in one household: v2 reads "a pinch of salt" as "salt",
/// v1 as "pinch of salt". States keyed by v1 are re-keyed on open and on merge, and the
/// records that collide become one.
@Suite("Normalizer versions and re-keying")
struct RekeyingTests {
  let household = HouseholdID()
  let sam = MemberID()

  func oldDevice(_ replica: ReplicaID) -> HouseholdReplica {
    HouseholdReplica(
      olderBuild: HouseholdState(householdID: household, normalizerVersion: .v1), member: sam,
      clock: HybridClock(replica: replica, wallClock: .fixed(1_000)))
  }

  @Test func aVersionOneStateMergesIntoVersionTwoAndCollidingTemplatesBecomeOne() throws {
    var old = oldDevice("old-phone")
    try old.recordUse(ofIngredient: "a pinch of salt")
    try old.recordUse(ofIngredient: "a pinch of salt")
    let list = try old.createWeeklyList(name: "This Week")
    try old.addItem("a pinch of salt", to: list.id)
    #expect(old.ingredients().map(\.key.rawValue) == ["pinch of salt"])

    var new = HouseholdReplica(
      joining: household, member: sam, replica: "new-phone", wallClock: .fixed(1_000))
    try new.recordUse(ofIngredient: "salt")

    var viaMerge = new
    try viaMerge.merge(old.state)
    var viaOpen = HouseholdReplica(
      state: old.state, member: sam,
      clock: HybridClock(replica: "restored", wallClock: .fixed(1_000)))
    try viaOpen.merge(new.state)

    for replica in [viaMerge, viaOpen] {
      #expect(replica.state.normalizerVersion == .v2)
      #expect(replica.ingredients().map(\.key.rawValue) == ["salt"])
      #expect(replica.ingredient(named: "salt")?.usageCount == 3)
      #expect(replica.items(in: list.id).map(\.templateKey.rawValue) == ["salt"])
      #expect(replica.consolidatedItems(in: list.id).count == 1)
      #expect(replica.state.invariantViolations().isEmpty)
    }
    #expect(viaMerge.state == viaOpen.state)
  }

  @Test func aStateKeyedByANewerNormalizerIsRefused() throws {
    var phone = HouseholdReplica(
      joining: household, member: sam, replica: "phone", wallClock: .fixed(1_000))
    let future = HouseholdState(
      householdID: household, normalizerVersion: NormalizerVersion(rawValue: 99))
    let before = phone.state
    #expect(
      throws: HouseholdError.newerNormalizer(found: NormalizerVersion(rawValue: 99), supported: .v2)
    ) {
      try phone.merge(future)
    }
    #expect(phone.state == before)
    #expect(
      "\(HouseholdError.newerNormalizer(found: NormalizerVersion(rawValue: 99), supported: .v2))"
        == "The state was keyed by normalizer version 99; this build supports up to 2")
  }

  /// Re-keying is a pure function of the state that commutes with merge, so replicas that
  /// upgrade at different times still converge.
  @Test func rekeyingCommutesWithMerge() {
    struct Step: CustomStringConvertible {
      let device: Int
      let operation: HouseholdModel.Operation?
      var description: String {
        operation.map { "d\(device): \($0)" } ?? "d\(device) merges the other"
      }
    }
    let failure = checkProperty(
      "re-keying commutes with merge", iterations: PropertyEnvironment.iterations(default: 200),
      generate: { random in
        (0..<random.int(in: 1...30)).map { _ in
          Step(
            device: random.int(in: 0...1),
            operation: random.chance(0.8) ? HouseholdModel.randomOperation(using: &random) : nil)
        }
      },
      check: { steps in
        var states = [0, 1].map { _ in
          HouseholdState(householdID: HouseholdModel.household, normalizerVersion: .v1)
        }
        for (index, step) in steps.enumerated() {
          let other = 1 - step.device
          guard let operation = step.operation else {
            states[step.device].merge(states[other])
            continue
          }
          let latest = states[step.device].greatestTimestamp.map {
            ($0.wallMilliseconds, $0.logical)
          }
          var device = HouseholdReplica(
            olderBuild: states[step.device], member: HouseholdModel.member,
            clock: HybridClock(
              replica: ReplicaID("d\(step.device)"), wallClock: .fixed(1_000 + UInt64(index)),
              latest: latest))
          HouseholdModel.perform(operation, on: &device)
          states[step.device] = device.state
        }
        let (a, b) = (states[0], states[1])
        let mergedThenRekeyed = a.merging(b).rekeyed(to: .v2)
        let rekeyedThenMerged = a.rekeyed(to: .v2).merging(b.rekeyed(to: .v2))
        if mergedThenRekeyed != rekeyedThenMerged { return "rekey(a ⊔ b) ≠ rekey(a) ⊔ rekey(b)" }
        if let problem = mergedThenRekeyed.invariantViolations().first {
          return "after re-keying: \(problem)"
        }
        return nil
      })
    if let failure { Issue.record("\(failure)") }
  }
}
