/// Why ``JSONReader`` refused its input, and where.
///
/// Every refusal carries the byte offset at which reading stopped, so a caller can say
/// "offset 1,284: a key appears twice" about a file of megabytes.
public struct JSONError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What is wrong.
  public enum Problem: Equatable, Sendable {
    /// The input ended inside a value (a truncated file).
    case unexpectedEnd
    /// A byte that the grammar does not allow here; `expected` says what would have been.
    case unexpectedByte(UInt8, expected: String)
    /// Bytes that are not well-formed UTF-8 inside a string.
    case invalidUTF8
    /// A backslash escape that JSON does not define, or a `\u` escape that is not a scalar.
    case invalidEscape
    /// A raw control character (below U+0020) inside a string.
    case controlCharacterInString
    /// A key that appears twice in one object.
    case duplicateKey(String)
    /// A key that the type being read does not define.
    case unknownKey(String)
    /// A key that the type being read requires and the object lacks.
    case missingKey(String)
    /// Non-whitespace bytes after the top-level value.
    case trailingData
    /// A number outside what its field can hold, or a fraction where an integer belongs.
    case numberOutOfRange(String)
    /// Arrays and objects nested deeper than ``JSONReader/maximumDepth``.
    case nestingTooDeep(limit: Int)
    /// Well-formed JSON whose value the type rejects (an empty id, an invariant that fails).
    case invalidValue(String)
  }

  /// What is wrong.
  public let problem: Problem
  /// The byte offset in the input at which reading stopped.
  public let offset: Int

  public init(_ problem: Problem, at offset: Int) {
    self.problem = problem
    self.offset = offset
  }

  public var description: String {
    "byte \(offset): \(problem)"
  }
}

extension JSONError.Problem: CustomStringConvertible {
  public var description: String {
    switch self {
    case .unexpectedEnd: "the input ends inside a value"
    case .unexpectedByte(let byte, let expected):
      "found \(Self.describe(byte)) where \(expected) was expected"
    case .invalidUTF8: "a string holds bytes that are not UTF-8"
    case .invalidEscape: "a string holds an invalid escape"
    case .controlCharacterInString: "a string holds an unescaped control character"
    case .duplicateKey(let key): "key \"\(key)\" appears twice in one object"
    case .unknownKey(let key): "key \"\(key)\" is not part of this format"
    case .missingKey(let key): "required key \"\(key)\" is missing"
    case .trailingData: "bytes follow the end of the document"
    case .numberOutOfRange(let detail): "number out of range: \(detail)"
    case .nestingTooDeep(let limit): "arrays and objects nest deeper than \(limit) levels"
    case .invalidValue(let detail): detail
    }
  }

  private static func describe(_ byte: UInt8) -> String {
    (0x21..<0x7F).contains(byte)
      ? "'\(Character(Unicode.Scalar(byte)))'"
      : "byte 0x\(String(byte, radix: 16, uppercase: true))"
  }
}
