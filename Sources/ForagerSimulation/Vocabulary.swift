import ForagerSync

/// The names the simulated people type: each thing in several spellings that must land on one
/// record (case, spacing, non-breaking spaces, composed and decomposed accents, quantities,
/// plurals).
enum Vocabulary {
  /// Category names, each a list of spellings of one name.
  static let categories: [[String]] = [
    ["Produce", "produce", "  PRODUCE ", "Produce\u{00A0}"],
    ["Snacks", "snacks", "SNACKS  "],
    ["Spices", "spices", " Spices"],
    ["Frozen Foods", "frozen  foods", "Frozen\u{00A0}Foods"],
    ["Café", "Cafe\u{301}", "CAFÉ"],
    ["Canned Goods", "canned goods", "Canned   Goods"],
    ["Beverages", "beverages"],
    ["Baking", "BAKING", "baking "],
  ]

  /// Names people rename categories to, besides each other's: a rename to one of them moves the
  /// category to a new key (or is refused when another category already took it).
  static let categoryRenames = ["Fresh Produce", "Sweets", "Herbs", "Freezer", "Drinks"]

  /// Ingredient names as typed or as recipe lines, each list one canonical ingredient.
  static let ingredients: [[String]] = [
    ["basil", "2 cups Fresh Basil", "fresh basil"],
    ["tomato", "Tomatoes", "3 diced tomatoes"],
    ["onion", "1/2 cup chopped onion", "Onions"],
    ["bay leaf", "bay leaves", "2 Bay Leaves"],
    ["flour", "200g flour", "2 cups flour"],
    ["salt", "a pinch of salt", "salt to taste"],
    ["cilantro", "Cilantro", "fresh cilantro"],
    ["garlic", "3 cloves garlic", "Garlic"],
    ["egg", "2 eggs", "Eggs"],
    ["butter", "1 tbsp butter", "Butter"],
    ["banana", "3 bananas", "Bananas"],
    ["lentil", "1 cup lentils", "Lentils"],
  ]

  /// Recipe titles; titles in one list share a title key (allowed, and reported as similar).
  static let recipeTitles: [[String]] = [
    ["Banana Bread", "banana bread!", "Banana  Bread"],
    ["Grandma's Banana Bread", "Grandmas Banana Bread"],
    ["Pancakes", "pancakes"],
    ["Lentil Soup", "Lentil soup."],
    ["Chili", "CHILI"],
  ]

  /// The seven days of the simulated week (the week of 2026-01-05).
  static let days = (5...11).map { CalendarDay(year: 2026, month: 1, day: $0)! }

  /// Slots every device of a household plans into, so they collide.
  static let slots: [SlotKey] = days.flatMap { day in
    MealType.allCases.map { SlotKey(day: day, mealType: $0) }
  }

  /// The slot of the `slot-conflict` scenario.
  static let contestedSlot = SlotKey(day: days[2], mealType: .dinner)

  /// The spellings of "Test Category" in the `offline-same-category` scenario, one per device.
  static let testCategory = [
    "Test Category", "test category", "  TEST CATEGORY", "Test\u{00A0}Category", "test  category ",
  ]
}
