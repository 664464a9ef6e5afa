/// A list's items under one category, as a shopping list in store order shows them.
public struct CategorySection: Identifiable, Equatable, Sendable {
  /// The category, or `nil` for the items in none (or in a deleted one).
  public let category: GroceryCategory?
  /// The items, in the order they were added.
  public let items: [GroceryListItem]

  /// The category's key; `nil` for the uncategorized section.
  public var id: CategoryKey? { category?.key }
}

/// A list's items that name one ingredient: "2 cups flour" from one recipe, "1 cup flour" from
/// another and a typed "flour". A query, not a merge: the items stay separate records.
public struct ConsolidatedItem: Identifiable, Equatable, Sendable {
  /// The ingredient's template key.
  public let template: IngredientKey
  /// How the template's name shows ("Flour"), or its key when the template is unknown.
  public let displayName: String
  /// The items, in the order they were added.
  public let items: [GroceryListItem]

  public var id: IngredientKey { template }
}
