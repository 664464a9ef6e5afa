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
    // Every key is required (`fields`), so each part is read over the empty version's.
    var version = HouseholdVersion(
      owner: HouseholdState.genesis, dissolved: HouseholdState.genesis,
      categoryMoves: VersionVector())
    var carried: [String: VersionVector] = [:]
    try reader.readObject(
      Self.fields,
      { reader, field throws(JSONError) in
        switch field {
        case .owner: version.owner = try reader.read(HybridTimestamp.self)
        case .dissolved: version.dissolved = try reader.read(HybridTimestamp.self)
        case .members: version.members = try reader.read(VersionVector.self)
        case .categories: version.categories = try reader.read(VersionVector.self)
        case .ingredients: version.ingredients = try reader.read(VersionVector.self)
        case .recipes: version.recipes = try reader.read(VersionVector.self)
        case .lists: version.lists = try reader.read(VersionVector.self)
        case .items: version.items = try reader.read(VersionVector.self)
        case .plans: version.plans = try reader.read(VersionVector.self)
        case .meals: version.meals = try reader.read(VersionVector.self)
        case .categoryMoves: version.categoryMoves = try reader.read(VersionVector.self)
        }
      },
      unknown: { reader, key throws(JSONError) in
        let offset = reader.offset
        guard CarriedMapName.isMap(key) else { throw JSONError(.unknownKey(key), at: offset) }
        guard carried[key] == nil else { throw JSONError(.duplicateKey(key), at: offset) }
        carried[key] = try reader.read(VersionVector.self)
      })
    for (name, vector) in carried { version[carried: name] = vector }
    self = version
  }

  static let fields = JSONFields<CodingKeys>()
}
