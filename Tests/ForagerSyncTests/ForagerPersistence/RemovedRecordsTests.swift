import ForagerSync
import ForagerTestSupport
import Foundation
import SemanticCRDT
import Testing

/// What a merge removes stays recoverable on the device for a while: listed, restored as new
/// writes that win over the removal everywhere, saved with the replica, forgotten once old.
@Suite("Records a merge removed")
struct RemovedRecordsTests {
  let home = HouseholdID()
  let ana = MemberID()
  static let start: UInt64 = 1_733_788_800_000
  static let day: UInt64 = 24 * 60 * 60 * 1000

  func phone(at milliseconds: UInt64 = start) throws -> HouseholdReplica {
    var phone = HouseholdReplica.create(
      household: home, owner: ana, ownerName: "Ana", replica: "phone",
      wallClock: .fixed(milliseconds))
    try phone.seedDefaultCategories()
    try phone.recordUse(ofIngredient: "salt")
    try phone.recordUse(ofIngredient: "salt")
    return phone
  }

  func tablet(of phone: HouseholdReplica, at milliseconds: UInt64 = start + 1) throws
    -> HouseholdReplica
  {
    var tablet = HouseholdReplica(
      joining: home, member: ana, replica: "tablet", wallClock: .fixed(milliseconds))
    try tablet.merge(phone.state)
    return tablet
  }

  @Test func aDeletedListComesBackWithItsItemsOnEveryDevice() throws {
    var phone = try phone()
    let list = try phone.createWeeklyList(name: "Week 48")
    try phone.addItem("2 lemons", to: list.id)
    try phone.addItem("basil", to: list.id)
    var tablet = try tablet(of: phone)
    try phone.deleteWeeklyList(list.id)
    try tablet.merge(phone.state)
    #expect(tablet.weeklyLists().isEmpty)

    let removal = try #require(tablet.recentlyRemoved.first)
    #expect(tablet.recentlyRemoved.count == 1)
    #expect(removal.recordCount == 3)
    #expect(removal.weeklyLists.map(\.displayName) == ["Week 48"])
    #expect(Set(removal.items.map(\.displayName)) == ["2 lemons", "basil"])
    #expect(removal.removedAtMilliseconds == Self.start + 1)

    _ = tablet.takeLocalChanges()
    #expect(try tablet.restore(removal.id) == 3)
    #expect(tablet.recentlyRemoved.isEmpty)
    // A restore tells the views what came back.
    let restored = tablet.takeLocalChanges()
    #expect(restored.added.count == 3 && restored.keys(of: .list).added == [.list(list.id)])
    #expect(tablet.weeklyLists().map(\.displayName) == ["Week 48"])
    #expect(tablet.items(in: list.id).count == 2)
    // The restore is an add: the device that deleted the list gets it back, and both agree.
    try phone.merge(tablet.state)
    try tablet.merge(phone.state)
    #expect(phone.items(in: list.id).count == 2)
    #expect(phone.state == tablet.state)
  }

  @Test func aForgedWipeThePersonAllowedCanBeUndone() throws {
    let phone = try phone()
    var tablet = try tablet(of: phone)
    var wiped = phone.state
    for key in wiped.members.keys { wiped.members.remove(key) }
    for key in wiped.categories.keys { wiped.categories.remove(key) }
    for key in wiped.ingredients.keys { wiped.ingredients.remove(key) }
    try tablet.merge(wiped, policy: .allowingAnyRemoval)
    #expect(tablet.categories().isEmpty && tablet.members().isEmpty)

    let removal = try #require(tablet.recentlyRemoved.first)
    #expect(removal.categories.count == 7 && removal.members.count == 1)
    #expect(removal.ingredients.map(\.usageCount) == [2])
    try tablet.restore(removal.id)
    #expect(tablet.categories().count == 7)
    #expect(tablet.members().map(\.displayName) == ["Ana"])
    #expect(tablet.ingredient(named: "salt")?.usageCount == 2)
    // The forged state merged again removes nothing the restore wrote.
    try tablet.merge(wiped, policy: .allowingAnyRemoval)
    #expect(tablet.categories().count == 7)
  }

  /// Kept records with dots of their own (a slot's assignment) save, reopen and restore.
  @Test func aDeletedMealPlanIsKeptWithItsMealsThroughASave() throws {
    var phone = try phone()
    let plan = try phone.createMealPlan(name: "December")
    let recipe = try phone.addRecipe(title: "Soup", ingredientLines: ["leeks"]).recipe
    let slot = SlotKey(rawValue: "2024-12-10-dinner")!
    try phone.assignRecipe(recipe.id, to: slot, in: plan.id)
    var tablet = try tablet(of: phone)
    try phone.deleteMealPlan(plan.id)
    try tablet.merge(phone.state)
    #expect(tablet.recentlyRemoved.first?.plannedMeals.map(\.slot) == [slot])
    let folder = TemporaryFolder()
    var store = ReplicaStore(fileURL: folder.file("tablet.forager.json"))
    try store.save(tablet)
    var reopened = try store.open(household: home, member: ana, wallClock: .fixed(Self.start + 2))
    #expect(reopened.recentlyRemoved == tablet.recentlyRemoved)
    try reopened.restore(try #require(reopened.recentlyRemoved.first).id)
    #expect(reopened.plannedMeal(slot)?.recipe == recipe.id)
  }

  @Test func aRenamedCategoryIsNotKeptAsRemoved() throws {
    var phone = try phone()
    var tablet = try tablet(of: phone)
    try phone.renameCategory(CategoryKey(normalizing: "Produce"), to: "Fresh produce")
    try tablet.merge(phone.state)
    #expect(tablet.category(named: "Fresh produce") != nil)
    #expect(tablet.recentlyRemoved.isEmpty)
  }

  @Test func aRestoreThatWouldDangleIsRefusedAndChangesNothing() throws {
    var phone = try phone()
    let list = try phone.createWeeklyList(name: "Week 48")
    try phone.addItem("basil", to: list.id)
    var tablet = try tablet(of: phone)
    // First the item goes (with its list), then, in another merge, its template.
    try phone.deleteWeeklyList(list.id)
    try tablet.merge(phone.state)
    var forged = phone.state
    forged.ingredients.remove(IngredientKey(normalizing: "basil"))
    try tablet.merge(forged)
    let (templateRemoval, listRemoval) = (tablet.recentlyRemoved[0], tablet.recentlyRemoved[1])
    #expect(templateRemoval.ingredients.map(\.key.rawValue) == ["basil"])

    let before = tablet.state
    #expect(throws: HouseholdError.self) { try tablet.restore(listRemoval.id) }
    #expect(tablet.state == before)
    #expect(tablet.recentlyRemoved.count == 2)
    // In order, both come back.
    try tablet.restore(templateRemoval.id)
    try tablet.restore(listRemoval.id)
    #expect(tablet.items(in: list.id).map(\.displayName) == ["basil"])
    #expect(throws: HouseholdError.unknownRemoval(listRemoval.id)) {
      try tablet.restore(listRemoval.id)
    }
  }

  @Test func removalsAreSavedWithTheReplicaAndForgottenOnceOld() throws {
    var phone = try phone()
    let list = try phone.createWeeklyList(name: "Week 48")
    var tablet = try tablet(of: phone)
    let withList = phone.state
    try phone.deleteWeeklyList(list.id)
    try tablet.merge(phone.state)
    let folder = TemporaryFolder()
    var store = ReplicaStore(fileURL: folder.file("tablet.forager.json"))
    try store.save(tablet)

    // Reopened the next day: still there.
    var reopened = try store.open(
      household: home, member: ana, wallClock: .fixed(Self.start + Self.day))
    #expect(reopened.recentlyRemoved == tablet.recentlyRemoved)
    // After the keeping time, the next merge forgets it, unless the policy keeps them longer.
    let later = Self.start + 31 * Self.day
    reopened = try store.open(household: home, member: ana, wallClock: .fixed(later))
    let longer = MergePolicy(keepsRemovedRecordsFor: .seconds(90 * 24 * 60 * 60))
    try reopened.merge(phone.state, policy: longer)
    #expect(reopened.recentlyRemoved.count == 1)
    try reopened.merge(phone.state)
    #expect(reopened.recentlyRemoved.isEmpty)

    // A policy that keeps nothing keeps nothing.
    var watch = HouseholdReplica(
      joining: home, member: ana, replica: "watch", wallClock: .fixed(Self.start))
    try watch.merge(withList)
    try watch.merge(phone.state, policy: MergePolicy(keepsRemovedRecordsFor: .zero))
    #expect(watch.weeklyLists().isEmpty)
    #expect(watch.recentlyRemoved.isEmpty)
  }
}
