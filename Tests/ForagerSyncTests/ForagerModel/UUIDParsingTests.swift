import Foundation
import SemanticCRDT
import SemanticCRDTJSON
import SharedSupport
import Testing

@testable import ForagerModel

/// The fast codec reads UUID text itself: the canonical 8-4-4-4-12 hex digits of either case,
/// read to the value `UUID(uuidString:)` gives, and nothing else. (Foundation on Linux is
/// laxer: it reads "74-32F1A-8ACF-4312-86D0-EA07E0C4B5B1" or a group holding a space, to some
/// value; this test found that, and holds the codec to the strict rule.)
@Suite struct UUIDParsingTests {
  static func parse(_ text: String) -> UUID? {
    Array(text.utf8).withUnsafeBufferPointer { UUID.parse($0) }
  }

  @Test func agreesWithFoundationOnRandomAndDamagedText() {
    var random = SplitMix64(seed: 36)
    let replacements = Array("0123456789abcdefABCDEFgG-/: ".utf8)
    for _ in 0..<2_000 {
      var text = Array(UUID().uuidString.utf8)
      switch random.int(in: 0..<4) {
      case 0: break
      case 1: text = Array(String(decoding: text, as: UTF8.self).lowercased().utf8)
      case 2:
        text[random.int(in: 0..<text.count)] = replacements[random.int(in: 0..<replacements.count)]
      default:
        if random.int(in: 0..<2) == 0 {
          text.remove(at: random.int(in: 0..<text.count))
        } else {
          text.insert(UInt8(ascii: "a"), at: random.int(in: 0...text.count))
        }
      }
      let string = String(decoding: text, as: UTF8.self)
      let canonical =
        text.count == 36
        && text.indices.allSatisfy { index in
          [8, 13, 18, 23].contains(index)
            ? text[index] == UInt8(ascii: "-") : text[index].isHexDigit
        }
      #expect(Self.parse(string) == (canonical ? UUID(uuidString: string) : nil), "\(string)")
    }
  }

  @Test func readsBothCasesToTheSameValue() throws {
    #expect(Self.parse("74-32F1A-8ACF-4312-86D0-EA07E0C4B5B1") == nil)
    #expect(Self.parse("DBFD3766-052A-46BE-A C3-A793A146B17D") == nil)
    let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
    #expect(Self.parse("E621E1F8-C36C-495A-93FC-0C247A3E6E5F") == uuid)
    #expect(Self.parse("e621e1f8-c36c-495a-93fc-0c247a3e6e5f") == uuid)
    #expect(Self.parse("E621E1F8C36C-495A-93FC-0C247A3E6E5F0") == nil)
  }

  /// Both codecs read an identifier by the same rule: JSONDecoder refuses the text Foundation's
  /// `UUID(uuidString:)` would have taken, and reads canonical text of either case.
  @Test func theCodablePathReadsByTheSameRule() throws {
    func decoded(_ text: String) -> MemberID? {
      try? JSONDecoder().decode(MemberID.self, from: Data(#""\#(text)""#.utf8))
    }
    for damaged in [
      "74-32F1A-8ACF-4312-86D0-EA07E0C4B5B1", "DBFD3766-052A-46BE-A C3-A793A146B17D",
      "E621E1F8C36C-495A-93FC-0C247A3E6E5F0", "",
    ] {
      #expect(decoded(damaged) == nil, "\(damaged)")
      #expect(throws: JSONError.self) {
        try JSONReader.decode(MemberID.self, from: Array(#""\#(damaged)""#.utf8))
      }
    }
    let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
    #expect(decoded("e621e1f8-c36c-495a-93fc-0c247a3e6e5f") == MemberID(uuid: uuid))
    #expect(decoded("E621E1F8-C36C-495A-93FC-0C247A3E6E5F") == MemberID(uuid: uuid))
  }
}

extension UInt8 {
  fileprivate var isHexDigit: Bool {
    (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
  }
}
