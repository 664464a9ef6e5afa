import SemanticCRDT
import Testing

/// `ORMap.forEachBoxedValue(inPart:of:_:)`, which the model check reads records through: the
/// parts together visit every key once, and each key's value is the one the map reads (the
/// join of concurrent writes included).
@Suite("Reading a map in parts")
struct ORMapPartsTests {
  /// Twelve keys by "a", four of them written concurrently by "b" too.
  static func map() -> ORMap<String, GCounter> {
    var phone = ORMap<String, GCounter>()
    var tablet = ORMap<String, GCounter>()
    for index in 0..<12 {
      phone.update("key \(index)", by: "a", default: GCounter()) {
        $0.increment(by: UInt64(index + 1), replica: "a")
      }
    }
    for index in 0..<4 {
      tablet.update("key \(index)", by: "b", default: GCounter()) {
        $0.increment(by: 100, replica: "b")
      }
    }
    phone.merge(tablet)
    return phone
  }

  @Test(arguments: [1, 2, 3, 5, 13])
  func thePartsTogetherVisitEveryKeyOnceWithItsValue(parts: Int) {
    let map = Self.map()
    var seen: [String: UInt64] = [:]
    for part in 0..<parts {
      map.forEachBoxedValue(inPart: part, of: parts) { key, counter in
        #expect(seen.updateValue(counter.value.value, forKey: key) == nil, "\(key) visited twice")
      }
    }
    #expect(seen.count == 12)
    for key in map.keys { #expect(seen[key] == map[key]?.value, "\(key)") }
    #expect(seen["key 0"] == 101, "the join of both devices' writes")
  }
}
