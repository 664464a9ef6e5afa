import SemanticCRDT
import SemanticCRDTJSON

// Foundation's coders for the household state and its version: the shape the fast codec
// writes, with `JSONEncoder`'s `.sortedKeys`, the maps of record kinds a newer build added
// carried (ADR 0037). Written out, not synthesized, because those maps' keys are data.

extension HouseholdState {
  public func encode(to encoder: any Encoder) throws {
    struct Maps: HouseholdMapVisitor {
      let state: HouseholdState
      var maps: [(String, any Encodable)] = []
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        maps.append((map.field, state[keyPath: map.records]))
      }
    }
    var maps = Maps(state: self)
    Self.forEachMap(&maps, carrying: carriedMapNames)
    var container = encoder.container(keyedBy: FieldCodingKey.self)
    for (key, map) in maps.maps { try container.encode(map, forKey: FieldCodingKey(key)) }
    try container.encode(householdID, forKey: FieldCodingKey(CodingKeys.householdID))
    try container.encode(normalizerVersion, forKey: FieldCodingKey(CodingKeys.normalizerVersion))
    try container.encode(owner, forKey: FieldCodingKey(CodingKeys.owner))
    try container.encode(dissolved, forKey: FieldCodingKey(CodingKeys.dissolved))
    try container.encodeIfPresent(categoryMoves, forKey: FieldCodingKey(CodingKeys.categoryMoves))
  }

  /// Decodes a state as the fast codec reads one: every key of this build's required (but
  /// `categoryMoves`), a carried map's read if its key names one, any other key refused.
  public init(from decoder: any Decoder) throws {
    let known = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      householdID: try known.decode(HouseholdID.self, forKey: .householdID),
      normalizerVersion: try known.decode(NormalizerVersion.self, forKey: .normalizerVersion))
    owner = try known.decode(LWWRegister<MemberID?>.self, forKey: .owner)
    dissolved = try known.decode(LWWRegister<Bool>.self, forKey: .dissolved)
    members = try known.decode(ORMap<MemberID, Member>.self, forKey: .members)
    categories = try known.decode(ORMap<CategoryKey, GroceryCategory>.self, forKey: .categories)
    ingredients = try known.decode(
      ORMap<IngredientKey, IngredientTemplate>.self, forKey: .ingredients)
    recipes = try known.decode(ORMap<RecipeID, Recipe>.self, forKey: .recipes)
    lists = try known.decode(ORMap<WeeklyListID, WeeklyList>.self, forKey: .lists)
    items = try known.decode(ORMap<GroceryItemID, GroceryListItem>.self, forKey: .items)
    plans = try known.decode(ORMap<MealPlanID, MealPlan>.self, forKey: .plans)
    meals = try known.decode(ORMap<SlotKey, PlannedMeal>.self, forKey: .meals)
    if let moves = try known.decodeIfPresent(
      ORMap<CategoryKey, LWWRegister<CategoryKey>>.self, forKey: .categoryMoves)
    {
      self.moves = moves
    }
    try Self.decodeCarried(from: decoder, known: CodingKeys.self) { key, container in
      self[carried: key.stringValue] = try container.decode(
        ORMap<CarriedKey, CarriedRecord>.self, forKey: key)
    }
  }

  /// Calls `body` with each key of `decoder`'s object that is not one of `known`, once it has
  /// checked that the key names a carried map.
  static func decodeCarried<Known: CodingKey>(
    from decoder: any Decoder, known: Known.Type,
    _ body: (FieldCodingKey, KeyedDecodingContainer<FieldCodingKey>) throws -> Void
  ) throws {
    let all = try decoder.container(keyedBy: FieldCodingKey.self)
    for key in all.allKeys where Known(stringValue: key.stringValue) == nil {
      guard CarriedMapName.isMap(key.stringValue) else {
        throw DecodingError.dataCorruptedError(
          forKey: key, in: all,
          debugDescription: "key \"\(key.stringValue)\" is not part of this format")
      }
      try body(key, all)
    }
  }
}

extension HouseholdVersion {
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: FieldCodingKey.self)
    try container.encode(owner, forKey: FieldCodingKey(CodingKeys.owner))
    try container.encode(dissolved, forKey: FieldCodingKey(CodingKeys.dissolved))
    try container.encode(categoryMoves, forKey: FieldCodingKey(CodingKeys.categoryMoves))
    struct Maps: HouseholdMapVisitor {
      let version: HouseholdVersion
      var maps: [(String, VersionVector)] = []
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        maps.append((map.field, version[keyPath: map.version]))
      }
    }
    var maps = Maps(version: self)
    HouseholdState.forEachMap(&maps, carrying: carriedMapNames)
    for (key, version) in maps.maps { try container.encode(version, forKey: FieldCodingKey(key)) }
  }

  public init(from decoder: any Decoder) throws {
    let known = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      owner: try known.decode(HybridTimestamp.self, forKey: .owner),
      dissolved: try known.decode(HybridTimestamp.self, forKey: .dissolved),
      categoryMoves: try known.decode(VersionVector.self, forKey: .categoryMoves))
    members = try known.decode(VersionVector.self, forKey: .members)
    categories = try known.decode(VersionVector.self, forKey: .categories)
    ingredients = try known.decode(VersionVector.self, forKey: .ingredients)
    recipes = try known.decode(VersionVector.self, forKey: .recipes)
    lists = try known.decode(VersionVector.self, forKey: .lists)
    items = try known.decode(VersionVector.self, forKey: .items)
    plans = try known.decode(VersionVector.self, forKey: .plans)
    meals = try known.decode(VersionVector.self, forKey: .meals)
    try HouseholdState.decodeCarried(from: decoder, known: CodingKeys.self) { key, container in
      self[carried: key.stringValue] = try container.decode(VersionVector.self, forKey: key)
    }
  }
}

extension FieldCodingKey {
  init(_ key: String) { self.init(stringValue: key) }
  init(_ key: some CodingKey) { self.init(stringValue: key.stringValue) }
}
