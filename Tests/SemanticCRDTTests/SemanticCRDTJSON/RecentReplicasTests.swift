import SemanticCRDT
import SemanticCRDTJSON
import SharedSupport
import Testing

/// A reader keeps the replica ids it read lately by their bytes and hands a kept one back when
/// the same bytes come again. Whatever it keeps, every id read must be the id its text makes.
@Suite("Replica ids read again")
struct RecentReplicasTests {
  /// Texts a kept id could be mistaken for: the same length differing in one byte (in either
  /// word), a 16-byte text and its 17-byte extension, prefixes, a decomposed accent (read
  /// composed), more ids than a reader keeps, and an escaped spelling of a plain one.
  static let texts: [String] = {
    let base = "abcdefghijklmnop"
    var texts = (1...16).map { String(base.prefix($0)) }
    for position in [0, 7, 8, 12, 15] {
      var bytes = Array(base.utf8)
      bytes[position] = UInt8(ascii: "z")
      texts.append(String(decoding: bytes, as: UTF8.self))
    }
    texts += [base + "q", base + "r", "caf\u{E9}", "cafe\u{301}", "\u{C5}", "A\u{30A}"]
    texts += (0..<6).map { "device-\($0)" }
    return texts
  }()

  @Test(arguments: [2_026_12_04 as UInt64, 7, 595_584_694])
  func everyIDReadIsTheIDItsTextMakes(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    var expected: [ReplicaID] = []
    var json = "["
    for index in 0..<2_000 {
      // Runs of a few texts, as a state's dots name a few replicas, then a jump to others.
      let text = Self.texts[random.int(in: 0..<Self.texts.count) / (index % 7 == 0 ? 1 : 3)]
      expected.append(ReplicaID(text))
      json += index == 0 ? "" : ","
      json += random.int(in: 0..<10) == 0 ? Self.escaped(text) : Self.quoted(text)
    }
    json += "]"
    let read = try JSONReader.decode([ReplicaID].self, from: Array(json.utf8))
    #expect(read.count == expected.count)
    for (index, (got, want)) in zip(read, expected).enumerated() {
      // Compared by scalars: `==` would take a decomposed text for its composed one.
      #expect(
        Array(got.rawValue.unicodeScalars) == Array(want.rawValue.unicodeScalars),
        "id \(index): \(got.rawValue.debugDescription) for \(want.rawValue.debugDescription)")
    }
  }

  /// An empty id is refused whether or not ids were read before it.
  @Test func anEmptyIDIsRefusedAfterOthers() {
    #expect(throws: JSONError.self) {
      try JSONReader.decode([ReplicaID].self, from: Array(#"["a","b",""]"#.utf8))
    }
  }

  static func quoted(_ text: String) -> String { "\"" + text + "\"" }

  /// `text` with its first scalar written as a `\u` escape.
  static func escaped(_ text: String) -> String {
    let first = text.unicodeScalars.first!
    let hex = String(first.value, radix: 16)
    return "\"\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      + String(text.unicodeScalars.dropFirst()) + "\""
  }
}
