import SemanticCRDT
import Testing

/// `ORMap.greatestTimestamp(inPart:of:)`: the parts a caller scans on several cores together
/// find the greatest timestamp, wherever in the map's storage it sits.
@Suite("Greatest timestamp in parts")
struct GreatestTimestampPartsTests {
  @Test(arguments: [1, 2, 3, 5, 13])
  func thePartsTogetherFindTheGreatestWhereverItIs(parts: Int) {
    let keys = (0..<12).map { "key \($0)" }
    // Each key in turn holds the greatest stamp, so it falls in every part of the storage.
    for greatestKey in keys {
      var map = ORMap<String, LWWRegister<Int>>()
      for (index, key) in keys.enumerated() {
        let wall: UInt64 = key == greatestKey ? 1_000 : UInt64(index + 1)
        map.set(
          key, to: LWWRegister(index, at: HybridTimestamp(wallMilliseconds: wall, replica: "a")),
          by: "a")
      }
      let found = (0..<parts).compactMap { map.greatestTimestamp(inPart: $0, of: parts) }.max()
      #expect(found?.wallMilliseconds == 1_000, "\(greatestKey), \(parts) parts")
      #expect(found == map.greatestTimestamp)
    }
  }

  @Test func anEmptyMapHasNoneInAnyPart() {
    let map = ORMap<String, LWWRegister<Int>>()
    #expect((0..<3).allSatisfy { map.greatestTimestamp(inPart: $0, of: 3) == nil })
  }
}
