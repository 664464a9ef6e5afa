import SemanticCRDT
import SemanticCRDTJSON

extension HouseholdVersion: JSONCodable {
  /// The `Codable` shape, keys in ascending order of their UTF-8 bytes: each map's version
  /// from `forEachMap(_:carrying:)` (a carried map's only while it names a write, ADR 0037),
  /// the registers' here.
  public func write(to writer: inout JSONWriter) {
    struct Fields: HouseholdMapVisitor {
      let version: HouseholdVersion
      var fields: [(String, (inout JSONWriter) -> Void)] = []
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        fields.append((map.field, version[keyPath: map.version].write))
      }
    }
    var fields = Fields(version: self)
    fields.fields += [
      (CodingKeys.categoryMoves.rawValue, categoryMoves.write),
      (CodingKeys.dissolved.rawValue, dissolved.write), (CodingKeys.owner.rawValue, owner.write),
    ]
    HouseholdState.forEachMap(&fields, carrying: carriedMapNames)
    writer.writeObject(fields.fields)
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
