import SemanticCRDT
import SemanticCRDTJSON
import Testing

/// `ORMap.readFindingGreatestTimestamp(from:)` finds the map's greatest timestamp as it reads
/// each key, and a store trusts it instead of scanning the map again: it must be exactly
/// ``ORMap/greatestTimestamp``, on one core and when the entries are read in two halves,
/// wherever the greatest stamp sits in the input.
@Suite("Greatest timestamp while reading")
struct GreatestTimestampReadingTests {
  /// Enough keys that the entries exceed the size above which two cores read them in halves.
  static let keyCount = 40_000
  static let greatestWall: UInt64 = 1_000_000_000

  static let map: ORMap<String, LWWRegister<Int64>> = {
    var map = ORMap<String, LWWRegister<Int64>>()
    for index in 0..<keyCount {
      map.set(
        key(index),
        to: LWWRegister(
          Int64(index), at: HybridTimestamp(wallMilliseconds: UInt64(index % 997 + 1), replica: "a")
        ),
        by: "a")
    }
    return map
  }()

  /// Keys sort as their numbers do, so a key's index is its place in the written entries.
  static func key(_ index: Int) -> String { "key \(String(100_000 + index))" }

  static func read(_ bytes: [UInt8], cores: Cores) throws(JSONError) -> (
    map: ORMap<String, LWWRegister<Int64>>, greatestTimestamp: HybridTimestamp?
  ) {
    try bytes.withUnsafeBufferPointer { buffer throws(JSONError) in
      try JSONReader.read(buffer, cores: cores) { reader throws(JSONError) in
        try ORMap<String, LWWRegister<Int64>>.readFindingGreatestTimestamp(from: &reader)
      }
    }
  }

  /// The greatest stamp first, in the first half, just past the middle, and last: each half
  /// of a two-core read holds it in one case or another.
  @Test(arguments: [0, keyCount / 4, keyCount / 2 + 1_000, keyCount - 1])
  func findsTheGreatestWhereverItIs(place: Int) throws {
    var map = Self.map
    map.set(
      Self.key(place),
      to: LWWRegister(
        -1, at: HybridTimestamp(wallMilliseconds: Self.greatestWall, replica: "b")),
      by: "b")
    let bytes = JSONWriter.encode(map)
    #expect(bytes.count > 2 << 20, "the entries must be long enough to be read in halves")
    for cores in [Cores.one, .two] {
      let read = try Self.read(bytes, cores: cores)
      #expect(read.greatestTimestamp?.wallMilliseconds == Self.greatestWall, "\(cores)")
      #expect(read.greatestTimestamp == map.greatestTimestamp, "\(cores)")
      #expect(read.map == map, "\(cores)")
    }
  }

  @Test func anEmptyMapHasNone() throws {
    let read = try Self.read(JSONWriter.encode(ORMap<String, LWWRegister<Int64>>()), cores: .two)
    #expect(read.greatestTimestamp == nil)
  }
}
