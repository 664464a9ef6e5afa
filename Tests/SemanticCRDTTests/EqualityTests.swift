import SharedSupport
import Testing

@testable import SemanticCRDT

/// The equality the CRDTs' generic values write out (so that callers specialize it) against
/// the plain comparison of what they hold: a written-out `==` that forgot a part, or answered
/// true too often, would make every convergence test pass on states that differ.
@Suite("Equality of registers and siblings")
struct EqualityTests {
  @Test func aRegisterIsEqualExactlyWhenItsValueAndTimestampAre() {
    var random = SplitMix64(seed: 2_026_12_03)
    for _ in 0..<2_000 {
      let (left, right) = (register(&random), register(&random))
      #expect((left == right) == (left.value == right.value && left.timestamp == right.timestamp))
      #expect(left == left)
    }
  }

  @Test func siblingsAreEqualExactlyWhenTheirDotsAndValuesAre() {
    var random = SplitMix64(seed: 2_026_12_03)
    for _ in 0..<2_000 {
      let (left, right) = (siblings(&random), siblings(&random))
      let held = { (siblings: DotSiblings<Int>) -> [String] in
        var held: [String] = []
        siblings.forEachElement { held.append("\($0)=\($1)") }
        return held
      }
      #expect((left == right) == (held(left) == held(right)), "\(held(left)) \(held(right))")
      #expect(left == left)
    }
  }

  private func register(_ random: inout SplitMix64) -> LWWRegister<Int> {
    LWWRegister(
      random.int(in: 0...1),
      at: HybridTimestamp(
        wallMilliseconds: UInt64(random.int(in: 1...2)), replica: random.pick(["a", "b"])))
  }

  /// One or two dots of two replicas and two counters, each with one of two values.
  private func siblings(_ random: inout SplitMix64) -> DotSiblings<Int> {
    let dots = [Dot("a", 1), Dot("a", 2), Dot("b", 1)]
    if random.chance(0.5) {
      return DotSiblings(dot: random.pick(dots), value: random.int(in: 0...1))
    }
    let first = random.int(in: 0...1)
    let second = random.int(in: first + 1...2)
    return DotSiblings(sorted: [
      DottedValue(dot: dots[first], value: random.int(in: 0...1)),
      DottedValue(dot: dots[second], value: random.int(in: 0...1)),
    ])!
  }
}
