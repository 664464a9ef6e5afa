// Inlining: the reader's and writer's per-byte and per-value methods are @inlinable so that
// a codec in another module (a household record's) compiles them into its own loop, and the
// generic ones specialize for its types, rather than paying a call per byte across the module
// boundary. @usableFromInline marks the cursor state and slow paths they reach; they stay
// internal.

/// The keys a JSON object of one type may hold, all required, named by the cases of `Field`
/// (a `String` enum, each case's raw value its key), in the order the type writes them.
///
/// A decoder switches over `Field`, so the compiler checks that it reads every key:
///
/// ```swift
/// enum RegisterField: String, CaseIterable, Sendable { case timestamp, value }
/// static let fields = JSONFields<RegisterField>()
/// try reader.readObject(fields) { reader, field in
///   switch field {
///   case .timestamp: timestamp = try HybridTimestamp(from: &reader)
///   case .value: value = try Value(from: &reader)
///   }
/// }
/// ```
///
/// Build one per type, once (a `static let`).
public struct JSONFields<Field: RawRepresentable & CaseIterable & Sendable>: Sendable
where Field.RawValue == String {
  /// The fields, in order; each one's key is its raw value.
  @usableFromInline let fields: [Field]
  /// Their keys, by index.
  @usableFromInline let table: JSONKeys

  /// Fields whose keys may be absent are listed in `optional`; every other key is required.
  public init(optional: Set<Field> = []) where Field: Hashable {
    let fields = Array(Field.allCases)
    self.fields = fields
    table = JSONKeys(
      fields.map(\.rawValue), optional: Set(fields.indices.filter { optional.contains(fields[$0]) })
    )
  }

  /// The keys, in order.
  public var keys: [String] { table.names }
}

/// The keys a JSON object of one type may hold, by index, and which of them must be present:
/// for a type whose keys are a table rather than an enum (a record whose fields are declared
/// once, say). `JSONReader.readObject(_:_:)` reads an object against it.
///
/// Matching tries the key after the last one matched first, so a document written in this
/// order matches each key with one comparison. Build one per type, once (a `static let`).
public struct JSONKeys: Sendable {
  /// The keys, in order.
  public let names: [String]
  /// One bit per key that must be present.
  @usableFromInline let required: UInt64
  /// The names' UTF-8 one after another; name `i` is `utf8[offsets[i]..<offsets[i + 1]]`.
  let utf8: [UInt8]
  let offsets: [Int]
  /// Whether every name is written in JSON as its bytes between quotes (no quote, backslash or
  /// control byte needs an escape), so that ``quotedKey(after:at:in:)`` may match it in place.
  let namesArePlain: Bool

  /// Keys whose indexes are in `optional` may be absent; every other key is required.
  ///
  /// - Precondition: At most 64 keys, each once.
  public init(_ names: [String], optional: Set<Int> = []) {
    precondition(names.count <= 64, "JSONKeys tracks at most 64 keys")
    precondition(Set(names).count == names.count, "a key is listed twice")
    self.names = names
    required = names.indices.reduce(0) { mask, index in
      optional.contains(index) ? mask : mask | 1 << UInt64(index)
    }
    utf8 = names.flatMap { Array($0.utf8) }
    offsets = names.reduce(into: [0]) { offsets, name in
      offsets.append(offsets.last! + name.utf8.count)
    }
    namesArePlain = utf8.allSatisfy {
      $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
    }
  }

  /// The indexes of the keys that must be present.
  public var requiredIndexes: [Int] { names.indices.filter { required & 1 << UInt64($0) != 0 } }

  /// The same keys, the one at `index` optional.
  public func makingOptional(_ index: Int) -> JSONKeys {
    JSONKeys(names, optional: Set(names.indices).subtracting(requiredIndexes).union([index]))
  }

  @usableFromInline
  func index(of key: UnsafeBufferPointer<UInt8>, after previous: Int) -> Int? {
    firstName(after: previous) { name in name.count == key.count && Self.same(name, key) }
  }

  /// The key written at `position` of `bytes` as its name between quotes, with no white space
  /// before it, and where the closing quote ends: found in place, without scanning the string
  /// first, as an object written by this library's writer spells every key. `nil` when no key
  /// is written there so, or a name needs an escape; the caller then scans the string and
  /// finds its key with ``index(of:after:)``, which gives the same key for the same bytes.
  ///
  /// - Complexity: O(keys) comparisons, each stopping at the first byte that differs; one when
  ///   keys come in this table's order.
  @usableFromInline
  func quotedKey(
    after previous: Int, at position: Int, in bytes: UnsafeBufferPointer<UInt8>
  ) -> (index: Int, end: Int)? {
    guard namesArePlain, position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
      return nil
    }
    let start = position + 1
    let index = firstName(after: previous) { name in
      // The closing quote first: it rules out every name of another length at one compare.
      let close = start + name.count
      return close < bytes.count && bytes[close] == UInt8(ascii: "\"")
        && Self.same(name, UnsafeBufferPointer(rebasing: bytes[start..<close]))
    }
    return index.map { ($0, start + offsets[$0 + 1] - offsets[$0] + 1) }
  }

  /// Whether `first` and `second`, of one length, hold the same bytes: a loop the compiler
  /// keeps inline, where `elementsEqual` goes through the buffers' iterators.
  @inline(__always)
  private static func same(
    _ first: UnsafeBufferPointer<UInt8>, _ second: UnsafeBufferPointer<UInt8>
  ) -> Bool {
    var index = 0
    while index < first.count && first[index] == second[index] { index += 1 }
    return index == first.count
  }

  /// The index of the first name `matches` accepts, trying them from the one after
  /// `previous`, in order, around to `previous`.
  @inline(__always)
  private func firstName(
    after previous: Int, _ matches: (UnsafeBufferPointer<UInt8>) -> Bool
  ) -> Int? {
    utf8.withUnsafeBufferPointer { utf8 in
      offsets.withUnsafeBufferPointer { offsets in
        let count = offsets.count - 1
        var candidate = previous + 1
        for _ in 0..<count {
          if candidate >= count { candidate = 0 }
          let name = UnsafeBufferPointer(
            rebasing: utf8[offsets[candidate]..<offsets[candidate + 1]])
          if matches(name) { return candidate }
          candidate += 1
        }
        return nil
      }
    }
  }
}

/// A table of an object's keys and what a reader hands its member reader for each:
/// ``JSONFields`` hands the field, ``JSONKeys`` the key's index.
@usableFromInline protocol ObjectKeys {
  associatedtype Member
  /// The keys, by index.
  var table: JSONKeys { get }
  /// What the member reader is given for the key at `index`.
  func member(at index: Int) -> Member
}

extension JSONFields: ObjectKeys {
  @inlinable func member(at index: Int) -> Field { fields[index] }
}

extension JSONKeys: ObjectKeys {
  @inlinable var table: JSONKeys { self }
  @inlinable func member(at index: Int) -> Int { index }
}

extension JSONReader {
  @inlinable
  mutating func enter(_ opening: UInt8, _ expected: StaticString) throws(JSONError) {
    try expect(opening, expected)
    depth += 1
    if depth > Self.maximumDepth {
      throw JSONError(.nestingTooDeep(limit: Self.maximumDepth), at: position - 1)
    }
  }

  /// Reads an array, calling `element` once per element with the reader placed at it.
  @inlinable
  public mutating func readArray(
    _ element: (inout JSONReader) throws(JSONError) -> Void
  ) throws(JSONError) {
    try enter(UInt8(ascii: "["), "an array")
    if try peek() == UInt8(ascii: "]") {
      position += 1
      depth -= 1
      return
    }
    while true {
      try element(&self)
      let next = try peek()
      position += 1
      if next == UInt8(ascii: ",") { continue }
      if next == UInt8(ascii: "]") { break }
      throw JSONError(.unexpectedByte(next, expected: "',' or ']'"), at: position - 1)
    }
    depth -= 1
  }

  /// Reads an array whose elements are all `Element`.
  @inlinable
  public mutating func readArray<Element: JSONReadable>(of type: Element.Type = Element.self)
    throws(JSONError) -> [Element]
  {
    var result: [Element] = []
    try readArray { reader throws(JSONError) in result.append(try Element(from: &reader)) }
    return result
  }

  /// Reads an array of exactly the elements `body` reads, then requires its end: for tuples
  /// such as `[dot, value]`.
  @inlinable
  public mutating func readTuple<Result>(
    _ body: (inout JSONReader) throws(JSONError) -> Result
  ) throws(JSONError) -> Result {
    try enter(UInt8(ascii: "["), "an array")
    let result = try body(&self)
    try expect(UInt8(ascii: "]"), "the end of the array")
    depth -= 1
    return result
  }

  /// Inside ``readTuple(_:)``: consumes the comma before every element but the first.
  @inlinable
  public mutating func nextElement() throws(JSONError) {
    try expect(UInt8(ascii: ","), "another element")
  }

  /// Reads an object whose keys are `fields` (each required one, and optional ones at most
  /// once), in any order. `field` is called with the reader placed at the value and the field
  /// whose key it is. A key outside `fields` is refused.
  @inlinable
  public mutating func readObject<Field>(
    _ fields: JSONFields<Field>, _ field: (inout JSONReader, Field) throws(JSONError) -> Void
  ) throws(JSONError) {
    try readObject(keyedBy: fields, field, unknown: { _, _ in }, refusingUnknown: true)
  }

  /// Reads an object whose keys are `fields`, as the one without `unknown` does, except that a
  /// key outside `fields` goes to `unknown`, with the reader placed at its value.
  @inlinable
  public mutating func readObject<Field>(
    _ fields: JSONFields<Field>,
    _ field: (inout JSONReader, Field) throws(JSONError) -> Void,
    unknown: (inout JSONReader, String) throws(JSONError) -> Void
  ) throws(JSONError) {
    try readObject(keyedBy: fields, field, unknown: unknown, refusingUnknown: false)
  }

  /// Reads an object whose keys are `keys` (each required one, and optional ones at most once),
  /// in any order. `member` is called with the reader placed at the value and the index of its
  /// key. A key outside `keys` is refused.
  @inlinable
  public mutating func readObject(
    _ keys: JSONKeys, _ member: (inout JSONReader, Int) throws(JSONError) -> Void
  ) throws(JSONError) {
    try readObject(keyedBy: keys, member, unknown: { _, _ in }, refusingUnknown: true)
  }

  /// Reads an object whose keys are `keys`, as the one without `unknown` does, except
  /// that a key outside `keys` goes to `unknown`, with the reader placed at its value.
  @inlinable
  public mutating func readObject(
    _ keys: JSONKeys,
    _ member: (inout JSONReader, Int) throws(JSONError) -> Void,
    unknown: (inout JSONReader, String) throws(JSONError) -> Void
  ) throws(JSONError) {
    try readObject(keyedBy: keys, member, unknown: unknown, refusingUnknown: false)
  }

  /// Every `readObject`: generic over the table rather than one wrapping another in a closure
  /// (which would capture the table and retain its arrays once per object read), and taking
  /// `unknown` as a closure that does not escape (an optional one would, and every variable it
  /// captures, a record being read say, would then live in a box of its own).
  @inlinable
  mutating func readObject<Keys: ObjectKeys>(
    keyedBy keys: Keys,
    _ member: (inout JSONReader, Keys.Member) throws(JSONError) -> Void,
    unknown: (inout JSONReader, String) throws(JSONError) -> Void,
    refusingUnknown: Bool
  ) throws(JSONError) {
    var seen: UInt64 = 0
    var previous = -1
    try readEachMember { reader throws(JSONError) in
      // Where the key's opening quote is, for errors.
      let quote: Int
      let index: Int
      if let known = keys.table.quotedKey(after: previous, at: reader.position, in: reader.bytes) {
        (quote, index, reader.position) = (reader.position, known.index, known.end)
        try reader.expect(UInt8(ascii: ":"), "':' after a key")
      } else {
        let keySpan = try reader.scanString()
        try reader.expect(UInt8(ascii: ":"), "':' after a key")
        quote = keySpan.start - 1
        let found: Int? =
          keySpan.escaped
          ? reader.unescape(keySpan).withUnsafeBufferPointer {
            keys.table.index(of: $0, after: previous)
          }
          : keys.table.index(
            of: UnsafeBufferPointer(rebasing: reader.bytes[keySpan.start..<keySpan.end]),
            after: previous)
        guard let found else {
          let name = reader.decodeString(keySpan)
          if refusingUnknown { throw JSONError(.unknownKey(name), at: quote) }
          try unknown(&reader, name)
          return
        }
        index = found
      }
      let bit: UInt64 = 1 << UInt64(index)
      if seen & bit != 0 {
        throw JSONError(.duplicateKey(keys.table.names[index]), at: quote)
      }
      seen |= bit
      previous = index
      try member(&reader, keys.member(at: index))
    }
    if seen & keys.table.required != keys.table.required {
      let missing = keys.table.names.indices.first {
        keys.table.required & ~seen & (1 << UInt64($0)) != 0
      }!
      throw JSONError(.missingKey(keys.table.names[missing]), at: position - 1)
    }
  }

  /// Reads `{}`, an object with no members; anything in it is refused as an unknown key.
  public mutating func readEmptyObject() throws(JSONError) {
    try readMembers { reader, keySpan throws(JSONError) in
      throw JSONError(.unknownKey(reader.decodeString(keySpan)), at: keySpan.start - 1)
    }
  }

  /// Reads an object whose keys are data (replica ids, say): `member` is called with each key
  /// and the reader placed at its value. Keys must differ; a repeated key is refused.
  public mutating func readDynamicObject(
    _ member: (inout JSONReader, String) throws(JSONError) -> Void
  ) throws(JSONError) {
    var keys: Set<String> = []
    try readMembers { reader, keySpan throws(JSONError) in
      let key = reader.decodeString(keySpan)
      guard keys.insert(key).inserted else {
        throw JSONError(.duplicateKey(key), at: keySpan.start - 1)
      }
      try member(&reader, key)
    }
  }

  /// Reads an object's members: `member` is called with each member's key scanned, the colon
  /// after it read, and the reader placed at its value.
  @inlinable
  mutating func readMembers(
    _ member: (inout JSONReader, StringSpan) throws(JSONError) -> Void
  ) throws(JSONError) {
    try readEachMember { reader throws(JSONError) in
      let key = try reader.scanString()
      try reader.expect(UInt8(ascii: ":"), "':' after a key")
      try member(&reader, key)
    }
  }

  /// Reads an object's members: `member` is called with the reader placed before each member's
  /// key, and reads the key, the colon and the value.
  @inlinable
  mutating func readEachMember(
    _ member: (inout JSONReader) throws(JSONError) -> Void
  ) throws(JSONError) {
    try enter(UInt8(ascii: "{"), "an object")
    if try peek() == UInt8(ascii: "}") {
      position += 1
      depth -= 1
      return
    }
    while true {
      try member(&self)
      let next = try peek()
      position += 1
      if next == UInt8(ascii: ",") { continue }
      if next == UInt8(ascii: "}") { break }
      throw JSONError(.unexpectedByte(next, expected: "',' or '}'"), at: position - 1)
    }
    depth -= 1
  }

  /// Reads any one JSON value, validating it completely (grammar, UTF-8, duplicate keys,
  /// numbers that a double can hold, depth), and returns its bytes unchanged.
  public mutating func readRawValue() throws(JSONError) -> [UInt8] {
    _ = try peek()
    let start = position
    try skipValue(checkingDuplicateKeys: true)
    return Array(bytes[start..<position])
  }

  /// Steps over one JSON value and returns where it lies, checking its grammar, UTF-8 and
  /// depth but not duplicate keys: for a value a typed reader will read later, which refuses
  /// them.
  public mutating func skipValue() throws(JSONError) -> Range<Int> {
    _ = try peek()
    let start = position
    try skipValue(checkingDuplicateKeys: false)
    return start..<position
  }

  /// Reads the next value with `body`, and returns what it read with where the value lies.
  /// When `body` throws, the value is located instead (as ``locateValue()`` does), and the
  /// error comes back with that range: for a value whose errors count only once a check of its
  /// bytes (a checksum) has passed, which needs the range either way.
  ///
  /// - Throws: Only when the value cannot even be located (its brackets or strings never end).
  public mutating func readLocating<Value>(
    _ body: (inout JSONReader) throws(JSONError) -> Value
  ) throws(JSONError) -> (value: Result<Value, JSONError>, range: Range<Int>) {
    _ = try peek()
    let start = position
    let startDepth = depth
    do {
      let value = try body(&self)
      return (.success(value), start..<position)
    } catch {
      position = start
      depth = startDepth
      return (.failure(error), try locateValue())
    }
  }

  /// Finds where one value ends, checking only what finding it needs: brackets balance (not
  /// their kinds), strings end (escapes are stepped over, UTF-8 is not checked), and a scalar
  /// ends at a delimiter. Several times faster than ``skipValue()``; for a value that a
  /// validating reader will read in full afterwards, which catches everything this does not.
  ///
  /// - Complexity: O(*n*) in the bytes of the value, with no recursion at any depth.
  public mutating func locateValue() throws(JSONError) -> Range<Int> {
    let first = try peek()
    let start = position
    if first != UInt8(ascii: "{") && first != UInt8(ascii: "[") && first != UInt8(ascii: "\"") {
      while position < bytes.count {
        switch bytes[position] {
        case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D:
          return start..<position
        default: position += 1
        }
      }
      return start..<position
    }
    position += 1
    if first == UInt8(ascii: "\"") {
      try skipStringBody()
      return start..<position
    }
    var scan = StructuralScan(at: position, depth: 1)
    let end = scan.skipToClose(in: bytes)
    position = scan.position
    guard end != nil else { throw JSONError(.unexpectedEnd, at: position) }
    return start..<position
  }

  /// After a string's opening quote: steps past its closing quote, over escaped bytes,
  /// checking nothing else (for the scans that only find where values end).
  @usableFromInline
  mutating func skipStringBody() throws(JSONError) {
    while true {
      skipWords { word in
        Self.flags(word, equalTo: UInt8(ascii: "\""))
          | Self.flags(word, equalTo: UInt8(ascii: "\\"))
      }
      guard position < bytes.count else { throw JSONError(.unexpectedEnd, at: position) }
      let inner = bytes[position]
      position += 1
      if inner == UInt8(ascii: "\"") { return }
      // Step over the escaped byte, but never past the end: a backslash can be the last byte
      // of a damaged file (found by the fuzz test, seed 595584694773144505).
      if inner == UInt8(ascii: "\\") { position = min(position + 1, bytes.count) }
    }
  }

  mutating func skipValue(checkingDuplicateKeys: Bool) throws(JSONError) {
    switch try peek() {
    case UInt8(ascii: "{"):
      if checkingDuplicateKeys {
        try readDynamicObject { reader, _ throws(JSONError) in
          try reader.skipValue(checkingDuplicateKeys: true)
        }
      } else {
        try readMembers { reader, _ throws(JSONError) in
          try reader.skipValue(checkingDuplicateKeys: false)
        }
      }
    case UInt8(ascii: "["):
      try readArray { reader throws(JSONError) in
        try reader.skipValue(checkingDuplicateKeys: checkingDuplicateKeys)
      }
    case UInt8(ascii: "\""):
      _ = try scanString()
    case UInt8(ascii: "t"), UInt8(ascii: "f"):
      _ = try readBool()
    case UInt8(ascii: "n"):
      _ = try readNull()
    default:
      try skipNumber()
    }
  }

  /// Steps over a number in the full JSON grammar (sign, fraction, exponent), refusing one
  /// whose magnitude no double can hold.
  private mutating func skipNumber() throws(JSONError) {
    let start = position
    func digits(_ reader: inout JSONReader) throws(JSONError) {
      guard reader.position < reader.bytes.count else {
        throw JSONError(.unexpectedEnd, at: reader.position)
      }
      guard (0x30...0x39).contains(reader.bytes[reader.position]) else {
        throw JSONError(
          .unexpectedByte(reader.bytes[reader.position], expected: "a digit"), at: reader.position)
      }
      while reader.position < reader.bytes.count,
        (0x30...0x39).contains(reader.bytes[reader.position])
      {
        reader.position += 1
      }
    }
    if bytes[position] == UInt8(ascii: "-") { position += 1 }
    guard position < bytes.count else { throw JSONError(.unexpectedEnd, at: position) }
    if bytes[position] == 0x30 {
      position += 1
    } else if (0x31...0x39).contains(bytes[position]) {
      try digits(&self)
    } else {
      throw JSONError(.unexpectedByte(bytes[position], expected: "a value"), at: position)
    }
    if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
      position += 1
      try digits(&self)
    }
    if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
      position += 1
      if position < bytes.count,
        bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")
      {
        position += 1
      }
      try digits(&self)
    }
    let text = String(
      decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    guard let number = Double(text), number.isFinite else {
      throw JSONError(.numberOutOfRange("\(text) is beyond a double"), at: start)
    }
  }
}
