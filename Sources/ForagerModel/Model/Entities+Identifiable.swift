/// Every record is `Identifiable` by the key its map holds it under, so a SwiftUI `ForEach`
/// or a diffable data source shows query results as they are.

extension GroceryCategory: Identifiable {
  public var id: CategoryKey { key }
}

extension IngredientTemplate: Identifiable {
  public var id: IngredientKey { key }
}

extension PlannedMeal: Identifiable {
  public var id: SlotKey { slot }
}

extension Recipe: Identifiable {}
extension WeeklyList: Identifiable {}
extension MealPlan: Identifiable {}
extension GroceryListItem: Identifiable {}
extension Member: Identifiable {}
