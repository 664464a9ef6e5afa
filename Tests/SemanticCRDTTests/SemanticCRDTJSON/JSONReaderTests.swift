import Foundation
import SemanticCRDT
import SemanticCRDTJSON
import SharedSupport
import Testing

/// The fast reader accepts exactly JSON and refuses everything else with the problem and the
/// offset.
@Suite struct JSONReaderTests {
  struct Rejection: CustomTestStringConvertible, Sendable {
    let input: [UInt8]
    let problem: JSONError.Problem
    let offset: Int
    var testDescription: String { String(decoding: input, as: UTF8.self).debugDescription }

    init(_ text: String, _ problem: JSONError.Problem, at offset: Int) {
      self.init(bytes: Array(text.utf8), problem, at: offset)
    }

    init(bytes: [UInt8], _ problem: JSONError.Problem, at offset: Int) {
      input = bytes
      self.problem = problem
      self.offset = offset
    }
  }

  /// Read as `[String: [String]]`-like data through `CausalContext`-free generic values.
  static func readAny(_ bytes: [UInt8]) throws(JSONError) -> [UInt8] {
    try bytes.withUnsafeBufferPointer { buffer throws(JSONError) in
      try JSONReader.read(buffer) { reader throws(JSONError) in try reader.readRawValue() }
    }
  }

  static let rejections: [Rejection] = [
    Rejection("", .unexpectedEnd, at: 0),
    Rejection("[1, 2", .unexpectedEnd, at: 5),
    Rejection("{\"a\": \"unterminated", .unexpectedEnd, at: 19),
    Rejection("{\"a\":1,\"a\":2}", .duplicateKey("a"), at: 7),
    Rejection("{\"a\":1,\"\\u0061\":2}", .duplicateKey("a"), at: 7),
    Rejection("[1] x", .trailingData, at: 4),
    Rejection("{} {}", .trailingData, at: 3),
    Rejection("[1e999]", .numberOutOfRange("1e999 is beyond a double"), at: 1),
    Rejection("[01]", .unexpectedByte(UInt8(ascii: "1"), expected: "',' or ']'"), at: 2),
    Rejection("[1.]", .unexpectedByte(UInt8(ascii: "]"), expected: "a digit"), at: 3),
    Rejection("[+1]", .unexpectedByte(UInt8(ascii: "+"), expected: "a value"), at: 1),
    Rejection("[tru]", .unexpectedByte(UInt8(ascii: "]"), expected: "true"), at: 4),
    Rejection("[\"a\\x\"]", .invalidEscape, at: 3),
    Rejection("[\"\\uD800\"]", .invalidEscape, at: 2),
    Rejection("[\"\\uDC00\"]", .invalidEscape, at: 2),
    Rejection("[\"tab\there\"]", .controlCharacterInString, at: 5),
    Rejection("{\"a\" 1}", .unexpectedByte(UInt8(ascii: "1"), expected: "':' after a key"), at: 5),
    Rejection("{a:1}", .unexpectedByte(UInt8(ascii: "a"), expected: "a string"), at: 1),
    Rejection("[1,]", .unexpectedByte(UInt8(ascii: "]"), expected: "a value"), at: 3),
    Rejection(bytes: [0x5B, 0x22, 0xC3, 0x28, 0x22, 0x5D], .invalidUTF8, at: 2),
    Rejection(bytes: [0x5B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x5D], .invalidUTF8, at: 2),
    Rejection(bytes: [0x5B, 0x22, 0xC0, 0xAF, 0x22, 0x5D], .invalidUTF8, at: 2),
    Rejection(bytes: [0x5B, 0x22, 0xF4, 0x90, 0x80, 0x80, 0x22, 0x5D], .invalidUTF8, at: 2),
    Rejection(bytes: [0x5B, 0x22, 0xFF, 0x22, 0x5D], .invalidUTF8, at: 2),
    Rejection(
      String(repeating: "[", count: 101) + String(repeating: "]", count: 101),
      .nestingTooDeep(limit: 100), at: 100),
  ]

  @Test(arguments: rejections)
  func refuses(_ case: Rejection) {
    #expect(throws: JSONError(`case`.problem, at: `case`.offset)) {
      try Self.readAny(`case`.input)
    }
  }

  @Test func deepNestingIsRefusedNotACrash() {
    let deep = Array(
      (String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000)).utf8)
    #expect(throws: JSONError(.nestingTooDeep(limit: 100), at: 100)) { try Self.readAny(deep) }
  }

  @Test func acceptsWhatFoundationWrites() throws {
    let value: [String: Any] = [
      "slash": "a/b", "pair": "🍓", "control": "\u{1}\n",
      "numbers": [0, -1, 1.5, 1e-7, 12345678901234],
      "nested": ["x": [true, false, NSNull()]],
    ]
    for options: JSONSerialization.WritingOptions in [[], [.prettyPrinted], [.sortedKeys]] {
      let bytes = Array(try JSONSerialization.data(withJSONObject: value, options: options))
      #expect(try Self.readAny(bytes) == bytes)
    }
    let escaped = Array(#"["\ud83c\udf53", "\/", "\u00e9"]"#.utf8)
    let strings = try JSONReader.decode([String].self, from: escaped)
    #expect(strings == ["🍓", "/", "é"])
  }

  @Test func integersMustFitTheirField() throws {
    #expect(throws: JSONError(.numberOutOfRange("more than 64 bits"), at: 1)) {
      try JSONReader.decode([UInt64].self, from: Array("[18446744073709551616]".utf8))
    }
    #expect(throws: JSONError(.numberOutOfRange("-1 does not fit UInt64"), at: 1)) {
      try JSONReader.decode([UInt64].self, from: Array("[-1]".utf8))
    }
    #expect(throws: JSONError(.numberOutOfRange("4294967296 does not fit UInt32"), at: 1)) {
      try JSONReader.decode([UInt32].self, from: Array("[4294967296]".utf8))
    }
    #expect(throws: JSONError(.numberOutOfRange("Int64 field holds a non-integer"), at: 1)) {
      try JSONReader.decode([Int64].self, from: Array("[1.5]".utf8))
    }
    #expect(
      try JSONReader.decode(
        [Int64].self, from: Array("[-9223372036854775808, 9223372036854775807]".utf8))
        == [Int64.min, Int64.max])
    #expect(
      try JSONReader.decode([UInt64].self, from: Array("[18446744073709551615]".utf8)) == [.max])
    // Nineteen digits are read without overflow checks, the twentieth with them.
    #expect(
      try JSONReader.decode([UInt64].self, from: Array("[9999999999999999999]".utf8))
        == [9_999_999_999_999_999_999])
    #expect(throws: JSONError(.numberOutOfRange("more than 64 bits"), at: 1)) {
      try JSONReader.decode([UInt64].self, from: Array("[99999999999999999999]".utf8))
    }
  }

  /// Integers of every length from one digit to twenty-one, read eight digits at a time where
  /// eight follow: each is its value, or refused past 64 bits, wherever the input ends (so that
  /// the last bytes are read one at a time); and a byte just outside the digits (`:` and `/`
  /// border them) inside a number is never read as a digit.
  @Test(arguments: [2_026_12_04 as UInt64, 3, 19])
  func integersOfEveryLengthAreReadExactly(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    for _ in 0..<3_000 {
      let length = random.int(in: 1...21)
      var digits = String(random.int(in: 1...9))
      for _ in 1..<length { digits += String(random.pick("0123456789")) }
      let spaces = String(repeating: " ", count: random.int(in: 0...9))
      let text = "[" + digits + ",7]" + spaces
      if let expected = UInt64(digits) {
        #expect(try JSONReader.decode([UInt64].self, from: Array(text.utf8)) == [expected, 7])
      } else {
        #expect(throws: JSONError(.numberOutOfRange("more than 64 bits"), at: 1), "\(text)") {
          try JSONReader.decode([UInt64].self, from: Array(text.utf8))
        }
      }
      guard length > 1 else { continue }
      var broken = Array(digits.utf8)
      broken[random.int(in: 1..<length)] = random.pick([UInt8(ascii: ":"), UInt8(ascii: "/")])
      let brokenText = "[" + String(decoding: broken, as: UTF8.self) + "]" + spaces
      #expect(throws: JSONError.self, "\(brokenText)") {
        try JSONReader.decode([UInt64].self, from: Array(brokenText.utf8))
      }
    }
  }

  @Test func writerEscapesAndRoundTrips() throws {
    let tricky = [
      "", "plain", "quote\"", "back\\slash", "\u{0}\u{1F}\u{7F}", "\n\r\t\u{8}\u{C}", "é🍓",
    ]
    let bytes = JSONWriter.encode(tricky)
    #expect(try JSONReader.decode([String].self, from: bytes) == tricky)
    let foundation = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String]
    #expect(foundation == tricky)
    #expect(
      String(decoding: JSONWriter.encode(["\u{0}\"\n"]), as: UTF8.self) == #"["\u0000\"\n"]"#)
  }
}

@Suite struct ScalarOrderTests {
  @Test func bytesOrderAsScalars() {
    let samples = [
      "", "a", "b", "ab", "aa", "é", "e\u{301}", "z", "🍓", "日本", "Z", "a b", "\u{7F}", "\u{80}",
      // Longer than a small string's 15 bytes, differing only at the end or in length.
      "replica-0123456789-a", "replica-0123456789-b", "replica-0123456789-", "replica-0123456789-é",
    ]
    for a in samples {
      for b in samples {
        #expect(
          a.precedesByScalars(b) == a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars),
          "\(a.debugDescription) vs \(b.debugDescription)")
      }
    }
  }
}
