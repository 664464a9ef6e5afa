import SemanticCRDT

extension HouseholdState {
  /// The lattice order, defined without merge: every map and register of `self` precedes
  /// the one of `other`.
  package func isLessThanOrEqual(to other: HouseholdState) -> Bool {
    householdID == other.householdID && normalizerVersion <= other.normalizerVersion
      && owner.isLessThanOrEqual(to: other.owner)
      && dissolved.isLessThanOrEqual(to: other.dissolved)
      && members.isLessThanOrEqual(to: other.members)
      && categories.isLessThanOrEqual(to: other.categories)
      && ingredients.isLessThanOrEqual(to: other.ingredients)
      && recipes.isLessThanOrEqual(to: other.recipes)
      && lists.isLessThanOrEqual(to: other.lists)
      && items.isLessThanOrEqual(to: other.items)
      && plans.isLessThanOrEqual(to: other.plans)
      && meals.isLessThanOrEqual(to: other.meals)
      && moves.isLessThanOrEqual(to: other.moves)
  }

  /// Broken invariants; empty when the state is sound. Above all: **no semantic key has two
  /// records** — no two categories whose names normalize to one key, no template whose key is
  /// not its own canonical name, no slot stored under another slot's key — and **no reference
  /// dangles**: an item's template, a template's or item's category (through renames), a
  /// planned meal's recipes.
  package func invariantViolations() -> [String] {
    var problems: [String] = []
    problems +=
      members.invariantViolations() + categories.invariantViolations()
      + ingredients.invariantViolations() + recipes.invariantViolations()
      + lists.invariantViolations() + items.invariantViolations() + plans.invariantViolations()
      + meals.invariantViolations() + moves.invariantViolations()
    var categoryNames: [CategoryKey: CategoryKey] = [:]
    for key in categories.keys {
      let category = categories[key]!
      if category.key != key { problems.append("category \(category.key) stored under \(key)") }
      let named = CategoryKey(normalizing: category.displayName, version: normalizerVersion)
      if let other = categoryNames.updateValue(key, forKey: named), other != key {
        problems.append("categories \(other) and \(key) both have the semantic key \(named)")
      }
    }
    for key in ingredients.keys {
      let template = ingredients[key]!
      if template.key != key { problems.append("template \(template.key) stored under \(key)") }
      if IngredientKey(normalizing: key.rawValue, version: normalizerVersion) != key {
        problems.append("template key \(key) is not its own canonical name")
      }
      if let category = template.categoryKey, resolvedCategory(category) == nil {
        problems.append("template \(key) names category \(category), which does not exist")
      }
    }
    for slot in meals.keys {
      let meal = meals[slot]!
      if meal.slot != slot { problems.append("planned meal \(meal.slot) stored under \(slot)") }
      for write in meal.assignment.writes where !recipes.contains(write.value) {
        problems.append("planned meal \(slot) names recipe \(write.value), which does not exist")
      }
    }
    for id in items.keys {
      let item = items[id]!
      if !ingredients.contains(item.templateKey) {
        problems.append("item \(id) names template \(item.templateKey), which does not exist")
      }
      if let category = item.categoryKey, resolvedCategory(category) == nil {
        problems.append("item \(id) names category \(category), which does not exist")
      }
    }
    return problems
  }
}
