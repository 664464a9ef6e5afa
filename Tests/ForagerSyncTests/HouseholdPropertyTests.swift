import CRDTTestSupport
import ForagerSync
import Testing

/// Random household workloads on 2–5 devices with random gossip (lost, duplicated, reordered,
/// full or delta) converge; at every step each device shows what the specification of the
/// operations it has seen says, and no semantic key has two records.
@Suite("Household convergence properties")
struct HouseholdPropertyTests {
  /// Seeds that once failed:
  /// - a slot cleared and assigned again minted the dot of its first assignment, so a device
  ///   that had seen that one and assigned concurrently dropped the new assignment (ADR 0011).
  /// - a device's first use of a template reset the staple flag and category another device
  ///   had imported (a creation's defaults overwrote choices, ADR 0013);
  /// - importing brought back a category name a rename had moved away;
  /// - a device's first use of an ingredient undid a respelling of it made elsewhere (a new
  ///   template's name, its key, was stamped as a choice; ADR 0013);
  /// - a device that had not seen a rename of a default seeded the defaults and brought the
  ///   old name back beside the new one (8 categories, not 7): seeding is no one's choice, so
  ///   it must not resurrect a key a person moved (the last seed; found once the
  ///   specification said so, on the first run against the old build).
  ///
  /// And a seed that reaches what a common draw rarely does: an item whose category is
  /// deleted and then created again under its name (an implementation that did not clear the
  /// item's category passed 300 random cases and failed on this one).
  /// (The first seed was drawn by an earlier operation generator: it now replays a different
  /// scenario; the composition models' seeds and `NestedDotTests` keep that defect covered.)
  ///
  /// And, again, seeding that wrote to a category that already existed (to mark it a default)
  /// brought back one a person had renamed away on a device the seeder had not heard from: an
  /// edit concurrent with a removal wins it (the last seed; ADR 0036).
  static let regressionSeeds: [UInt64] = [
    17_563_888_367_919_962_994, 11_955_049_017_969_891_741, 918_154_846_947_613_524,
    1_324_768_572_279_165_244, 1_826_423_074_191_814_884, 9_239_809_481_135_174_651,
    5_627_541_346_394_231_908,
  ]

  @Test func randomHouseholdWorkloadsConverge() {
    if let failure = checkScenarios(
      HouseholdModel.self, iterations: 150, maximumSteps: 90,
      regressionSeeds: Self.regressionSeeds)
    {
      Issue.record("\(failure)")
    }
  }
}
