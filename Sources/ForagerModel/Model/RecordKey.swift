import SemanticCRDT

/// One record of a household, named by the key its map holds it under: a semantic key for a
/// category, a template and a planned meal, an identifier for the others.
///
/// Change events name the records they changed with it, and ``HouseholdReplica`` takes it
/// where an edit applies to a record of any kind (``HouseholdReplica/setSharingScope(_:of:)``).
public enum RecordKey: Hashable, Sendable, CustomStringConvertible {
  case member(MemberID)
  case category(CategoryKey)
  case ingredient(IngredientKey)
  case recipe(RecipeID)
  case list(WeeklyListID)
  case item(GroceryItemID)
  case plan(MealPlanID)
  case meal(SlotKey)

  /// The kind and key, shortened for logs: `category "produce"`, `item 3F2A9C1B`.
  public var description: String {
    switch self {
    case .member(let id): "member \(id.uuid.uuidString.prefix(8))"
    case .category(let key): "category \(key.rawValue.debugDescription)"
    case .ingredient(let key): "template \(key.rawValue.debugDescription)"
    case .recipe(let id): "recipe \(id.uuid.uuidString.prefix(8))"
    case .list(let id): "list \(id.uuid.uuidString.prefix(8))"
    case .item(let id): "item \(id.uuid.uuidString.prefix(8))"
    case .plan(let id): "plan \(id.uuid.uuidString.prefix(8))"
    case .meal(let slot): "slot \(slot.rawValue)"
    }
  }
}
