import Foundation
import SemanticCRDT
import SemanticCRDTJSON
import Testing

/// The JSON shape of every type, pinned by checked-in fixture files (see docs/format.md): a
/// change of format shows up as a diff of `Tests/SemanticCRDTTests/Fixtures/`.
///
/// Run with `FORAGER_UPDATE_FIXTURES=1` to rewrite the fixtures after a deliberate change.
@Suite("Codable fixtures and decoding errors")
struct CodableFixtureTests {
  static let phone: ReplicaID = "phone"
  static let tablet: ReplicaID = "tablet"
  static func stamp(_ wall: UInt64, _ logical: UInt32 = 0, _ replica: ReplicaID) -> HybridTimestamp
  {
    HybridTimestamp(wallMilliseconds: 1_733_788_800_000 + wall, logical: logical, replica: replica)
  }

  static var orSet: ORSet<String> {
    var phone = ORSet<String>()
    phone.insert("produce", by: Self.phone)
    phone.insert("dairy", by: Self.phone)
    phone.insert("bakery", by: Self.phone)
    var tablet = ORSet<String>()
    tablet.insert("produce", by: Self.tablet)
    phone.remove("dairy")
    return phone.merging(tablet)
  }

  static var orMap: ORMap<String, GCounter> {
    var phone = ORMap<String, GCounter>()
    var tablet = ORMap<String, GCounter>()
    phone.update("cilantro", by: Self.phone, default: GCounter()) {
      $0.increment(replica: Self.phone)
    }
    tablet.update("cilantro", by: Self.tablet, default: GCounter()) {
      $0.increment(replica: Self.tablet)
    }
    tablet.update("basil", by: Self.tablet, default: GCounter()) {
      $0.increment(by: 3, replica: Self.tablet)
    }
    return phone.merging(tablet)
  }

  static var lwwMap: LWWMap<String, String> {
    var map = LWWMap<String, String>()
    map.set("produce", to: "Produce", at: stamp(1, 0, phone))
    map.set("dairy", to: "Dairy", at: stamp(1, 1, phone))
    map.remove("dairy", at: stamp(5, 0, tablet))
    return map
  }

  static var mvRegister: MVRegister<String> {
    var phone = MVRegister<String>()
    phone.write("pancakes", at: stamp(10, 0, Self.phone))
    var tablet = MVRegister<String>()
    tablet.write("waffles", at: stamp(10, 0, Self.tablet))
    return phone.merging(tablet)
  }

  /// A delta whose context has a gap: the peer saw dots 1…3, dot 2 has since been removed.
  static var orSetDelta: ORSet<String> {
    var set = ORSet<String>()
    for name in ["produce", "dairy", "bakery"] { set.insert(name, by: phone) }
    set.remove("dairy")
    set.insert("frozen", by: phone)
    return set.delta(since: VersionVector([phone: 3]))!
  }

  static var pnCounter: PNCounter {
    var counter = PNCounter()
    counter.increment(by: 5, replica: phone)
    counter.decrement(by: 2, replica: tablet)
    return counter
  }

  func check<Value: Codable & Equatable>(_ value: Value, fixture name: String) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let encoded = try encoder.encode(value)
    if ProcessInfo.processInfo.environment["FORAGER_UPDATE_FIXTURES"] == "1" {
      let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
      try encoded.write(to: folder.appendingPathComponent("\(name).json"))
      return
    }
    let url = try #require(
      Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"))
    let fixture = try Data(contentsOf: url)
    #expect(
      String(decoding: encoded, as: UTF8.self) == String(decoding: fixture, as: UTF8.self),
      "\(name).json")
    #expect(try JSONDecoder().decode(Value.self, from: fixture) == value, "\(name).json")
  }

  @Test func fixturesMatchEncodingAndDecodeToTheSameState() throws {
    try check(Self.orSet, fixture: "orset")
    try check(Self.orMap, fixture: "ormap")
    try check(Self.lwwMap, fixture: "lwwmap")
    try check(LWWRegister("Produce", at: Self.stamp(2, 1, Self.phone)), fixture: "lwwregister")
    try check(Self.mvRegister, fixture: "mvregister")
    try check(Self.pnCounter, fixture: "pncounter")
    try check(Self.orSet.version, fixture: "versionvector")
    try check(Self.orSetDelta, fixture: "orset-delta")
  }

  /// The fast codec writes the fixtures' bytes and reads them back to the same values.
  func checkFast<Value: JSONCodable & Equatable>(_ value: Value, fixture name: String) throws {
    let url = try #require(
      Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"))
    let fixture = Array(try Data(contentsOf: url))
    #expect(JSONWriter.encode(value) == fixture, "\(name).json")
    #expect(try JSONReader.decode(Value.self, from: fixture) == value, "\(name).json")
  }

  @Test func theFastCodecMatchesTheFixtures() throws {
    try checkFast(Self.orSet, fixture: "orset")
    try checkFast(Self.orMap, fixture: "ormap")
    try checkFast(LWWRegister("Produce", at: Self.stamp(2, 1, Self.phone)), fixture: "lwwregister")
    try checkFast(Self.mvRegister, fixture: "mvregister")
    try checkFast(Self.orSet.version, fixture: "versionvector")
    try checkFast(Self.orSetDelta, fixture: "orset-delta")
  }

  @Test func equalStatesEncodeToIdenticalBytesWhateverTheMergeOrder() throws {
    var a = ORSet<String>()
    var b = ORSet<String>()
    var c = ORSet<String>()
    for index in 0..<200 { a.insert("k\(index)", by: "a") }
    for index in 100..<300 { b.insert("k\(index)", by: "b") }
    for index in stride(from: 0, to: 300, by: 3) { c.insert("k\(index)", by: "c") }
    c.merge(a)
    for index in stride(from: 0, to: 300, by: 5) { c.remove("k\(index)") }
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let one = try encoder.encode(a.merging(b).merging(c))
    let other = try encoder.encode(c.merging(b.merging(a)))
    #expect(one == other)
  }

  /// Decodes `json` as `Value` and returns the DecodingError's description.
  func decodingProblem<Value: Decodable>(_ type: Value.Type, _ json: String) -> String? {
    do {
      _ = try JSONDecoder().decode(Value.self, from: Data(json.utf8))
      return nil
    } catch DecodingError.dataCorrupted(let context) {
      return context.debugDescription
    } catch {
      return "\(error)"
    }
  }

  @Test func corruptStatesAreRefusedWithTheReason() {
    let context = #"{"phone":[[1,2]]}"#
    #expect(
      decodingProblem(
        ORSet<String>.self, #"{"context":\#(context),"entries":[["a",[["phone",3]]]]}"#)
        == "key a: live dot phone:3 not in context")
    #expect(
      decodingProblem(
        ORSet<String>.self,
        #"{"context":\#(context),"entries":[["a",[["phone",1]]],["a",[["phone",2]]]]}"#)
        == "Entry 1: key a appears twice")
    #expect(
      decodingProblem(
        ORSet<String>.self,
        #"{"context":\#(context),"entries":[["a",[["phone",1]]],["b",[["phone",1]]]]}"#)
        == "dot phone:1 is live twice")
    #expect(
      decodingProblem(
        ORSet<String>.self, #"{"context":\#(context),"entries":[["a",[["phone",1],["phone",1]]]]}"#)
        == "Entry 0: key a lists a dot twice")
    #expect(
      decodingProblem(ORSet<String>.self, #"{"context":\#(context),"entries":[["a",[]]]}"#)
        == "Entry 0: key a has no dots")
    #expect(
      decodingProblem(ORSet<String>.self, #"{"context":{"phone":[[3,2]]},"entries":[]}"#)
        == "Interval [3, 2] of replica phone is not [first, last] with 1 ≤ first ≤ last ≤ 1099511627776"
    )
    #expect(
      decodingProblem(
        ORSet<String>.self, #"{"context":{"phone":[[1,1099511627777]]},"entries":[]}"#)
        == "Interval [1, 1099511627777] of replica phone is not [first, last] with 1 ≤ first ≤ last ≤ 1099511627776"
    )
    #expect(
      decodingProblem(
        ORSet<String>.self, #"{"context":\#(context),"entries":[["a",[["phone",0]]]]}"#)
        == "A dot counter must be in 1…1099511627776")
    #expect(
      decodingProblem(
        LWWMap<String, Int>.self,
        #"{"context":\#(context),"entries":[["a",[5,0,"phone"],1,7],["a",[6,0,"phone"],2,8]]}"#)
        == "Key a appears twice")
    #expect(
      decodingProblem(
        LWWMap<String, Int>.self, #"{"context":\#(context),"entries":[["a",[5,0,"phone"],9,7]]}"#)
        == "key a: write phone:9 not in context")
    #expect(
      decodingProblem(
        MVRegister<Int>.self,
        #"{"context":\#(context),"writes":[[["phone",1],[[5,0,"tablet"],7]]]}"#)
        == "Write phone:1 carries a timestamp of another replica")
    #expect(
      decodingProblem(VersionVector.self, #"{"phone":0}"#)
        == "Version vector entries need a non-empty replica and a counter > 0")
    #expect(decodingProblem(ReplicaID.self, #""""#) == "A replica id must not be empty")
    #expect(
      decodingProblem(HybridTimestamp.self, #"[1,0,"phone",4]"#)
        == "A hybrid timestamp has exactly three elements")
  }
}
