import CRDTTestSupport
import ForagerSimulation
import ForagerSync
import ForagerTestSupport
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
      HouseholdModel.self, iterations: 80, maximumSteps: 90,
      regressionSeeds: Self.regressionSeeds)
    {
      Issue.record("\(failure)")
    }
  }

  /// Seeds where an edit of a detail met a concurrent removal of its record and kept it (a
  /// category's color against its deletion; a meal's scale against the clearing of its slot,
  /// which keeps the meal's recipe too): the specification's first draft said otherwise.
  ///
  /// And a seed where replicas' accented ids arrived decomposed and sorted elsewhere than the
  /// same ids composed (the last; the first of `regressionSeeds` found it too).
  static let detailRegressionSeeds: [UInt64] = [
    16_442_389_999_490_686_811, 5_057_679_027_448_622_328, 13_025_522_871_397_655_495,
  ]

  /// The records' details (ADR 0036) against the specification, with the records they belong
  /// to created, removed and written anew around them.
  @Test func recordDetailsConverge() {
    if let failure = checkScenarios(
      HouseholdDetailsModel.self, iterations: 80, maximumSteps: 90,
      regressionSeeds: Self.detailRegressionSeeds)
    {
      Issue.record("\(failure)")
    }
  }

  /// A slot whose meal shows nothing (its recipe was deleted) is free: assigning to it makes a
  /// new meal, without the details of the hidden one. Random scenarios rarely delete every
  /// recipe of a meal that has details and then assign again on one device; an implementation
  /// that kept the hidden meal's notes passed them.
  @Test func aMealAssignedWhereItsRecipeWasDeletedStartsWithoutItsDetails() {
    let slot = HouseholdModel.slots[0]
    let operations: [HouseholdModel.Operation] = [
      .createPlan(HouseholdModel.plan(of: slot)),
      .addRecipe("Waffles", id: RecipeID(uuid: HouseholdModel.uuid(4, 1))),
      .assign(recipeIndex: 0, slot: slot),
      .editDetail(.mealNotes, index: 0, DetailEdit.Value(count: 2, flag: true, text: "Early")),
      .deleteRecipe(index: 0),
      .addRecipe("Pancakes", id: RecipeID(uuid: HouseholdModel.uuid(4, 2))),
      .assign(recipeIndex: 0, slot: slot),
    ]
    let scenario = ReplicaScenario<HouseholdDetailsModel>(
      replicas: ["r0", "r1"], skews: [0, 0],
      steps: operations.map { .operate(replica: 0, $0, advance: 1) } + [
        .send(from: 0, to: 1, .full)
      ])
    let failure = scenario.run()
    #expect(failure == nil, "\(failure ?? "")")
  }
}
