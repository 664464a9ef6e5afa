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

  /// The comparison without a folding built says `true` exactly when the text is ASCII and its
  /// folding has the target's bytes: targets are the folding itself, the folding changed by one
  /// byte (dropped, replaced, added at either end), and other text.
  @Test func theComparisonAgreesWithTheFolding() {
    let favourites: [UInt8] = Array(" \t\n\r\u{0B}\u{0C}AZaz".utf8)
    struct Case: CustomStringConvertible {
      let text: String
      let target: String
      var description: String { "\(text.debugDescription) against \(target.debugDescription)" }
    }
    let failure = checkProperty(
      "ASCII folding compared", iterations: PropertyEnvironment.iterations(default: 5_000),
      generate: { random in
        (0..<4).map { _ in
          var bytes = (0..<random.int(in: 0...24)).map { _ in
            random.chance(0.5) ? random.pick(favourites) : UInt8(random.int(in: 0...127))
          }
          if random.chance(0.1) { bytes.insert(0xC3, at: random.int(in: 0...bytes.count)) }
          let text = String(decoding: bytes, as: UTF8.self)
          var target = Array((foldedASCII(text) ?? foldedUnicode(text)).utf8)
          switch random.int(in: 0...5) {
          case 0 where !target.isEmpty: target.remove(at: random.int(in: 0..<target.count))
          case 1 where !target.isEmpty:
            target[random.int(in: 0..<target.count)] = UInt8(random.int(in: 0...127))
          case 2: target.append(random.pick(favourites))
          case 3: target.insert(random.pick(favourites), at: 0)
          case 4: target = (0..<random.int(in: 0...8)).map { _ in random.pick(favourites) }
          default: break
          }
          return Case(text: text, target: String(decoding: target, as: UTF8.self))
        }
      },
      check: { cases in
        for pair in cases {
          let expected = foldedASCII(pair.text).map { Array($0.utf8) == Array(pair.target.utf8) }
          let compared = foldsASCII(pair.text, to: pair.target)
          if compared != (expected ?? false) {
            return "\(pair): compared \(compared), folding \(String(describing: expected))"
          }
        }
        return nil
      })
    if let failure { Issue.record("\(failure)") }
  }

  /// A key that is the name's folding only by canonical equivalence (U+037E, the Greek question
  /// mark, is a semicolon) is still the name's key: the comparison of bytes does not decide,
  /// and the model check folds the name as it always did.
  @Test func aKeyEquivalentToTheFoldingIsStillTheNamesKey() throws {
    var replica = HouseholdReplica.create(owner: MemberID(), ownerName: "Sam", replica: "a")
    let category = try replica.getOrCreateCategory(displayName: "Salt; Pepper").category
    let equivalent = CategoryKey(rawValue: "salt\u{37E} pepper")
    try #require(equivalent == category.key)
    try #require(!foldsASCII(category.displayName, to: equivalent.rawValue))
    var forged = replica.state
    forged.categories.remove(category.key)
    _ = forged.categories.set(equivalent, to: category, by: "forger")
    #expect(forged.modelViolations() == [])
    // A name whose folding is another key is still found.
    forged.categories.remove(equivalent)
    _ = forged.categories.set(CategoryKey(rawValue: "salt and pepper"), to: category, by: "forger")
    #expect(forged.modelViolations().count == 1)
  }

  @Test func textBeyondASCIITakesTheFullPath() {
    #expect(foldedASCII("Café") == nil)
    #expect(foldedASCII("Frozen\u{00A0}Foods") == nil)
    #expect(foldedText("  Frozen\u{00A0}  FOODS ") == "frozen foods")
    #expect(foldedText("  Test   CATEGORY ") == "test category")
    #expect(foldedText(" \t ") == "")
  }
}
