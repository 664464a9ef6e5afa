import Foundation
import SemanticCRDT
import SemanticCRDTJSON

// The fast codec's conformance for the household state, keys in ascending order as
// `JSONEncoder` with `.sortedKeys` writes them. The records' come from their declarations
// (DeclaredRecord+JSON.swift).

extension HouseholdState: JSONCodable {
  /// Writes the fields in the order of their keys' UTF-8 bytes: the maps from
  /// `forEachMap(_:carrying:)` (a carried map only while it holds something), the rest here.
  public func write(to writer: inout JSONWriter) {
    struct Fields: HouseholdMapVisitor {
      let state: HouseholdState
      var fields: [(String, (inout JSONWriter) -> Void)] = []
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        let records = state[keyPath: map.records]
        fields.append((map.field, { records.write(to: &$0) }))
      }
    }
    var fields = Fields(state: self)
    fields.fields += [
      (CodingKeys.dissolved.rawValue, dissolved.write),
      (CodingKeys.householdID.rawValue, householdID.write),
      (CodingKeys.normalizerVersion.rawValue, normalizerVersion.write),
      (CodingKeys.owner.rawValue, owner.write),
    ]
    // Only once a category has moved: a state without moves reads in builds before them.
    if let categoryMoves {
      fields.fields.append((CodingKeys.categoryMoves.rawValue, categoryMoves.write))
    }
    Self.forEachMap(&fields, carrying: carriedMapNames)
    writer.writeObject(fields.fields)
  }

  /// Reads a state, as ``AsRead`` reads one with its greatest timestamp.
  public init(from reader: inout JSONReader) throws(JSONError) {
    self = try AsRead(from: &reader).state
  }
}

extension HouseholdState.AsRead: JSONReadable {
  /// Reads a state, and its greatest timestamp as each record is read: a second pass over the
  /// household would miss the cache once per record.
  ///
  /// Reads the fields through a switch over their keys, which the compiler checks is
  /// exhaustive: the reader cannot ride in a `HouseholdMapVisitor` (it is non-copyable). A key
  /// this build does not know is read as a carried map if it names one (ADR 0037), and refused
  /// otherwise.
  ///
  /// - Complexity: O(size of the input).
  public init(from reader: inout JSONReader) throws(JSONError) {
    // Every key but `categoryMoves` is required (`fields`), so each part is read over the
    // empty state's.
    var state = HouseholdState(
      householdID: HouseholdID(uuid: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))))
    var carried: [String: ORMap<CarriedKey, CarriedRecord>] = [:]
    // The greatest of the record maps' stamps; `registersGreatestTimestamp` adds the rest.
    var greatest: HybridTimestamp?
    try reader.readObject(
      HouseholdState.fields,
      { reader, field throws(JSONError) in
        switch field {
        case .categories: try reader.read(into: &state.categories, greatest: &greatest)
        case .dissolved: state.dissolved = try reader.read(LWWRegister<Bool>.self)
        case .householdID: state.householdID = try reader.read(HouseholdID.self)
        case .ingredients: try reader.read(into: &state.ingredients, greatest: &greatest)
        case .items: try reader.read(into: &state.items, greatest: &greatest)
        case .lists: try reader.read(into: &state.lists, greatest: &greatest)
        case .meals: try reader.read(into: &state.meals, greatest: &greatest)
        case .members: try reader.read(into: &state.members, greatest: &greatest)
        case .normalizerVersion: state.normalizerVersion = try reader.read(NormalizerVersion.self)
        case .owner: state.owner = try reader.read(LWWRegister<MemberID?>.self)
        case .plans: try reader.read(into: &state.plans, greatest: &greatest)
        case .recipes: try reader.read(into: &state.recipes, greatest: &greatest)
        // The one optional member (see `write(to:)`).
        case .categoryMoves:
          state.moves = try reader.read(ORMap<CategoryKey, LWWRegister<CategoryKey>>.self)
        }
      },
      unknown: { reader, key throws(JSONError) in
        try reader.readCarriedMap(key, into: &carried, greatest: &greatest)
      })
    for (name, map) in carried { state[carried: name] = map }
    self.init(
      state: state,
      greatestTimestamp: [greatest, state.registersGreatestTimestamp].compactMap { $0 }.max())
  }
}

extension JSONWriter {
  /// Writes an object of `members`, each written by its closure, in the order of their keys'
  /// UTF-8 bytes (as `JSONEncoder`'s `.sortedKeys`): how the state and its version write
  /// their known parts and the maps a newer build added among them.
  mutating func writeObject(_ members: [(String, (inout JSONWriter) -> Void)]) {
    beginObject()
    for (key, write) in members.sorted(by: { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }) {
      self.key(key)
      write(&self)
    }
    endObject()
  }
}

extension JSONReader {
  /// Reads a map into `slot` as ``read(into:)`` does, and raises `greatest` to the map's
  /// greatest timestamp. Compactly (``readingCompactly(_:)``), each record without its key
  /// part, which its entry's key gives.
  fileprivate mutating func read<Record: MappedRecord>(
    into slot: inout ORMap<Record.Key, Record>, greatest: inout HybridTimestamp?
  ) throws(JSONError) {
    let read: (map: ORMap<Record.Key, Record>, greatestTimestamp: HybridTimestamp?)
    if readsCompactly {
      let compactly = Record.compactReading()
      read = try ORMap.readFindingGreatestTimestamp(from: &self) {
        reader, key throws(JSONError) in
        try Record.readFields(from: &reader, key: key, compactly: compactly)
      }
    } else {
      read = try ORMap.readFindingGreatestTimestamp(from: &self)
    }
    slot = read.map
    if let stamp = read.greatestTimestamp { greatest.raise(to: stamp) }
  }
}

extension JSONReader {
  /// Reads the carried map under `key` into `maps`, raising `greatest` to its greatest
  /// timestamp.
  ///
  /// - Throws: `unknownKey` for a key that names no map (a part only a newer major version may
  ///   add), `duplicateKey` for a map read twice (the reader checks only the keys it knows).
  fileprivate mutating func readCarriedMap(
    _ key: String, into maps: inout [String: ORMap<CarriedKey, CarriedRecord>],
    greatest: inout HybridTimestamp?
  ) throws(JSONError) {
    let offset = self.offset
    guard CarriedMapName.isMap(key) else { throw JSONError(.unknownKey(key), at: offset) }
    guard maps[key] == nil else { throw JSONError(.duplicateKey(key), at: offset) }
    var map = ORMap<CarriedKey, CarriedRecord>()
    try read(into: &map, greatest: &greatest)
    maps[key] = map
  }
}

extension HouseholdState {
  static let fields = JSONFields<CodingKeys>(optional: [.categoryMoves])
}
