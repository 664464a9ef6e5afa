import SemanticCRDT
import SemanticCRDTJSON

extension HouseholdVersion: JSONCodable {
  /// The synthesized `Codable` shape, keys in ascending order.
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.field("categories", categories)
    writer.field("categoryMoves", categoryMoves)
    writer.field("dissolved", dissolved)
    writer.field("ingredients", ingredients)
    writer.field("items", items)
    writer.field("lists", lists)
    writer.field("meals", meals)
    writer.field("members", members)
    writer.field("owner", owner)
    writer.field("plans", plans)
    writer.field("recipes", recipes)
    writer.endObject()
  }

  public init(from reader: inout JSONReader) throws(JSONError) {
    var owner: HybridTimestamp?
    var dissolved: HybridTimestamp?
    var vectors: [CodingKeys: VersionVector] = [:]
    try reader.readObject(Self.fields) { reader, field throws(JSONError) in
      switch field {
      case .owner: try reader.read(into: &owner)
      case .dissolved: try reader.read(into: &dissolved)
      case .members, .categories, .ingredients, .recipes, .lists, .items, .plans, .meals,
        .categoryMoves:
        vectors[field] = try reader.read(VersionVector.self)
      }
    }
    // Every key is required, so each slot is filled.
    self.init(owner: owner!, dissolved: dissolved!, categoryMoves: vectors[.categoryMoves]!)
    members = vectors[.members]!
    categories = vectors[.categories]!
    ingredients = vectors[.ingredients]!
    recipes = vectors[.recipes]!
    lists = vectors[.lists]!
    items = vectors[.items]!
    plans = vectors[.plans]!
    meals = vectors[.meals]!
  }

  static let fields = JSONFields<CodingKeys>()
}
