import SemanticCRDT
import SemanticCRDTJSON

// The fast codec's conformances for the records and the household state, keys in ascending
// order as `JSONEncoder` with `.sortedKeys` writes the synthesized conformances.

extension GroceryCategory: JSONCodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.field("creation", creation)
    writer.field("key", key)
    writer.field("name", name)
    writer.field("order", order)
    writer.field("scope", scope)
    writer.endObject()
  }

  public init(from reader: inout JSONReader) throws(JSONError) {
    var creation: Creation?
    var key: CategoryKey?
    var name: LWWRegister<String>?
    var order: LWWRegister<Int64>?
    var scope: LWWRegister<SharingScope>?
    try reader.readObject(Self.fields) { reader, field throws(JSONError) in
      switch field {
      case .creation: try reader.read(into: &creation)
      case .key: try reader.read(into: &key)
      case .name: try reader.read(into: &name)
      case .order: try reader.read(into: &order)
      case .scope: try reader.read(into: &scope)
      }
    }
    self.init(
      key: key.take()!, creation: creation.take()!, name: name.take()!, order: order.take()!,
      scope: scope.take()!)
  }
}

extension IngredientTemplate: JSONCodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.field("category", category)
    writer.field("creation", creation)
    writer.field("key", key)
    writer.field("name", name)
    writer.field("scope", scope)
    writer.field("staple", staple)
    writer.field("uses", uses)
    writer.endObject()
  }

  public init(from reader: inout JSONReader) throws(JSONError) {
    var category: LWWRegister<CategoryKey?>?
    var creation: Creation?
    var key: IngredientKey?
    var name: LWWRegister<String>?
    var scope: LWWRegister<SharingScope>?
    var staple: LWWRegister<Bool>?
    var uses: GCounter?
    try reader.readObject(Self.fields) { reader, field throws(JSONError) in
      switch field {
      case .category: try reader.read(into: &category)
      case .creation: try reader.read(into: &creation)
      case .key: try reader.read(into: &key)
      case .name: try reader.read(into: &name)
      case .scope: try reader.read(into: &scope)
      case .staple: try reader.read(into: &staple)
      case .uses: try reader.read(into: &uses)
      }
    }
    self.init(
      key: key.take()!, creation: creation.take()!, name: name.take()!, staple: staple.take()!,
      category: category.take()!,
      uses: uses.take()!, scope: scope.take()!)
  }
}

extension Recipe: JSONCodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.field("creation", creation)
    writer.field("id", id)
    writer.field("lines", lines)
    writer.field("scope", scope)
    writer.field("title", title)
    writer.field("uses", uses)
    writer.endObject()
  }

  public init(from reader: inout JSONReader) throws(JSONError) {
    var creation: Creation?
    var id: RecipeID?
    var lines: LWWRegister<[String]>?
    var scope: LWWRegister<SharingScope>?
    var title: LWWRegister<String>?
    var uses: GCounter?
    try reader.readObject(Self.fields) { reader, field throws(JSONError) in
      switch field {
      case .creation: try reader.read(into: &creation)
      case .id: try reader.read(into: &id)
      case .lines: try reader.read(into: &lines)
      case .scope: try reader.read(into: &scope)
      case .title: try reader.read(into: &title)
      case .uses: try reader.read(into: &uses)
      }
    }
    self.init(
      id: id.take()!, creation: creation.take()!, title: title.take()!, lines: lines.take()!,
      uses: uses.take()!, scope: scope.take()!)
  }
}

private let containerFields = JSONFields<NamedContainerField>()

extension NamedContainer: JSONCodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.field("creation", creation)
    writer.field("id", id)
    writer.field("name", name)
    writer.field("scope", scope)
    writer.endObject()
  }

  public init(from reader: inout JSONReader) throws(JSONError) {
    var creation: Creation?
    var id: ID?
    var name: LWWRegister<String>?
    var scope: LWWRegister<SharingScope>?
    try reader.readObject(containerFields) { reader, field throws(JSONError) in
      switch field {
      case .creation: try reader.read(into: &creation)
      case .id: id = try ID(from: &reader)
      case .name: try reader.read(into: &name)
      case .scope: try reader.read(into: &scope)
      }
    }
    self.init(id: id.take()!, creation: creation.take()!, name: name.take()!, scope: scope.take()!)
  }
}

extension GroceryListItem: JSONCodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.field("category", category)
    writer.field("checked", checked)
    writer.field("creation", creation)
    writer.field("id", id)
    writer.field("listID", listID)
    writer.field("scope", scope)
    writer.field("source", source)
    writer.field("template", template)
    writer.field("text", text)
    writer.endObject()
  }

  public init(from reader: inout JSONReader) throws(JSONError) {
    var category: LWWRegister<CategoryKey?>?
    var checked: LWWRegister<Bool>?
    var creation: Creation?
    var id: GroceryItemID?
    var listID: WeeklyListID?
    var scope: LWWRegister<SharingScope>?
    var source: ItemSource?
    var template: LWWRegister<IngredientKey>?
    var text: LWWRegister<String>?
    try reader.readObject(Self.fields) { reader, field throws(JSONError) in
      switch field {
      case .category: try reader.read(into: &category)
      case .checked: try reader.read(into: &checked)
      case .creation: try reader.read(into: &creation)
      case .id: try reader.read(into: &id)
      case .listID: try reader.read(into: &listID)
      case .scope: try reader.read(into: &scope)
      case .source: try reader.read(into: &source)
      case .template: try reader.read(into: &template)
      case .text: try reader.read(into: &text)
      }
    }
    self.init(
      id: id.take()!, listID: listID.take()!, source: source.take()!, creation: creation.take()!,
      template: template.take()!,
      category: category.take()!, text: text.take()!, checked: checked.take()!, scope: scope.take()!
    )
  }
}

extension PlannedMeal: JSONCodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.field("assignment", assignment)
    writer.field("creation", creation)
    writer.field("plan", plan)
    writer.field("scope", scope)
    writer.field("slot", slot)
    writer.endObject()
  }

  public init(from reader: inout JSONReader) throws(JSONError) {
    var assignment: MVRegister<RecipeID>?
    var creation: Creation?
    var plan: LWWRegister<MealPlanID?>?
    var scope: LWWRegister<SharingScope>?
    var slot: SlotKey?
    try reader.readObject(Self.fields) { reader, field throws(JSONError) in
      switch field {
      case .assignment: try reader.read(into: &assignment)
      case .creation: try reader.read(into: &creation)
      case .plan: try reader.read(into: &plan)
      case .scope: try reader.read(into: &scope)
      case .slot: try reader.read(into: &slot)
      }
    }
    self.init(
      slot: slot.take()!, creation: creation.take()!, assignment: assignment.take()!,
      plan: plan.take()!, scope: scope.take()!)
  }
}

extension Member: JSONCodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.field("creation", creation)
    writer.field("id", id)
    writer.field("name", name)
    writer.field("roleRegister", roleRegister)
    writer.endObject()
  }

  public init(from reader: inout JSONReader) throws(JSONError) {
    var creation: Creation?
    var id: MemberID?
    var name: LWWRegister<String>?
    var role: LWWRegister<MemberRole>?
    try reader.readObject(Self.fields) { reader, field throws(JSONError) in
      switch field {
      case .creation: try reader.read(into: &creation)
      case .id: try reader.read(into: &id)
      case .name: try reader.read(into: &name)
      case .roleRegister: try reader.read(into: &role)
      }
    }
    self.init(
      id: id.take()!, creation: creation.take()!, name: name.take()!, roleRegister: role.take()!)
  }
}

extension HouseholdState: JSONCodable {
  /// Writes the fields in the order of their keys: the maps from `forEachMap(_:)`, the rest
  /// here.
  public func write(to writer: inout JSONWriter) {
    struct Fields: HouseholdMapVisitor {
      let state: HouseholdState
      var fields: [(CodingKeys, (inout JSONWriter) -> Void)] = []
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        let records = state[keyPath: map.records]
        fields.append((map.field, { records.write(to: &$0) }))
      }
    }
    var fields = Fields(state: self)
    fields.fields += [
      (.dissolved, dissolved.write), (.householdID, householdID.write),
      (.normalizerVersion, normalizerVersion.write), (.owner, owner.write),
    ]
    // Only once a category has moved: a state without moves reads in builds before them.
    if let categoryMoves { fields.fields.append((.categoryMoves, categoryMoves.write)) }
    Self.forEachMap(&fields)
    writer.beginObject()
    for (key, write) in fields.fields.sorted(by: { $0.0.rawValue < $1.0.rawValue }) {
      writer.key(key.rawValue)
      write(&writer)
    }
    writer.endObject()
  }

  /// Reads a state, as `readFindingGreatestTimestamp(from:)` does for a store that also needs
  /// its greatest timestamp.
  public init(from reader: inout JSONReader) throws(JSONError) {
    self = try Self.readFindingGreatestTimestamp(from: &reader).state
  }

  /// Reads a state, and its ``greatestTimestamp`` found as each record is read: a second pass
  /// over the household would miss the cache once per record.
  ///
  /// Reads the fields through a switch over their keys, which the compiler checks is
  /// exhaustive: the reader cannot ride in a `HouseholdMapVisitor` (it is non-copyable).
  ///
  /// - Complexity: O(size of the input).
  package static func readFindingGreatestTimestamp(
    from reader: inout JSONReader
  ) throws(JSONError) -> (state: HouseholdState, greatestTimestamp: HybridTimestamp?) {
    var householdID: HouseholdID?
    var normalizerVersion: NormalizerVersion?
    var owner: LWWRegister<MemberID?>?
    var dissolved: LWWRegister<Bool>?
    var members: ORMap<MemberID, Member>?
    var categories: ORMap<CategoryKey, GroceryCategory>?
    var ingredients: ORMap<IngredientKey, IngredientTemplate>?
    var recipes: ORMap<RecipeID, Recipe>?
    var lists: ORMap<WeeklyListID, WeeklyList>?
    var items: ORMap<GroceryItemID, GroceryListItem>?
    var plans: ORMap<MealPlanID, MealPlan>?
    var meals: ORMap<SlotKey, PlannedMeal>?
    var moves: ORMap<CategoryKey, LWWRegister<CategoryKey>>?
    // The greatest of the record maps' stamps; `registersGreatestTimestamp` adds the rest.
    var greatest: HybridTimestamp?
    try reader.readObject(Self.fields) { reader, field throws(JSONError) in
      switch field {
      case .categories: try reader.read(into: &categories, greatest: &greatest)
      case .dissolved: try reader.read(into: &dissolved)
      case .householdID: try reader.read(into: &householdID)
      case .ingredients: try reader.read(into: &ingredients, greatest: &greatest)
      case .items: try reader.read(into: &items, greatest: &greatest)
      case .lists: try reader.read(into: &lists, greatest: &greatest)
      case .meals: try reader.read(into: &meals, greatest: &greatest)
      case .members: try reader.read(into: &members, greatest: &greatest)
      case .normalizerVersion: try reader.read(into: &normalizerVersion)
      case .owner: try reader.read(into: &owner)
      case .plans: try reader.read(into: &plans, greatest: &greatest)
      case .recipes: try reader.read(into: &recipes, greatest: &greatest)
      // The one optional member (see `write(to:)`).
      case .categoryMoves: try reader.read(into: &moves)
      }
    }
    var state = HouseholdState(householdID: householdID!, normalizerVersion: normalizerVersion!)
    state.owner = owner!
    state.dissolved = dissolved!
    state.members = members!
    state.categories = categories!
    state.ingredients = ingredients!
    state.recipes = recipes!
    state.lists = lists!
    state.items = items!
    state.plans = plans!
    state.meals = meals!
    if let moves { state.moves = moves }
    return (state, [greatest, state.registersGreatestTimestamp].compactMap { $0 }.max())
  }
}

extension JSONReader {
  /// Reads a map into `slot` as ``read(into:)`` does, and raises `greatest` to the map's
  /// greatest timestamp.
  fileprivate mutating func read<Key, Record>(
    into slot: inout ORMap<Key, Record>?, greatest: inout HybridTimestamp?
  ) throws(JSONError) where Key: JSONReadable, Record: JSONReadable & HybridTimestamped {
    let read = try ORMap<Key, Record>.readFindingGreatestTimestamp(from: &self)
    slot = read.map
    if let stamp = read.greatestTimestamp { greatest.raise(to: stamp) }
  }
}

extension GroceryCategory { static let fields = JSONFields<CodingKeys>() }
extension IngredientTemplate { static let fields = JSONFields<CodingKeys>() }
extension Recipe { static let fields = JSONFields<CodingKeys>() }
extension GroceryListItem { static let fields = JSONFields<CodingKeys>() }
extension PlannedMeal { static let fields = JSONFields<CodingKeys>() }
extension Member { static let fields = JSONFields<CodingKeys>() }
extension HouseholdState {
  static let fields = JSONFields<CodingKeys>(optional: [.categoryMoves])
}
