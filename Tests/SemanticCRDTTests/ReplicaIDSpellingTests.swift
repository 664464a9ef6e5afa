import Foundation
import SemanticCRDTJSON
import SharedSupport
import Testing

@testable import CRDTTestSupport
@testable import SemanticCRDT

/// A replica id spelled two canonically equivalent ways (`"é"` precomposed and decomposed) is
/// one id: equal, at one place in the order, hashed alike and encoded alike. Before ids were
/// kept composed, the spellings were equal (`String`'s equality) yet one sorted before the
/// other (scalar order), so two devices holding one write in different spellings could each
/// keep its own winner of a tie, for good.
@Suite("Replica ids spelled two ways")
struct ReplicaIDSpellingTests {
  /// Spellings of one text each: precomposed, decomposed, and others Unicode calls equivalent
  /// (a compatibility sign that composes to a letter; combining marks in the other order).
  static let spellings: [[String]] = [
    ["\u{E9}", "e\u{301}"],
    ["\u{C5}", "A\u{30A}", "\u{212B}"],
    ["\u{AC00}", "\u{1100}\u{1161}"],
    ["\u{AC01}", "\u{AC00}\u{11A8}", "\u{1100}\u{1161}\u{11A8}"],
    ["\u{1E69}", "s\u{323}\u{307}", "s\u{307}\u{323}"],
    ["caf\u{E9} \u{F1}", "cafe\u{301} n\u{303}"],
  ]

  @Test(arguments: spellings)
  func spellingsOfOneTextAreOneID(_ texts: [String]) throws {
    let ids = texts.map { ReplicaID($0) }
    let first = ids[0]
    let composed = Array(texts[0].unicodeScalars)
    for id in ids {
      #expect(Array(id.rawValue.unicodeScalars) == composed)
      let precedes = id < first || first < id
      #expect(id == first && !precedes)
      #expect(id.hashValue == first.hashValue)
    }
    for text in texts {
      let json = Array(try JSONEncoder().encode([text]))
      let fromCodable = try JSONDecoder().decode([ReplicaID].self, from: Data(json))
      let fromCodec = try JSONReader.decode([ReplicaID].self, from: json)
      #expect(fromCodable.map { Array($0.rawValue.unicodeScalars) } == [composed])
      #expect(fromCodec.map { Array($0.rawValue.unicodeScalars) } == [composed])
      let expected: [ReplicaID] = [first]
      #expect(JSONWriter.encode(fromCodec) == JSONWriter.encode(expected))
    }
  }

  /// Any two ids are equal, or one precedes the other, never two of these; and equal exactly
  /// when their texts are canonically equivalent.
  @Test func idsAreTotallyOrderedAsTheyCompare() {
    let latin = ["e", "\u{E9}", "\u{301}", "n", "\u{303}", "\u{F1}", "\u{323}", "\u{307}", "s"]
    // Syllables of two and three jamo, a trailing consonant and jamo one by one: the pieces
    // of one Hangul syllable, which Foundation on Linux did not compose from all of them.
    let hangul = ["\u{AC00}", "\u{AC01}", "\u{11A8}", "\u{1100}", "\u{1161}"]
    var random = SplitMix64(seed: 2_026_12_03)
    for _ in 0..<6_000 {
      let pieces = random.pick([latin, hangul])
      let texts = (0..<2).map { _ in
        (0..<random.int(in: 1...3)).map { _ in random.pick(pieces) }.joined()
      }
      let (left, right) = (ReplicaID(texts[0]), ReplicaID(texts[1]))
      let answers = [left < right, left == right, right < left]
      #expect(answers.filter { $0 }.count == 1, "\(texts.map(\.debugDescription))")
      #expect((left == right) == (texts[0] == texts[1]))
    }
  }

  /// The counterexample the accented scenarios found, written out: two writes at one instant,
  /// `"é"`'s and `"f"`'s; `"é"`'s reaches `"f"` decomposed, where it sorted before `"f"` and
  /// lost, while `"é"` and the specification kept it (`RegressionSeeds.lwwRegister`).
  @Test func aTieIsWonAlikeWhateverSpellingTheWinnerArrivedIn() {
    let scenario = ReplicaScenario<LWWRegisterModel>(
      replicas: ReplicaScenario<LWWRegisterModel>.accentedReplicas, skews: [0, 0, 0, 0, 0],
      steps: [
        .operate(replica: 2, LWWRegisterModel.Operation(value: 1), advance: 0),
        .operate(replica: 1, LWWRegisterModel.Operation(value: 3), advance: 0),
        .send(from: 2, to: 1, .full),
        .deliver(pick: 0, duplicate: false),
      ], decomposesMessages: true)
    #expect(scenario.run() == nil)
  }
}
