import CRDTTestSupport
import ForagerSync
import ForagerTestSupport
import Foundation
import SemanticCRDT
import SemanticCRDTJSON
import SharedSupport
import Testing

/// The fast codec and Foundation's must agree on every household: same bytes out, same state
/// back in, each reading the other's output.
@Suite struct HouseholdCodecTests {
  /// The random households' seeds, and ``conflicted``.
  static let seeds =
    [conflicted] + (0..<UInt64(PropertyEnvironment.iterations(default: 60))).map { $0 * 7919 + 3 }

  /// Not a seed: the household of ``state(_:)``'s second case, which holds what the random
  /// edits reach in about one household in 2,000, a slot two devices filled concurrently.
  static let conflicted = UInt64.max

  /// The random household of `seed`, or, for ``conflicted``, one grown from seed 5 in which
  /// two devices then fill one slot with different recipes and merge.
  static func state(_ seed: UInt64) -> HouseholdState {
    guard seed == conflicted else { return RandomHousehold.state(seed: seed) }
    var replicas = RandomHousehold.replicas(seed: 5)
    let slot = SlotKey(rawValue: "2024-12-12-dinner")!
    for index in 0..<2 {
      let recipe = try! replicas[index].addRecipe(title: "Dish \(index)").recipe.id
      _ = try! replicas[index].assignRecipe(recipe, to: slot, replacing: true)
    }
    try! replicas[0].merge(replicas[1].state)
    return replicas[0].state
  }

  static func foundationBytes(_ state: HouseholdState, formatting: JSONEncoder.OutputFormatting)
    throws -> [UInt8]
  {
    let encoder = JSONEncoder()
    encoder.outputFormatting = formatting
    return Array(try encoder.encode(state))
  }

  @Test(arguments: seeds)
  func writesTheBytesJSONEncoderWrites(seed: UInt64) throws {
    let state = Self.state(seed)
    let fast = JSONWriter.encode(state)
    let foundation = try Self.foundationBytes(
      state, formatting: [.sortedKeys, .withoutEscapingSlashes])
    if fast != foundation {
      let first =
        (0..<min(fast.count, foundation.count)).first { fast[$0] != foundation[$0] }
        ?? min(fast.count, foundation.count)
      let context = { (bytes: [UInt8]) in
        String(decoding: bytes[max(0, first - 60)..<min(bytes.count, first + 60)], as: UTF8.self)
      }
      Issue.record(
        "seed \(seed): bytes differ at \(first)\nfast:       \(context(fast))\nfoundation: \(context(foundation))"
      )
    }
  }

  @Test(arguments: seeds)
  func eachReadsTheOthersOutput(seed: UInt64) throws {
    let state = Self.state(seed)
    let fast = JSONWriter.encode(state)
    #expect(try JSONReader.decode(HouseholdState.self, from: fast) == state)
    #expect(try JSONDecoder().decode(HouseholdState.self, from: Data(fast)) == state)
    for formatting: JSONEncoder.OutputFormatting in [[], [.prettyPrinted], [.sortedKeys]] {
      let foreign = try Self.foundationBytes(state, formatting: formatting)
      #expect(try JSONReader.decode(HouseholdState.self, from: foreign) == state)
    }
  }

  /// The agreement above means little unless the random states reach the awkward cases.
  @Test func randomHouseholdsReachTheAwkwardCases() {
    var reached: Set<String> = []
    for seed in Self.seeds {
      let state = Self.state(seed)
      let text = String(decoding: JSONWriter.encode(state), as: UTF8.self)
      for (name, marker) in [
        ("NUL escape", "\\u0000"), ("quote escape", "\\\""), ("backslash", "\\\\"),
        ("emoji", "🍓"), ("recipe source", "\"recipe\":{\"_0\""),
        ("null category", "\"value\":null"),
      ] where text.contains(marker) {
        reached.insert(name)
      }
      if state.meals.values.contains(where: { $0.assignment.isConflicted }) {
        reached.insert("slot conflict")
      }
      if state.ingredients.values.contains(where: { $0.usageCount > 0 }) { reached.insert("uses") }
      if state.recordCount > 20 { reached.insert("20+ records") }
    }
    #expect(
      reached == [
        "NUL escape", "quote escape", "backslash", "emoji", "recipe source", "null category",
        "slot conflict", "uses", "20+ records",
      ])
  }

  @Test func equalStatesGiveIdenticalBytes() throws {
    // The same edits applied in a different order and merged give equal states; their
    // dictionaries hash differently, and the bytes must not care.
    let replicas = RandomHousehold.replicas(seed: 42, operations: 80)
    var forward = replicas[0]
    var backward = replicas[replicas.count - 1]
    for replica in replicas.dropFirst() { try forward.merge(replica.state) }
    for replica in replicas.dropLast().reversed() { try backward.merge(replica.state) }
    #expect(forward.state == backward.state)
    #expect(JSONWriter.encode(forward.state) == JSONWriter.encode(backward.state))
  }

  @Test func identifiersOrderAsTheirText() {
    var random = SplitMix64(seed: 7)
    for _ in 0..<2_000 {
      let a = RecipeID(uuid: RandomHousehold.uuid(&random))
      let b = RecipeID(uuid: RandomHousehold.uuid(&random))
      #expect((a < b) == (a.uuid.uuidString < b.uuid.uuidString))
    }
  }
}
