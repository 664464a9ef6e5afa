import CRDTTestSupport
import SemanticCRDT
import SemanticCRDTJSON
import SharedSupport
import Testing

/// `locateValue` finds where a value ends (for the replica file's sections) without validating
/// it; it must find the same end as the validating skip on valid JSON, and never run away.
@Suite struct LocateValueTests {
  /// The ranges of the members of a top-level object, found with `locate`.
  static func ranges(
    _ text: String, _ locate: (inout JSONReader) throws(JSONError) -> Range<Int>
  ) throws(JSONError) -> [String: Range<Int>] {
    var ranges: [String: Range<Int>] = [:]
    try Array(text.utf8).withUnsafeBufferPointer { bytes throws(JSONError) in
      try JSONReader.read(bytes) { reader throws(JSONError) in
        try reader.readDynamicObject { reader, key throws(JSONError) in
          ranges[key] = try locate(&reader)
        }
      }
    }
    return ranges
  }

  @Test(arguments: [
    #"{"a":{"b":[1,2,{"c":"]}"}]},"d":"x\"}]","e":-12.5e3,"f":true,"g":null,"h":[]}"#,
    #"{ "a" : [ "\\" , "\\\"" ] , "b" : { } , "c" : 0 }"#,
    #"{"a":"é ✓ 😀","b":[[[[["deep"]]]]]}"#,
  ])
  func findsTheSameEndsAsTheValidatingSkip(text: String) throws {
    let fast = try Self.ranges(text) { reader throws(JSONError) in try reader.locateValue() }
    let checked = try Self.ranges(text) { reader throws(JSONError) in try reader.skipValue() }
    #expect(fast == checked)
    #expect(!fast.isEmpty)
  }

  /// Random documents whose strings hold brackets, braces, escaped quotes and backslashes,
  /// multi-byte text and runs of plain letters of every length, so that every byte the scan
  /// stops at falls at every place in its eight-byte word (the scan steps a word at a time).
  @Test func findsTheSameEndsAsTheValidatingSkipOnRandomDocuments() throws {
    var random = SplitMix64(seed: PropertyEnvironment.replaySeed ?? 8)
    let pieces = ["[", "]", "{", "}", "\\\"", "\\\\", ",", ":", "é", "😀", " ", "\\u005d"]
    func string() -> String {
      let parts = (0..<random.int(in: 0...4)).map { _ in
        random.int(in: 0...1) == 0
          ? random.pick(pieces) : String(repeating: "x", count: random.int(in: 0...19))
      }
      return "\"" + parts.joined() + "\""
    }
    func value(_ depth: Int) -> String {
      switch depth > 3 ? random.int(in: 0...1) : random.int(in: 0...3) {
      case 0: return string()
      case 1: return random.pick(["12", "-0.5e3", "true", "null", "[]", "{}"])
      case 2:
        return "["
          + (0..<random.int(in: 1...4)).map { _ in value(depth + 1) }.joined(separator: ",") + "]"
      default:
        let members = (0..<random.int(in: 1...4)).map { index in "\"k\(index)\":" + value(depth + 1)
        }
        return "{" + members.joined(separator: " , ") + "}"
      }
    }
    for _ in 0..<PropertyEnvironment.iterations(default: 500) {
      let text = "{" + (0..<4).map { "\"m\($0)\":" + value(0) }.joined(separator: ",") + "}"
      let fast = try Self.ranges(text) { reader throws(JSONError) in try reader.locateValue() }
      let checked = try Self.ranges(text) { reader throws(JSONError) in try reader.skipValue() }
      #expect(fast == checked, "\(text)")
    }
  }

  /// A value cut short is refused at an offset inside the input, also when the last byte is
  /// the backslash of an escape (the fuzz test's seed 595584694773144505 found an offset one
  /// past the end).
  @Test func aValueCutShortIsAnUnexpectedEndInsideTheInput() {
    for text in [#"{"a":[1,2"#, #"{"a":"abc"#, #"{"a":"ab\"#, #"{"a":{"b":[]"#, #"{"a":["\"#] {
      do {
        _ = try Self.ranges(text) { reader throws(JSONError) in try reader.locateValue() }
        Issue.record("accepted \(text)")
      } catch {
        #expect(error.problem == .unexpectedEnd, "\(text)")
        #expect(error.offset <= text.utf8.count, "\(text): offset \(error.offset)")
      }
    }
  }

  @Test func nestingOfAnyDepthNeedsNoRecursion() throws {
    let depth = 200_000
    let text =
      "{\"a\":" + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
    let ranges = try Self.ranges(text) { reader throws(JSONError) in try reader.locateValue() }
    #expect(ranges["a"]?.count == 2 * depth)
  }
}
