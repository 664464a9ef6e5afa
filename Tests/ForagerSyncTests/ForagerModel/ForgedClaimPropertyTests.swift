import CRDTTestSupport
import ForagerSync
import ForagerTestSupport
import Foundation
import SemanticCRDT
import SharedSupport
import Testing

/// Forged states that claim writes a replica has not made (past what any device writes, up to
/// 2⁴⁰, about honest devices' current incarnations, their earlier ones and replicas that do not
/// exist; or a little past what a device wrote, sent to that device) reach random honest
/// devices among their syncs, edits and restarts. After the honest devices
/// keep syncing, every category any of them created is on every one, every slot any of them
/// filled still shows a meal (an assignment is a write nested in the meal, which another device
/// may have written last), and they are equal: no claim hid a write for good, and no device
/// lost its own records to one (ADR 0029).
///
/// `FORAGER_PROPERTY_ITERATIONS` scales the number of runs (150 by default); `FORAGER_SEED`
/// replays one.
@Suite struct ForgedClaimPropertyTests {
  @Test func forgedClaimsHideNoHonestWrite() throws {
    for seed in PropertyEnvironment.seeds(default: 150) {
      if let failure = try run(seed: seed) {
        Issue.record("seed \(seed) (FORAGER_SEED=\(seed)): \(failure)")
        return
      }
    }
  }

  /// One run; the failure, if any.
  func run(seed: UInt64) throws -> String? {
    var random = SplitMix64(seed: seed)
    var devices = try RandomHousehold.newHousehold(
      HouseholdID(uuid: UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC96401")!), devices: 3
    ) { $0 == 0 ? "h0" : ReplicaID("h\($0)") }
    var created: [String] = []
    var trace: [String] = []
    // A recipe every device knows, for meals: a meal's assignment is a write nested in the
    // record, whose dot a forged claim can cover when another device wrote the record last.
    let recipe = try devices[0].addRecipe(title: "Soup").recipe.id
    for index in devices.indices.dropFirst() { try devices[index].merge(devices[0].state) }
    let slots = ["2024-12-10-dinner", "2024-12-11-lunch"].map { SlotKey(rawValue: $0)! }
    var assigned: Set<SlotKey> = []
    for step in 0..<50 {
      let index = random.int(in: 0..<devices.count)
      switch random.int(in: 0..<12) {
      case 10:
        let slot = random.pick(slots)
        _ = try devices[index].assignRecipe(recipe, to: slot, replacing: true)
        assigned.insert(slot)
        trace.append("h\(index) assigns \(slot)")
      case 11:
        // Another device's write of the meal, which carries the assignment as it was.
        if let meal = random.element(of: devices[index].plannedMeals()) {
          try devices[index].setSharingScope(
            meal.sharingScope == .household ? .ownerOnly : .household, of: .meal(meal.slot))
          trace.append("h\(index) rescopes \(meal.slot)")
        }
      case 0..<4:
        let name = "c\(step)"
        _ = try devices[index].getOrCreateCategory(displayName: name)
        created.append(name)
        trace.append("h\(index) creates \(name)")
      case 4..<6:
        let peer = random.int(in: 0..<devices.count)
        _ = try? devices[index].merge(devices[peer].state, policy: .allowingAnyRemoval)
        trace.append("h\(index) merges h\(peer)")
      case 6:
        // A restart: a fresh incarnation that knows the earlier ones (they are in its file).
        let old = devices[index]
        var restarted = HouseholdReplica(
          state: old.state, member: old.member,
          clock: HybridClock(
            replica: ReplicaID("h\(index)-\(step)"), wallClock: .fixed(1_000 + UInt64(step)),
            latest: old.clock.latest))
        restarted.pastIncarnations = old.pastIncarnations + [old.replicaID]
        devices[index] = restarted
        trace.append("h\(index) restarts")
      default:
        // A forged state: a device's state claiming a target's writes from 1 up to past the
        // last it made, sometimes without the target's categories (a forged removal of them
        // too). The claim's part beyond what the target made is what only the target can
        // tell is forged; removals of other replicas' records, which no one can tell from a
        // person's, are not this property's (docs/security.md).
        let source = devices[random.int(in: 0..<devices.count)]
        let victim = devices[random.int(in: 0..<devices.count)]
        let targets = [victim.replicaID] + victim.pastIncarnations + ["nobody-yet"]
        var target = targets[random.int(in: 0..<targets.count)]
        // Past what any device writes (2³²), up to the bound: every replica refuses it. Or a
        // little past what the merging device's current incarnation wrote, which it alone
        // tells, when it sees it before its writes or a restart overtake it (ADR 0029,
        // "Limits").
        var claimed =
          random.chance(0.5)
          ? Dot.maximumCounter
          : HouseholdState.plausibleWritesPerReplica + UInt64(random.int(in: 1...1_000_000))
        if random.chance(0.5) {
          target = devices[index].replicaID
          claimed =
            devices[index].state.greatestClaim(of: target) + UInt64(random.int(in: 1...1_000))
        }
        var forged = source.state
        if random.chance(0.5) {
          for key in forged.categories.keys(holdingDotsOf: [target]) {
            forged.categories.remove(key)
          }
        }
        forged.categories.merge(
          ORMap(
            kernel: DotKernel(
              entries: [:],
              context: CausalContext(replicas: [target: CounterSet([1...claimed])]))))
        forged.meals.merge(
          ORMap(
            kernel: DotKernel(
              entries: [:],
              context: CausalContext(replicas: [target: CounterSet([1...claimed])]))))
        _ = try? devices[index].merge(forged, policy: .allowingAnyRemoval)
        trace.append("h\(index) merges a state forged to claim \(target) to \(claimed)")
      }
    }
    // The honest devices keep syncing.
    for _ in 0..<3 {
      for receiver in devices.indices {
        for sender in devices.indices where sender != receiver {
          do {
            try devices[receiver].merge(devices[sender].state, policy: .allowingAnyRemoval)
          } catch {
            return "h\(receiver) refused h\(sender): \(error); \(trace.suffix(10))"
          }
        }
      }
    }
    for (index, device) in devices.enumerated() {
      let missing = created.filter { device.category(named: $0) == nil }
      if !missing.isEmpty { return "h\(index) lacks \(missing); \(trace.suffix(10))" }
      let empty = assigned.filter { device.plannedMeal($0)?.recipe == nil }
      if !empty.isEmpty { return "h\(index) lost the meal of \(empty); \(trace.suffix(10))" }
    }
    if devices.contains(where: { $0.state != devices[0].state }) {
      return "the honest devices differ after syncing; \(trace.suffix(10))"
    }
    return nil
  }
}
