import SemanticCRDT
import SemanticCRDTJSON

extension HouseholdVersion: JSONCodable {
  /// The `Codable` shape, keys in ascending order of their UTF-8 bytes; a carried map's
  /// version only while it names a write (ADR 0037).
  public func write(to writer: inout JSONWriter) {
    var fields: [(String, (inout JSONWriter) -> Void)] = [
      ("categories", categories.write), ("categoryMoves", categoryMoves.write),
      ("dissolved", dissolved.write), ("ingredients", ingredients.write),
      ("items", items.write), ("lists", lists.write), ("meals", meals.write),
      ("members", members.write), ("owner", owner.write), ("plans", plans.write),
      ("recipes", recipes.write),
    ]
    if !carriedMaps.isEmpty {
      fields += carriedMaps.map { name, version in (name, version.write) }
      fields.sort { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
    }
    writer.beginObject()
    for (key, write) in fields {
      writer.key(key)
      write(&writer)
    }
    writer.endObject()
  }

  public init(from reader: inout JSONReader) throws(JSONError) {
    var owner: HybridTimestamp?
    var dissolved: HybridTimestamp?
    var vectors: [CodingKeys: VersionVector] = [:]
    var carried: [String: VersionVector] = [:]
    try reader.readObject(
      Self.fields,
      { reader, field throws(JSONError) in
        switch field {
        case .owner: try reader.read(into: &owner)
        case .dissolved: try reader.read(into: &dissolved)
        case .members, .categories, .ingredients, .recipes, .lists, .items, .plans, .meals,
          .categoryMoves:
          vectors[field] = try reader.read(VersionVector.self)
        }
      },
      unknown: { reader, key throws(JSONError) in
        let offset = reader.offset
        guard CarriedMapName.isMap(key) else { throw JSONError(.unknownKey(key), at: offset) }
        guard carried[key] == nil else { throw JSONError(.duplicateKey(key), at: offset) }
        carried[key] = try reader.read(VersionVector.self)
      })
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
    for (name, version) in carried { self[carried: name] = version }
  }

  static let fields = JSONFields<CodingKeys>()
}
