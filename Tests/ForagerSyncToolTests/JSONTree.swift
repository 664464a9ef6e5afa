/// A JSON document as a tree that keeps what a mutation needs: the order of object keys,
/// duplicate keys, and numbers as written (so `18446744073709551616` stays that, not a
/// rounded double). Tests only: it parses valid JSON written by the codec.
indirect enum JSONTree: Equatable, Sendable {
  case null
  case bool(Bool)
  case number(String)
  case string(String)
  case array([JSONTree])
  case object([(key: String, value: JSONTree)])

  static func == (a: JSONTree, b: JSONTree) -> Bool {
    switch (a, b) {
    case (.null, .null): true
    case (.bool(let x), .bool(let y)): x == y
    case (.number(let x), .number(let y)): x == y
    case (.string(let x), .string(let y)): x == y
    case (.array(let x), .array(let y)): x == y
    case (.object(let x), .object(let y)):
      x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    default: false
    }
  }

  // MARK: Parsing

  /// Parses `bytes`; `nil` when they are not JSON this parser reads.
  static func parse(_ bytes: [UInt8]) -> JSONTree? {
    var parser = Parser(bytes: bytes)
    guard let tree = parser.value() else { return nil }
    parser.skipWhitespace()
    return parser.position == bytes.count ? tree : nil
  }

  private struct Parser {
    let bytes: [UInt8]
    var position = 0

    mutating func skipWhitespace() {
      while position < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) {
        position += 1
      }
    }

    mutating func value() -> JSONTree? {
      skipWhitespace()
      guard position < bytes.count else { return nil }
      switch bytes[position] {
      case UInt8(ascii: "n"): return literal("null", .null)
      case UInt8(ascii: "t"): return literal("true", .bool(true))
      case UInt8(ascii: "f"): return literal("false", .bool(false))
      case UInt8(ascii: "\""): return string().map(JSONTree.string)
      case UInt8(ascii: "["):
        position += 1
        var elements: [JSONTree] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
          position += 1
          return .array(elements)
        }
        while true {
          guard let element = value() else { return nil }
          elements.append(element)
          skipWhitespace()
          guard position < bytes.count else { return nil }
          position += 1
          if bytes[position - 1] == UInt8(ascii: "]") { return .array(elements) }
          guard bytes[position - 1] == UInt8(ascii: ",") else { return nil }
        }
      case UInt8(ascii: "{"):
        position += 1
        var members: [(key: String, value: JSONTree)] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
          position += 1
          return .object(members)
        }
        while true {
          skipWhitespace()
          guard let key = string() else { return nil }
          skipWhitespace()
          guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return nil }
          position += 1
          guard let member = value() else { return nil }
          members.append((key, member))
          skipWhitespace()
          guard position < bytes.count else { return nil }
          position += 1
          if bytes[position - 1] == UInt8(ascii: "}") { return .object(members) }
          guard bytes[position - 1] == UInt8(ascii: ",") else { return nil }
        }
      default:
        let start = position
        while position < bytes.count, Array("-+0123456789.eE".utf8).contains(bytes[position]) {
          position += 1
        }
        return position > start
          ? .number(String(decoding: bytes[start..<position], as: UTF8.self)) : nil
      }
    }

    mutating func literal(_ text: String, _ tree: JSONTree) -> JSONTree? {
      let utf8 = Array(text.utf8)
      guard bytes[position...].starts(with: utf8) else { return nil }
      position += utf8.count
      return tree
    }

    /// A string, its escapes kept as written (the writer re-emits them unchanged).
    mutating func string() -> String? {
      guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
      position += 1
      let start = position
      while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
        position += bytes[position] == UInt8(ascii: "\\") ? 2 : 1
      }
      guard position < bytes.count else { return nil }
      position += 1
      return String(decoding: bytes[start..<(position - 1)], as: UTF8.self)
    }
  }

  // MARK: Writing

  /// The tree as compact JSON; strings are written with the escapes they were read with.
  var bytes: [UInt8] {
    var out: [UInt8] = []
    write(to: &out)
    return out
  }

  private func write(to out: inout [UInt8]) {
    switch self {
    case .null: out += Array("null".utf8)
    case .bool(let value): out += Array((value ? "true" : "false").utf8)
    case .number(let text): out += Array(text.utf8)
    case .string(let text): out += [UInt8(ascii: "\"")] + Array(text.utf8) + [UInt8(ascii: "\"")]
    case .array(let elements):
      out.append(UInt8(ascii: "["))
      for (index, element) in elements.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        element.write(to: &out)
      }
      out.append(UInt8(ascii: "]"))
    case .object(let members):
      out.append(UInt8(ascii: "{"))
      for (index, member) in members.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        JSONTree.string(member.key).write(to: &out)
        out.append(UInt8(ascii: ":"))
        member.value.write(to: &out)
      }
      out.append(UInt8(ascii: "}"))
    }
  }

  // MARK: Paths

  /// The path of every node, the root's (empty) included, in document order.
  var paths: [[Int]] {
    var result: [[Int]] = [[]]
    switch self {
    case .array(let elements):
      for (index, element) in elements.enumerated() {
        result += element.paths.map { [index] + $0 }
      }
    case .object(let members):
      for (index, member) in members.enumerated() {
        result += member.value.paths.map { [index] + $0 }
      }
    default: break
    }
    return result
  }

  /// The node at `path` (each step an array index or an object member's position).
  subscript(path: ArraySlice<Int>) -> JSONTree {
    get {
      guard let first = path.first else { return self }
      switch self {
      case .array(let elements): return elements[first][path.dropFirst()]
      case .object(let members): return members[first].value[path.dropFirst()]
      default: preconditionFailure("no node at this path")
      }
    }
    set {
      guard let first = path.first else {
        self = newValue
        return
      }
      switch self {
      case .array(var elements):
        elements[first][path.dropFirst()] = newValue
        self = .array(elements)
      case .object(var members):
        members[first].value[path.dropFirst()] = newValue
        self = .object(members)
      default: preconditionFailure("no node at this path")
      }
    }
  }
}
