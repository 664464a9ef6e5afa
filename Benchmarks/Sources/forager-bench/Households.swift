import ForagerSync
import Foundation
import SemanticCRDT

/// The states the benchmarks measure, built through the public API as an app would.
enum Households {
  static let household = HouseholdID(
    uuid: UUID(uuidString: "B0000000-0000-4000-8000-000000000001")!)
  static let member = MemberID(uuid: UUID(uuidString: "B0000000-0000-4000-8000-000000000002")!)

  static func replica(_ name: ReplicaID = "bench-phone") -> HouseholdReplica {
    HouseholdReplica(
      joining: household, member: member, replica: name, wallClock: .fixed(1_733_788_800_000))
  }

  /// `n` categories named "Category 0" …
  static func categories(_ n: Int) -> HouseholdReplica {
    var replica = replica()
    for index in 0..<n { _ = try! replica.getOrCreateCategory(displayName: "Category \(index)") }
    return replica
  }

  /// `n` records in the proportions of a real household: 20% categories, 30% ingredient
  /// templates, 1% recipes with five lines, 10% planned meals (one per day), 0.1% lists,
  /// 0.01% meal plans, and grocery items for the rest (about 39%). Recipes are few because
  /// `addRecipe` looks for similar titles among all recipes, O(recipes) per add.
  static func mixed(_ n: Int) -> HouseholdReplica {
    var replica = replica()
    let listCount = max(1, n / 1000)
    let planCount = max(1, n / 10_000)
    let categoryCount = n / 5
    let ingredientCount = n * 3 / 10
    let recipeCount = max(1, n / 100)
    let mealCount = n / 10
    let itemCount =
      n - listCount - planCount - categoryCount - ingredientCount - recipeCount - mealCount
    for index in 0..<categoryCount {
      _ = try! replica.getOrCreateCategory(displayName: "Aisle \(index)")
    }
    for index in 0..<ingredientCount {
      _ = try! replica.getOrCreateIngredient(named: "ingredient \(spelled(index))")
    }
    let recipes = (0..<recipeCount).map { index in
      let lines = (0..<5).map {
        "\($0 + 1) cups ingredient \(spelled((index + $0) % ingredientCount))"
      }
      return try! replica.addRecipe(title: "Recipe \(index)", ingredientLines: lines).recipe.id
    }
    let lists = (0..<listCount).map { try! replica.createWeeklyList(name: "Week \($0)").id }
    let plans = (0..<planCount).map { try! replica.createMealPlan(name: "Plan \($0)").id }
    for index in 0..<itemCount {
      _ = try! replica.addItem(
        "ingredient \(spelled(index % ingredientCount))", to: lists[index % listCount])
    }
    let days = (2000...2200).lazy.flatMap { year in
      (1...12).lazy.flatMap { month in
        (1...28).lazy.map { CalendarDay(year: year, month: month, day: $0)! }
      }
    }
    for (index, day) in days.prefix(mealCount).enumerated() {
      _ = try! replica.assignRecipe(
        recipes[index % recipeCount], to: SlotKey(day: day, mealType: .dinner),
        in: plans[index % planCount])
    }
    precondition(replica.state.recordCount == n, "built \(replica.state.recordCount) records")
    return replica
  }

  /// `index` in letters ("b", "c", … "ba"): ingredient names lose their digits to the
  /// quantity rule of the normalizer, so distinct templates need distinct words.
  static func spelled(_ index: Int) -> String {
    var index = index
    var letters: [Character] = []
    repeat {
      letters.append(Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8(index % 26))))
      index /= 26
    } while index > 0
    return "x" + String(letters.reversed()) + "q"
  }
}
