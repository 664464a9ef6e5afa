import CRDTTestSupport
import ForagerSimulation
import ForagerSync
import SemanticCRDT
import SharedSupport

/// ``HouseholdModel`` with operations drawn for the records' details: few categories,
/// recipes, plans, lists and meals, created, edited in detail, renamed, cleared, reassigned and
/// deleted, so that an edit of a detail often meets a concurrent removal or a new write of its
/// record. The household model draws the same edits among all its others, too rarely on a
/// record its device shows to check them (fewer than one scenario in eight did).
package enum HouseholdDetailsModel: CRDTModel {
  package typealias Operation = HouseholdModel.Operation

  package static let name = "Household details"

  package static func randomOperation(using random: inout SplitMix64) -> Operation {
    let index = random.int(in: 0...3)
    // One slot and its plan: a meal is edited, cleared, hidden by the deletion of its recipe
    // or plan, and assigned again, often.
    let slot = HouseholdModel.slots[0]
    let plan = HouseholdModel.plan(of: slot)
    return switch random.int(in: 0..<44) {
    case 0..<2: .createCategory(random.pick(["Produce", "Snacks", "produce "]))
    case 2..<3: .renameCategory(index: index, to: random.pick(["Produce", "Herbs"]))
    case 3..<4: .deleteCategory(index: index)
    case 4..<7:
      .addRecipe(
        random.pick(HouseholdModel.recipeTitles),
        id: RecipeID(uuid: HouseholdModel.uuid(4, random.next())))
    case 7..<9: .deleteRecipe(index: index)
    case 9..<11: .createPlan(plan)
    case 11..<12: .deletePlan(plan)
    case 12..<13: .createList(random.pick(HouseholdModel.lists))
    case 13..<14: .deleteList(random.pick(HouseholdModel.lists))
    case 14..<18: .assign(recipeIndex: index, slot: slot)
    case 18..<19: .assignIfFree(recipeIndex: index, slot: slot)
    case 19..<20: .reassign(recipeIndex: index, slot: slot)
    case 20..<21: .clearSlot(slot)
    case 21..<30:
      // The slot's index among the model's slots.
      .editDetail(
        random.pick(DetailEdit.edits(of: .meal)), index: 0,
        HouseholdModel.randomDetailValue(using: &random))
    default: HouseholdModel.randomDetailEdit(using: &random)
    }
  }

  package static func makeInitial() -> HouseholdState { HouseholdModel.makeInitial() }

  package static func apply(
    _ operation: Operation, to state: inout HouseholdState, replica: ReplicaID,
    timestamp: HybridTimestamp
  ) -> HouseholdState? {
    HouseholdModel.apply(operation, to: &state, replica: replica, timestamp: timestamp)
  }

  package static func observe(_ state: HouseholdState) -> HouseholdModel.Observation {
    HouseholdModel.observe(state)
  }

  package static func specification(of events: [Event<Operation>]) -> HouseholdModel.Observation {
    HouseholdModel.specification(of: events)
  }

  package static func isLessThanOrEqual(_ a: HouseholdState, _ b: HouseholdState) -> Bool {
    HouseholdModel.isLessThanOrEqual(a, b)
  }

  package static func invariantViolations(of state: HouseholdState) -> [String] {
    HouseholdModel.invariantViolations(of: state)
  }

  package static func stateForm(of delta: HouseholdState) -> HouseholdState { delta.stateForm }
}
