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
  /// `categoryMoves`), a carried map's read if its key names one, any other key refused. The
  /// maps are decoded by a visitor of `forEachMap(_:carrying:)`, the one list of them.
  public init(from decoder: any Decoder) throws {
    let known = try decoder.container(keyedBy: CodingKeys.self)
    var state = HouseholdState(
      householdID: try known.decode(HouseholdID.self, forKey: .householdID),
      normalizerVersion: try known.decode(NormalizerVersion.self, forKey: .normalizerVersion))
    state.owner = try known.decode(LWWRegister<MemberID?>.self, forKey: .owner)
    state.dissolved = try known.decode(LWWRegister<Bool>.self, forKey: .dissolved)
    if let moves = try known.decodeIfPresent(
      ORMap<CategoryKey, LWWRegister<CategoryKey>>.self, forKey: .categoryMoves)
    {
      state.moves = moves
    }
    struct Maps: HouseholdMapVisitor {
      var state: HouseholdState
      let container: KeyedDecodingContainer<FieldCodingKey>
      var failure: (any Error)?
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        guard failure == nil else { return }
        do {
          state[keyPath: map.records] = try container.decode(
            ORMap<Record.Key, Record>.self, forKey: FieldCodingKey(map.field))
        } catch {
          failure = error
        }
      }
    }
    var maps = Maps(
      state: state, container: try decoder.container(keyedBy: FieldCodingKey.self))
    Self.forEachMap(
      &maps, carrying: try Self.carriedKeys(of: decoder, known: CodingKeys.self))
    if let failure = maps.failure { throw failure }
    self = maps.state
  }

  /// The keys of `decoder`'s object that are not one of `known`, each checked to name a
  /// carried map (ADR 0037), in order.
  static func carriedKeys<Known: CodingKey>(of decoder: any Decoder, known: Known.Type) throws
    -> [String]
  {
    let all = try decoder.container(keyedBy: FieldCodingKey.self)
    var result: [String] = []
    for key in all.allKeys where Known(stringValue: key.stringValue) == nil {
      guard CarriedMapName.isMap(key.stringValue) else {
        throw DecodingError.dataCorruptedError(
          forKey: key, in: all,
          debugDescription: "key \"\(key.stringValue)\" is not part of this format")
      }
      result.append(key.stringValue)
    }
    return result.sorted()
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
    struct Maps: HouseholdMapVisitor {
      var version: HouseholdVersion
      let container: KeyedDecodingContainer<FieldCodingKey>
      var failure: (any Error)?
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        guard failure == nil else { return }
        do {
          version[keyPath: map.version] = try container.decode(
            VersionVector.self, forKey: FieldCodingKey(map.field))
        } catch {
          failure = error
        }
      }
    }
    var maps = Maps(
      version: HouseholdVersion(
        owner: try known.decode(HybridTimestamp.self, forKey: .owner),
        dissolved: try known.decode(HybridTimestamp.self, forKey: .dissolved),
        categoryMoves: try known.decode(VersionVector.self, forKey: .categoryMoves)),
      container: try decoder.container(keyedBy: FieldCodingKey.self))
    HouseholdState.forEachMap(
      &maps, carrying: try HouseholdState.carriedKeys(of: decoder, known: CodingKeys.self))
    if let failure = maps.failure { throw failure }
    self = maps.version
  }
}

extension FieldCodingKey {
  init(_ key: String) { self.init(stringValue: key) }
  init(_ key: some CodingKey) { self.init(stringValue: key.stringValue) }
}
