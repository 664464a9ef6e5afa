import CRDTTestSupport
import SemanticCRDT
import Testing

@testable import ForagerModel

/// The byte-level folding of ASCII text gives exactly what the full Unicode folding gives.
@Suite struct TextFoldingTests {
  struct Text: CustomStringConvertible {
    let value: String
    var description: String { value.debugDescription }
  }

  @Test func theASCIIPathAgreesWithTheFullFolding() {
    // Every ASCII byte can appear; white space and letters more often, so runs occur.
    let favourites: [UInt8] = Array(" \t\n\r\u{0B}\u{0C}AZaz".utf8)
    let failure = checkProperty(
      "ASCII folding", iterations: PropertyEnvironment.iterations(default: 5_000),
      generate: { random in
        (0..<random.int(in: 0...24)).map { _ in
          let byte = random.chance(0.5) ? random.pick(favourites) : UInt8(random.int(in: 0...127))
          return Text(value: String(decoding: [byte], as: UTF8.self))
        }
      },
      check: { characters in
        let text = characters.map(\.value).joined()
        let fast = foldedASCII(text)
        let full = foldedUnicode(text)
        return fast == full
          ? nil
          : "\(text.debugDescription): fast \(String(describing: fast)) but full \(full.debugDescription)"
      })
    if let failure { Issue.record("\(failure)") }
  }

  @Test func textBeyondASCIITakesTheFullPath() {
    #expect(foldedASCII("Café") == nil)
    #expect(foldedASCII("Frozen\u{00A0}Foods") == nil)
    #expect(foldedText("  Frozen\u{00A0}  FOODS ") == "frozen foods")
    #expect(foldedText("  Test   CATEGORY ") == "test category")
    #expect(foldedText(" \t ") == "")
  }
}
