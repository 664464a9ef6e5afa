import CRDTTestSupport
import ForagerSync
import Testing

/// Random household workloads on 2–5 devices with random gossip (lost, duplicated, reordered,
/// full or delta) converge; at every step each device shows what the specification of the
/// operations it has seen says, and no semantic key has two records.
@Suite("Household convergence properties")
struct HouseholdPropertyTests {
  @Test func randomHouseholdWorkloadsConverge() {
    if let failure = checkScenarios(HouseholdModel.self, iterations: 150, maximumSteps: 50) {
      Issue.record("\(failure)")
    }
  }
}
