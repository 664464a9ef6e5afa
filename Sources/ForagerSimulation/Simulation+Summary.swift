import ForagerSync
import SemanticCRDT

extension Simulation {
  /// Fills the report's figures for each household, and the old design's.
  mutating func summarize() {
    report.households = householdDevices.enumerated().map { household, members in
      let state = finalState(of: household)
      var summary = SimulationReport.HouseholdSummary()
      summary.devices = members.count
      summary.categoriesPerDevice = members.map {
        devices[$0].replica?.state.categories.count ?? 0
      }
      summary.templates = state.ingredients.count
      summary.recipes = state.recipes.count
      summary.lists = state.lists.count
      summary.items = state.items.count
      summary.plans = state.plans.count
      summary.meals = state.meals.count
      let running = runningDevices(of: household).compactMap { devices[$0].replica }
      summary.conflictedSlots = running.first?.conflictedSlots().count ?? 0
      var incarnations = Set<ReplicaID>()
      for part in state.contexts { incarnations.formUnion(part.versionVector.counters.keys) }
      summary.incarnations = incarnations.count
      return summary
    }
    guard configuration.baseline else { return }
    report.baseline = householdDevices.enumerated().map { household, members in
      let legacy = devices[members[0]].legacy
      var summary = SimulationReport.BaselineSummary()
      let categories = legacy.live(.category)
      summary.categories = categories.count
      summary.categoryNames = Set(categories.map(\.key)).count
      let templates = legacy.live(.ingredient)
      summary.templates = templates.count
      summary.templateNames = Set(templates.map(\.key)).count
      summary.incrementsMade = legacyIncrements[household]
      summary.incrementsCounted = (templates + legacy.live(.recipe)).reduce(0) {
        $0 + $1.usageCount
      }
      let meals = legacy.live(.meal)
      summary.meals = meals.count
      summary.doubleBookedSlots =
        Dictionary(grouping: meals, by: \.key).values.filter {
          $0.count > 1
        }.count
      return summary
    }
  }
}
