import ForagerSimulation
import ForagerTestSupport
import SemanticCRDT
import SemanticCRDTJSON

@testable import ForagerModel

/// A household as the test-only newer build holds it: what this build declares, and the
/// newer build's map of shelves (`Shelf`, which the simulator's newer build writes), typed. Its encoding is this build's with the shelves under
/// `"shelves:map"`, written by the newer build's typed code (only while the map holds
/// something, as the format asks of a map added since format 3), never through this build's
/// carried maps.
struct NewerHousehold {
  static let shelvesKey = "shelves:map"

  var replica: HouseholdReplica
  var shelves = ORMap<CarriedKey, Shelf>()

  /// The state as the newer build writes it.
  var bytes: [UInt8] { Self.bytes(replica.state, shelves: shelves) }

  /// What the newer build knows the household has seen: its version, the shelves' included.
  var version: HouseholdVersion {
    var version = replica.state.version
    version[carried: Self.shelvesKey] = shelves.version
    return version
  }

  /// What a peer that has seen `version` lacks, as the newer build writes it; `nil` for none.
  func delta(since version: HouseholdVersion) -> [UInt8]? {
    let state = replica.delta(since: version)
    let shelves = shelves.delta(since: version[carried: Self.shelvesKey])
    guard state != nil || shelves != nil else { return nil }
    return Self.bytes(
      state ?? HouseholdState(emptyLike: replica.state), shelves: shelves ?? ORMap())
  }

  /// Merges a state or delta a device of either build wrote.
  mutating func merge(_ bytes: [UInt8]) throws {
    let (state, shelves) = try Self.read(bytes)
    _ = try replica.merge(state)
    // The newer build's clock observes every stamp it merges, its shelves' included.
    if let greatest = shelves.greatestTimestamp { try replica.clock.observe(greatest) }
    self.shelves.merge(shelves)
  }

  /// `state`'s encoding with `shelves` added under its key, the keys in order.
  static func bytes(_ state: HouseholdState, shelves: ORMap<CarriedKey, Shelf>) -> [UInt8] {
    precondition(state.carriedMapNames.isEmpty, "the newer build holds its shelves typed")
    var members = try! topLevel(JSONWriter.encode(state))
    if !(shelves.isEmpty && shelves.context.isEmpty) {
      members.append((shelvesKey, JSONWriter.encode(shelves)))
    }
    members.sort { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
    return object(members)
  }

  /// A state the newer build reads: its shelves typed, the rest as this build reads it.
  static func read(_ bytes: [UInt8]) throws -> (HouseholdState, ORMap<CarriedKey, Shelf>) {
    var members = try topLevel(bytes)
    var shelves = ORMap<CarriedKey, Shelf>()
    if let index = members.firstIndex(where: { $0.0 == shelvesKey }) {
      shelves = try JSONReader.decode(ORMap<CarriedKey, Shelf>.self, from: members[index].1)
      members.remove(at: index)
    }
    let state = try JSONReader.decode(HouseholdState.self, from: object(members))
    return (state, shelves)
  }

  /// A JSON object of `members`, each value's bytes as they are, in the order given.
  static func object(_ members: [(String, [UInt8])]) -> [UInt8] {
    var writer = JSONWriter(capacity: members.reduce(2) { $0 + $1.0.utf8.count + $1.1.count + 4 })
    writer.beginObject()
    for (key, value) in members {
      writer.key(key)
      writer.raw(value)
    }
    writer.endObject()
    return writer.bytes
  }

  /// The members of a JSON object, each value's bytes as written.
  static func topLevel(_ bytes: [UInt8]) throws -> [(String, [UInt8])] {
    try JSONReader.decode(TopLevel.self, from: bytes).members
  }

  private struct TopLevel: JSONReadable {
    var members: [(String, [UInt8])] = []
    init(from reader: inout JSONReader) throws(JSONError) {
      var members: [(String, [UInt8])] = []
      try reader.readDynamicObject { reader, key throws(JSONError) in
        members.append((key, try reader.readRawValue()))
      }
      self.members = members
    }
  }
}
