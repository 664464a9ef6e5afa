import SemanticCRDT
import Testing

/// Reading a key of an ORMap (and so get-or-create of a category, template or slot, which
/// reads `ORMap` by semantic key) is a hash lookup, not a scan: with 100,000 keys, each lookup
/// compares about one key. A scan would compare tens of thousands.
@Suite("Lookup cost")
struct LookupCostTests {
  final class ComparisonCounter {
    var comparisons = 0
  }

  struct CountingKey: Hashable {
    let value: Int
    let counter: ComparisonCounter

    static func == (lhs: CountingKey, rhs: CountingKey) -> Bool {
      lhs.counter.comparisons += 1
      return lhs.value == rhs.value
    }

    func hash(into hasher: inout Hasher) { hasher.combine(value) }
  }

  @Test func lookupsInAHundredThousandKeysCompareAboutOneKeyEach() {
    let counter = ComparisonCounter()
    var map = ORMap<CountingKey, GCounter>()
    for value in 0..<100_000 {
      map.set(CountingKey(value: value, counter: counter), to: GCounter(), by: "phone")
    }
    counter.comparisons = 0
    var found = 0
    for value in stride(from: 0, to: 200_000, by: 200) {  // 500 present, 500 absent
      if map.contains(CountingKey(value: value, counter: counter)) { found += 1 }
    }
    #expect(found == 500)
    #expect(
      counter.comparisons <= 2 * 1_000, "\(counter.comparisons) comparisons for 1,000 lookups")
  }
}
