import Foundation

/// The semantic key of an ingredient template: its canonical name.
///
/// A recipe line, a typed grocery item and a staple all find the same template when they name
/// the same ingredient: `"2 cups Fresh Basil"`, `"basil"` and `"Basil leaves, chopped"` share
/// one key.
///
/// ## The pipeline
///
/// 1. Fold: Unicode NFC, lowercase, white space collapsed (as for categories).
/// 2. Drop parenthesized and bracketed asides: `"flour (sifted)"` → `"flour"`.
/// 3. Cut at the first comma, which introduces preparation: `"onion, finely diced"` → `"onion"`.
/// 4. Drop "to taste" and "as needed".
/// 5. Split into words: numbers glued to units come apart (`"200g"` → `"200 g"`), vulgar
///    fractions become words of their own (`"1½"` → `"1 ½"`), and punctuation around each word
///    is trimmed (inner hyphens, slashes and apostrophes stay).
/// 6. Drop quantities anywhere: integers, decimals, fractions (`1/2`, `½`), ranges (`2-3`,
///    `2–3`, `2 to 3`); and counting words (`a`, `two`, `half`…) at the start.
/// 7. Drop units and preparation words, and an `of` right after a dropped unit, as long as
///    something else remains: `"2 cloves garlic"` → `"garlic"`, but `"cloves"` → `"clove"`.
/// 8. Singularize the last word, the head of the phrase: `"cherry tomatoes"` →
///    `"cherry tomato"`, `"bay leaves"` → `"bay leaf"`; invariant plurals (`asparagus`,
///    `hummus`…) and irregular ones (`cookies` → `cookie`) come from fixed lists.
///
/// When every word would be dropped, the folded text is kept instead, so no name has an empty
/// key. The steps repeat until the result no longer changes, so a canonical name is its own
/// canonical name (a property test checks this on random text). The vocabulary depends on the ``NormalizerVersion``; see ``NormalizerVersion`` for the
/// changes.
public struct IngredientKey: RawRepresentable, Hashable, Comparable, Codable, Sendable {
  /// The canonical name.
  public let rawValue: String

  /// Wraps an already canonical name.
  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  /// Computes the canonical name of an ingredient as written in a recipe or a list.
  ///
  /// - Complexity: O(*n*) in the length of the text.
  public init(normalizing text: String, version: NormalizerVersion = .current) {
    rawValue = IngredientPipeline(vocabulary: .forVersion(version)).canonicalName(of: text)
  }

  /// Whether this key is the canonical name of its own text under `version`'s rules, as every
  /// stored key must be: one pass of the pipeline leaves it unchanged. (The canonical name is
  /// the pass's fixed point; a text one pass leaves unchanged is that fixed point, and one it
  /// changes is not its own canonical name, since every pass only drops words or singularizes.)
  ///
  /// - Complexity: one pass, O(*n*) in the key's length; half of normalizing it again.
  package func isCanonical(version: NormalizerVersion) -> Bool {
    IngredientPipeline(vocabulary: .forVersion(version)).isFixedPoint(rawValue)
  }

  /// Orders keys by their text (Unicode scalar order).
  public static func < (lhs: IngredientKey, rhs: IngredientKey) -> Bool {
    lhs.rawValue.precedesByScalars(rhs.rawValue)
  }
}

extension IngredientKey: CustomStringConvertible {
  public var description: String { rawValue }
}

/// The steps of ``IngredientKey/init(normalizing:version:)``.
struct IngredientPipeline {
  let vocabulary: IngredientVocabulary

  /// Runs ``pass(_:)`` until its output stops changing. Each rule can expose work for
  /// another (dropping a quantity joins "to … taste"; dropping "to taste" puts a counting word
  /// first), so one pass is not always canonical; the fixed point is, by construction. Every
  /// pass only removes words or singularizes the last one, so two passes are typical and eight
  /// are never needed in the property tests.
  func canonicalName(of text: String) -> String {
    var current = pass(text)
    for _ in 0..<8 {
      let next = pass(current)
      if next == current { break }
      current = next
    }
    return current
  }

  /// Whether one pass leaves `text` as it is, which makes it its own canonical name. The
  /// pass's words are compared with `text` where they are, not joined first: every file's
  /// check asks this of every template.
  func isFixedPoint(_ text: String) -> Bool {
    let (words, folded) = passWords(text)
    guard !words.isEmpty else { return folded == text }
    return Self.asciiJoined(words, equals: text) ?? (words.joined(separator: " ") == text)
  }

  /// Whether `words` joined by spaces are `text`, compared byte by byte; `nil` when a word or
  /// `text` is not ASCII, where equal strings may differ in their bytes (canonical
  /// equivalence), and only `String`'s comparison can say.
  private static func asciiJoined(_ words: [String], equals text: String) -> Bool? {
    func isASCII(_ string: String) -> Bool {
      var string = string
      return string.withUTF8 { !$0.contains { $0 >= 0x80 } }
    }
    guard isASCII(text), words.allSatisfy(isASCII) else { return nil }
    var text = text
    return text.withUTF8 { bytes in
      var offset = 0
      for (index, word) in words.enumerated() {
        if index > 0 {
          guard offset < bytes.count, bytes[offset] == 0x20 else { return false }
          offset += 1
        }
        var word = word
        let matches = word.withUTF8 { letters in
          bytes.count - offset >= letters.count
            && letters.elementsEqual(bytes[offset..<offset + letters.count])
        }
        guard matches else { return false }
        offset += word.utf8.count
      }
      return offset == bytes.count
    }
  }

  private func pass(_ text: String) -> String {
    let (words, folded) = passWords(text)
    return words.isEmpty ? folded : words.joined(separator: " ")
  }

  /// One pass's words, to be joined by spaces; none when every word was dropped, where the
  /// pass gives `folded`, the folded text.
  private func passWords(_ text: String) -> (words: [String], folded: String) {
    let folded = foldedText(text)
    var phrase = removingAsides(folded)
    // A comma needs its byte: asking the bytes first spares most names a walk by Character.
    if phrase.utf8.contains(0x2C), let comma = phrase.firstIndex(of: ",") {
      phrase = String(phrase[..<comma])
    }
    var words = droppingFillers(tokens(of: phrase))
    words = droppingQuantities(words)
    words = droppingDescriptors(words)
    guard let head = words.popLast() else { return ([], folded) }
    words.append(singular(head))
    return (words, folded)
  }

  /// Removes `(…)` and `[…]`, nested or not; an unclosed bracket removes the rest.
  private func removingAsides(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 == 0x28 || $0 == 0x29 || $0 == 0x5B || $0 == 0x5D })
    else { return text }
    var result = ""
    var depth = 0
    for character in text {
      switch character {
      case "(", "[": depth += 1
      case ")", "]": depth = max(0, depth - 1)
      default: if depth == 0 { result.append(character) }
      }
    }
    return result
  }

  /// Splits on white space, splits digits from letters and vulgar fractions from whatever they
  /// touch, and trims punctuation around each token, so that no later rule sees a word hidden
  /// behind a quote or a bang (a counterexample the fixed-point property found: `'a é`).
  private func tokens(of text: String) -> [String] {
    // Words of ASCII letters alone, as most names are, need neither splitting nor trimming.
    let isLetterOrSpace = { (byte: UInt8) in
      byte == 0x20 || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
    // Split by byte, in place: in such text every Character is one byte.
    var text = text
    let asciiWords = text.withUTF8 { bytes -> [String]? in
      guard bytes.allSatisfy(isLetterOrSpace) else { return nil }
      var words: [String] = []
      var start = 0
      for end in 0...bytes.count where end == bytes.count || bytes[end] == 0x20 {
        if end > start {
          words.append(
            String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
        }
        start = end + 1
      }
      return words
    }
    if let asciiWords { return asciiWords }
    return untrimmedTokens(of: text).map(trimmedPunctuation).filter { !$0.isEmpty }
  }

  private func untrimmedTokens(of text: String) -> [String] {
    var result: [String] = []
    for word in text.split(separator: " ") {
      var current = ""
      var previous: Character?
      for character in word {
        let boundary =
          previous.map { previous in
            (previous.isNumberFast && character.isLetterFast)
              || (previous.isLetterFast && character.isNumberFast)
              || isVulgarFraction(character) || isVulgarFraction(previous)
          } ?? false
        if boundary && !current.isEmpty {
          result.append(current)
          current = ""
        }
        current.append(character)
        previous = character
      }
      if !current.isEmpty { result.append(current) }
    }
    return result
  }

  /// Drops the phrases "to taste" and "as needed", word by word.
  private func droppingFillers(_ words: [String]) -> [String] {
    var kept = KeptWords(words)
    for (index, word) in words.enumerated() {
      if let previous = kept.last(before: index),
        (previous == "to" && word == "taste") || (previous == "as" && word == "needed")
      {
        kept.drop(at: index, andTheLastKept: true)
        continue
      }
      kept.keep(word)
    }
    return kept.result
  }

  private func isVulgarFraction(_ character: Character) -> Bool {
    character.isNumberFast && character.unicodeScalars.count == 1
      && character.unicodeScalars.first!.properties.numericType == .numeric
      && !character.isWholeNumber
  }

  /// Whether a token is a quantity: digits with `.`, `,`, `/`, `-` or `–` inside, or a
  /// vulgar fraction.
  private func isQuantity(_ token: String) -> Bool {
    // A Character that starts with an ASCII letter is a letter, whatever follows it.
    if let byte = token.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) {
      return false
    }
    guard let first = token.first, first.isNumberFast else { return false }
    return token.allSatisfy { $0.isNumberFast || ".,/-–".contains($0) }
  }

  private func droppingQuantities(_ words: [String]) -> [String] {
    var kept = KeptWords(words)
    var atStart = true
    for (index, word) in words.enumerated() {
      let isBetweenQuantities =
        word == "to" && index > 0 && isQuantity(words[index - 1]) && index + 1 < words.count
        && isQuantity(words[index + 1])
      if isQuantity(word) || isBetweenQuantities
        || (atStart && vocabulary.quantityWords.contains(word))
      {
        kept.drop(at: index)
        continue
      }
      // The leading phrase runs on through units and preparation words ("cup 2 a …",
      // "fresh a …"): a counting word after them still counts as leading. Once it has ended,
      // no word is looked up for it again.
      if atStart { atStart = isUnit(word) || isPreparation(word) || word == "of" }
      kept.keep(word)
    }
    return kept.result
  }

  /// Drops units (and an `of` after one) and preparation words, keeping at least one word.
  private func droppingDescriptors(_ words: [String]) -> [String] {
    var kept = KeptWords(words)
    var afterUnit = false
    for (index, word) in words.enumerated() {
      let dropped: Bool
      if isUnit(word) {
        afterUnit = true
        dropped = true
      } else if afterUnit && word == "of" {
        afterUnit = false
        dropped = true
      } else {
        afterUnit = false
        dropped = isPreparation(word)
      }
      if dropped { kept.drop(at: index) } else { kept.keep(word) }
    }
    let result = kept.result
    if result.isEmpty, let last = words.last { return [last] }
    return result
  }

  private func trimmedPunctuation(_ word: String) -> String {
    let isKept = { (character: Character) in character.isLetterFast || character.isNumberFast }
    guard let start = word.firstIndex(where: isKept), let end = word.lastIndex(where: isKept)
    else { return "" }
    return String(word[start...end])
  }

  /// Whether `word`, or its singular, is a unit. Checking the singular too keeps the head
  /// word's singularization from turning it into a unit a second pass would drop.
  private func isUnit(_ word: String) -> Bool {
    isListed(word, in: vocabulary.units)
  }

  /// Whether `word`, or its singular when that differs, is in `list`.
  private func isListed(_ word: String, in list: WordList) -> Bool {
    if list.contains(word) { return true }
    let singular = singular(word)
    return singular != word && list.contains(singular)
  }

  /// Whether `word`, or its singular, is a preparation word (`"choppeds"` is `"chopped"`).
  private func isPreparation(_ word: String) -> Bool {
    isListed(word, in: vocabulary.preparation)
  }

  /// The singular of an English noun, by fixed lists first and suffix rules after, applied
  /// until nothing changes (`"cookiess"` → `"cookies"` → `"cookie"`). A word whose stem would
  /// end in anything but a letter (`"ß's"`, `"cups-s"`) is left alone. The result is its own
  /// singular, which the fixed-point property of the keys relies on.
  func singular(_ word: String) -> String {
    // Most words are their own singular, and every word is asked (units and preparation words
    // are matched in the singular): one that ends in no "s" and is no irregular plural is,
    // by the rules below, without running them.
    if word.utf8.last != UInt8(ascii: "s")
      && !IngredientVocabulary.irregularPluralWords.contains(word)
    {
      return word
    }
    var current = word
    while true {
      let candidate = singularCandidate(current)
      guard candidate != current, candidate.last?.isLetterFast == true else { return current }
      current = candidate
    }
  }

  private func singularCandidate(_ word: String) -> String {
    if word.count < 3 || IngredientVocabulary.invariantPlurals.contains(word) { return word }
    if let irregular = IngredientVocabulary.irregularPlurals[word] { return irregular }
    if word.hasSuffix("ies") { return String(word.dropLast(3)) + "y" }
    if word.hasSuffix("oes") { return String(word.dropLast(2)) }
    for suffix in ["ches", "shes", "sses", "xes", "zzes"] where word.hasSuffix(suffix) {
      return String(word.dropLast(2))
    }
    if word.hasSuffix("ss") || word.hasSuffix("us") || word.hasSuffix("is") { return word }
    if word.hasSuffix("s") { return String(word.dropLast()) }
    return word
  }
}

extension Character {
  /// `isLetter`, without the Unicode property lookup for ASCII (most of what keys are made of):
  /// the pipeline asks it of every character, and the lookup was most of its cost.
  package var isLetterFast: Bool {
    guard let ascii = asciiValue else { return isLetter }
    return (0x41...0x5A).contains(ascii) || (0x61...0x7A).contains(ascii)
  }

  /// `isNumber`, without the Unicode property lookup for ASCII: only the digits are numbers
  /// there.
  package var isNumberFast: Bool {
    guard let ascii = asciiValue else { return isNumber }
    return (0x30...0x39).contains(ascii)
  }
}

/// The words a step of the pipeline keeps, as it walks `words` in order: a copy is made only
/// once the step drops one. Most names lose no word to a step, and keep the array they came in
/// rather than one built anew at every step.
private struct KeptWords {
  let words: [String]
  /// The words kept so far, once one was dropped; `nil` while they are all of `words` walked.
  private var copy: [String]?

  init(_ words: [String]) {
    self.words = words
  }

  /// The last word kept before the one at `index`.
  func last(before index: Int) -> String? {
    if let copy { return copy.last }
    return index > 0 ? words[index - 1] : nil
  }

  /// Drops the word at `index`, the next walked, and the last word kept before it too when
  /// `andTheLastKept` (a phrase of two words).
  mutating func drop(at index: Int, andTheLastKept: Bool = false) {
    if copy == nil { copy = Array(words[..<index]) }
    if andTheLastKept { copy?.removeLast() }
  }

  /// Keeps `word`, the next walked.
  mutating func keep(_ word: String) {
    copy?.append(word)
  }

  /// The words kept.
  var result: [String] { copy ?? words }
}
