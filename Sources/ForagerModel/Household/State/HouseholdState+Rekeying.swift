import SemanticCRDT

extension HouseholdState {
  /// Creates an empty state keyed with an older normalizer, as an older build would have
  /// written it (for tests and for migrating stores).
  package init(householdID: HouseholdID, normalizerVersion: NormalizerVersion) {
    self.init(householdID: householdID)
    self.normalizerVersion = normalizerVersion
  }

  /// This state with every semantic key recomputed by the rules of `version`.
  ///
  /// Categories and ingredient templates move to their new keys; records whose keys now
  /// collide become one record (their fields merge as concurrent writes do). References
  /// (an item's template and category, a template's category) and the record of category
  /// renames move with them. Nothing is
  /// written anew: the re-keyed state is a pure function of this one, so every replica
  /// re-keys the same way, and re-keying commutes with merging.
  ///
  /// New keys are computed from the old keys' text: the rules of a later version applied to
  /// an earlier key give the later key (the golden table checks this for the v1→v2 change).
  ///
  /// - Complexity: O(*n*) over all records.
  public func rekeyed(to version: NormalizerVersion) -> HouseholdState {
    guard version != normalizerVersion else { return self }
    func category(_ key: CategoryKey) -> CategoryKey {
      CategoryKey(normalizing: key.rawValue, version: version)
    }
    func ingredient(_ key: IngredientKey) -> IngredientKey {
      IngredientKey(normalizing: key.rawValue, version: version)
    }
    var result = self
    result.normalizerVersion = version
    result.categories = categories.rekeyed(category) { key, record in record.rekeyed(to: key) }
    result.ingredients = ingredients.rekeyed(ingredient) { key, record in
      record.rekeyed(to: key, category: category)
    }
    result.items = items.rekeyed({ $0 }) { _, item in
      item.rekeyed(template: ingredient, category: category)
    }
    result.moves = moves.rekeyed(category) { _, target in
      LWWRegister(category(target.value), at: target.timestamp)
    }
    return result
  }
}

extension GroceryCategory {
  func rekeyed(to newKey: CategoryKey) -> GroceryCategory {
    var copy = self
    copy.key = newKey
    return copy
  }
}

extension IngredientTemplate {
  func rekeyed(to newKey: IngredientKey, category rekey: (CategoryKey) -> CategoryKey)
    -> IngredientTemplate
  {
    var copy = self
    copy.key = newKey
    copy.category = LWWRegister(category.value.map(rekey), at: category.timestamp)
    return copy
  }
}

extension GroceryListItem {
  func rekeyed(
    template rekeyTemplate: (IngredientKey) -> IngredientKey,
    category rekeyCategory: (CategoryKey) -> CategoryKey
  ) -> GroceryListItem {
    var copy = self
    copy.template = LWWRegister(rekeyTemplate(template.value), at: template.timestamp)
    copy.category = LWWRegister(category.value.map(rekeyCategory), at: category.timestamp)
    return copy
  }
}
