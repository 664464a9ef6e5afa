// Two devices of one household, as an app would run them: a phone (the owner's) and a tablet
// (a second member's), each with its own HouseholdStore, offline edits on both, a shared folder
// between them, a relaunch, and a sync by messages. It prints the shopping list grouped by
// category and the meal plan with its conflict, and exits 1 if the devices do not agree.
import ForagerSync
import Foundation

let root = FileManager.default.temporaryDirectory
  .appendingPathComponent("forager-example-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: root) }
let sharedFolder = root.appendingPathComponent("iCloud Drive/Household")
try FileManager.default.createDirectory(at: sharedFolder, withIntermediateDirectories: true)
let phoneFile = root.appendingPathComponent("phone/Application Support/household.json")
let tabletFile = root.appendingPathComponent("tablet/Application Support/household.json")
var problems: [String] = []
@MainActor func check(_ condition: Bool, _ problem: String) {
  if !condition { problems.append(problem) }
}

// MARK: First launch on each device

var phone: HouseholdStore? = try await HouseholdStore(
  fileURL: phoneFile, firstLaunch: .createHousehold(ownerName: "Sam"))
let alex = MemberID()
try await phone!.edit { try $0.addMember(alex, name: "Alex") }
// The household id reaches the tablet out of band (a QR code, an invitation link).
let tablet = try await HouseholdStore(
  fileURL: tabletFile, firstLaunch: .join(phone!.householdID, member: alex))
let phoneFolder = phone!.folder(at: sharedFolder, deviceName: "phone")
let tabletFolder = tablet.folder(at: sharedFolder, deviceName: "tablet")

// A view model would follow the tablet's changes like this.
let tabletChanges = await tablet.changes()
let follower = Task {
  var seen: [HouseholdChange.Origin: Int] = [:]
  for await change in tabletChanges { seen[change.origin, default: 0] += 1 }
  return seen
}

// MARK: Offline on both devices

// Both seed the default categories before their first sync: seven, not fourteen, after it.
try await phone!.edit { _ = try $0.seedDefaultCategories() }
try await tablet.edit { _ = try $0.seedDefaultCategories() }

let (pizza, carbonara, list, plan) = try await phone!.edit { household in
  let pizza = try household.addRecipe(
    title: "Margherita pizza", ingredientLines: ["pizza dough", "tomatoes", "mozzarella"]
  ).recipe.id
  let carbonara = try household.addRecipe(
    title: "Carbonara", ingredientLines: ["spaghetti", "eggs", "guanciale"]
  ).recipe.id
  let list = try household.createWeeklyList(name: "This week").id
  let plan = try household.createMealPlan(name: "November").id
  // The details the app keeps: each its own register, so edits of different details on
  // different devices all survive.
  try household.setInstructions("Stretch the dough; bake 8 minutes at 250 °C.", ofRecipe: pizza)
  try household.setTimes(prepMinutes: 20, cookMinutes: 8, ofRecipe: pizza)
  try household.setDays(
    startingOn: CalendarDay(year: 2026, month: 11, day: 23), count: 7, ofPlan: plan)
  return (pizza, carbonara, list, plan)
}

try await phone!.edit { household in
  // Templates: a category and a display name set after creation, a staple.
  let mozzarella = try household.getOrCreateIngredient(named: "mozzarella").template.canonicalName
  try household.setCategory(CategoryKey(normalizing: "Dairy"), ofIngredient: mozzarella)
  try household.renameIngredient(mozzarella, to: "Mozzarella")  // the same key, shown capitalized
  try household.setStaple(true, ingredient: "olive oil")
  // Recipes: renamed (its title key follows), its lines edited.
  try household.renameRecipe(pizza, to: "Pizza Margherita")
  try household.setIngredientLines(
    ["pizza dough", "tomatoes", "mozzarella", "basil leaves"], ofRecipe: pizza)
  // Items: added from a recipe and by hand, edited, re-categorized, checked, removed.
  try household.addItems(fromRecipe: pizza, to: list)
  let lemons = try household.addItem("lemons", to: list).id
  try household.setCategory(CategoryKey(normalizing: "Produce"), ofItem: lemons)
  let milk = try household.addItem("milk", to: list).id
  try household.editItem(milk, text: "oat milk")
  try household.setChecked(true, item: milk)
  let napkins = try household.addItem("napkins", to: list).id
  try household.removeItem(napkins)
  // Lists and plans: renamed.
  try household.renameWeeklyList(list, to: "Groceries, week 48")
  try household.renameMealPlan(plan, to: "Late November")
  // Categories: one made and deleted (its records become uncategorized).
  let snacks = try household.getOrCreateCategory(displayName: "Snacks").category.normalizedName
  try household.deleteCategory(snacks)
  // Sharing: a recipe kept to the owner.
  try household.setSharingScope(.ownerOnly, of: .recipe(carbonara))
}

// The household's first folder sync: the phone publishes, the tablet merges.
_ = try await phone!.sync(through: phoneFolder)
_ = try await tablet.sync(through: tabletFolder)

// Categories renamed and reordered once both devices have the defaults. (Renamed before the
// tablet's offline seed was merged, "Pantry" would stay beside "Dry goods": the seed is a
// concurrent write of that key, and a record written while it moves stays; see ADR 0012.)
try await tablet.edit { household in
  try household.renameCategory(CategoryKey(normalizing: "Pantry"), to: "Dry goods")
  try household.reorderCategories(
    ["produce", "bakery", "dairy", "meat & seafood", "frozen", "dry goods", "household"].map {
      CategoryKey(normalizing: $0)
    })
}

// Offline again, both plan tonight's dinner: the slot is the day and the meal, so both choices
// land on one record and surface as a conflict instead of a double booking.
let tonight = SlotKey(day: CalendarDay(year: 2026, month: 11, day: 24)!, mealType: .dinner)
try await phone!.edit { _ = try $0.assignRecipe(pizza, to: tonight, in: plan) }
let soup = try await tablet.edit { household in
  let soup = try household.addRecipe(title: "Lentil soup", ingredientLines: ["red lentils"])
    .recipe.id
  _ = try household.assignRecipe(soup, to: tonight, in: plan)
  return soup
}
// An occupied slot is never overwritten by accident: the second assignment is refused.
do {
  try await tablet.edit { _ = try $0.assignRecipe(pizza, to: tonight) }
  check(false, "an occupied slot accepted another recipe without `replacing: true`")
} catch let error as HouseholdError {
  print("refused: \(error.localizedDescription)")
}
try await tablet.edit { household in
  let list = household.weeklyLists()[0].id
  _ = try household.addItem("bread", to: list)
  _ = try household.addItem("Lemons", to: list)  // the same template as the phone's lemons
}

// Still offline, each edits other details of the same records: every detail is its own
// last-writer-wins register, so all of them survive the sync, not one device's whole record.
try await phone!.edit { household in
  try household.setNotes("Double the basil.", ofMealIn: tonight)
  try household.setFavorite(true, ofRecipe: pizza)
  try household.setColor("#2E7D32", ofCategory: CategoryKey(normalizing: "Produce"))
  try household.setActive(true, ofPlan: plan)
}
try await tablet.edit { household in
  try household.setServings(4, ofMealIn: tonight)
  try household.setScaleFactor(2, ofMealIn: tonight)
  try household.setServings(2, ofRecipe: pizza)
  try household.setSourceURL(URL(string: "https://example.com/margherita"), ofRecipe: pizza)
  try household.setNotes("Market on Saturday.", ofList: list)
}

// MARK: A relaunch of the phone, then both syncs

try await phone!.flush()
phone = nil  // the app is terminated
let relaunched = try await HouseholdStore(
  fileURL: phoneFile, firstLaunch: .createHousehold(ownerName: "Sam"))
check(!relaunched.isFirstLaunch, "the relaunch created a second household")

_ = try await tablet.sync(through: tabletFolder)
_ = try await relaunched.sync(through: phoneFolder)
_ = try await tablet.sync(through: tabletFolder)

// Later, on a local network: messages, a delta each way since what the other has seen.
for _ in 0..<2 {
  try await tablet.receive(await relaunched.syncMessage(forPeer: "tablet"), fromPeer: "phone")
  try await relaunched.receive(await tablet.syncMessage(forPeer: "phone"), fromPeer: "tablet")
}
try await tablet.edit { household in
  guard let bread = household.items(in: list).first(where: { $0.displayName == "bread" }) else {
    return
  }
  try household.setChecked(true, item: bread.id)
}
let delta = await tablet.syncMessage(forPeer: "phone")
print("a delta of one checked item: \(delta.encoded().count) bytes")
try await relaunched.receive(SyncMessage(decoding: delta.encoded()), fromPeer: "tablet")
try await relaunched.flush()
try await tablet.flush()

// MARK: What the devices show

let phoneView = await relaunched.replica
let tabletView = await tablet.replica
check(phoneView.state == tabletView.state, "the devices differ after syncing")
check(phoneView.categories().count == 7, "\(phoneView.categories().count) categories, not 7")

print("\n\(phoneView.weeklyLists().map(\.displayName).joined())")
for section in phoneView.itemsByCategory(in: list) {
  print("  \(section.category?.displayName ?? "Uncategorized")")
  for item in section.items {
    print("    [\(item.isChecked ? "x" : " ")] \(item.displayName)")
  }
}
print("\n\(phoneView.mealPlans().map(\.displayName).joined())")
for meal in phoneView.plannedMeals() {
  let title = { (id: RecipeID) in phoneView.recipe(id)?.displayName ?? "?" }
  let others = meal.conflictingRecipes
  print(
    "  \(meal.slotKey): \(meal.recipe.map(title) ?? "-")"
      + (others.isEmpty ? "" : " (in conflict with \(others.map(title).joined(separator: ", ")))"))
}
check(phoneView.conflictedSlots() == [tonight], "tonight's dinner shows no conflict")
let pizzaRecipe = phoneView.recipe(pizza)
print("\n\(pizzaRecipe?.displayName ?? "?"): \(pizzaRecipe?.instructions ?? "")")
check(
  pizzaRecipe?.prepTimeMinutes == 20 && pizzaRecipe?.cookTimeMinutes == 8,
  "the pizza's times did not reach the tablet")
let dinner = phoneView.plannedMeal(tonight)
check(
  Set([dinner?.recipe].compactMap { $0 } + (dinner?.conflictingRecipes ?? [])) == [pizza, soup],
  "lost a choice")
print(
  "tonight: \(dinner?.notes ?? "") for \(dinner?.servings ?? 0), "
    + "\(dinner?.scaleFactor ?? 0)× the recipe")
check(
  dinner?.notes == "Double the basil." && dinner?.servings == 4 && dinner?.scaleFactor == 2,
  "a detail of tonight's dinner was lost")
check(
  pizzaRecipe?.isFavorite == true && pizzaRecipe?.servings == 2
    && pizzaRecipe?.sourceURL?.absoluteString == "https://example.com/margherita",
  "a detail of the pizza was lost")
check(
  phoneView.category(CategoryKey(normalizing: "Produce"))?.displayColor == "#2E7D32"
    && phoneView.weeklyLists().first { $0.id == list }?.notes == "Market on Saturday."
    && phoneView.mealPlans().first { $0.id == plan }?.isActive == true,
  "a detail of a category, list or plan was lost")

follower.cancel()
let told = await follower.value
print("\nthe tablet's views heard \(told[.local] ?? 0) local and \(told[.peer] ?? 0) peer changes")
check(told[.local] ?? 0 > 0 && told[.peer] ?? 0 > 0, "the tablet's change stream missed changes")
if !problems.isEmpty {
  print("\nFAILED:\n  " + problems.joined(separator: "\n  "))
  exit(1)
}
print("\nboth devices agree")
