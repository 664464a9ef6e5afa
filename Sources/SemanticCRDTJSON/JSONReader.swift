import SemanticCRDT

// Inlining: the reader's and writer's per-byte and per-value methods are @inlinable so that
// a codec in another module (a household record's) compiles them into its own loop, and the
// generic ones specialize for its types, rather than paying a call per byte across the module
// boundary. @usableFromInline marks the cursor state and slow paths they reach; they stay
// internal.

/// A JSON reader over raw bytes that types read themselves from, field by field.
///
/// It accepts exactly RFC 8259 JSON: any whitespace between tokens, every escape, any key
/// order. It refuses, with a ``JSONError`` giving the byte position, what a lenient parser would
/// let through: invalid UTF-8, unescaped control characters, lone surrogate escapes, duplicate
/// keys, integers that do not fit their field, nesting deeper than ``maximumDepth`` and bytes
/// after the document.
///
/// A reader borrows the bytes it reads; it exists only inside ``decode(_:from:cores:)`` or
/// ``read(_:cores:_:)``, and it cannot be copied, so it can never outlive them.
///
/// Cost: O(n) in the input; strings without escapes are copied once into their `String`.
public struct JSONReader: ~Copyable {
  @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
  @usableFromInline var position: Int
  /// The byte offset of the next unread byte.
  public var offset: Int { position }
  @usableFromInline var depth = 0
  /// Whether long arrays may be read on a second core: the caller's choice.
  @usableFromInline let cores: Cores
  /// While replicas are numbered (``numberingReplicas(_:_:)``), the replica of each number.
  @usableFromInline var replicaTable: [ReplicaID]?
  /// While replicas are numbered, which numbers were read: a table must name no replica the
  /// value does not use. Empty on a second core's reader, which reads no numbered values.
  @usableFromInline var replicaUses: [Bool] = []
  /// Whether values read their compact encoding (``readingCompactly(_:)``).
  public internal(set) var readsCompactly = false
  /// The replica ids read lately as text, so that each is made once (see ``RecentReplicas``).
  var recentReplicas = RecentReplicas()
  /// Whether the thread that reads the first half of a long array waits until the second has
  /// found the middle element before it reads, so that the array is always split there: for
  /// tests of what reads arrays in halves
  /// (`readArrayInHalves(minimumBytes:empty:whileTheSecondReads:_:)`).
  var waitsForTheMiddle = false

  /// The deepest nesting of arrays and objects accepted. Deeper input is refused before it can
  /// exhaust the stack.
  public static let maximumDepth = 100

  @usableFromInline
  init(bytes: UnsafeBufferPointer<UInt8>, at offset: Int = 0, depth: Int = 0, cores: Cores) {
    self.bytes = bytes
    self.position = offset
    self.depth = depth
    self.cores = cores
  }

  /// Reads one document holding one `Value` and nothing after it.
  ///
  /// - Parameters:
  ///   - type: The type of the document's value.
  ///   - data: The document's bytes.
  ///   - cores: ``Cores/two`` lets the long arrays of maps and sets be read on two cores; give
  ///     it only when a core is free for the length of the call.
  public static func decode<Value: JSONReadable>(
    _ type: Value.Type = Value.self, from data: [UInt8], cores: Cores = .one
  ) throws(JSONError) -> Value {
    try data.withUnsafeBufferPointer { buffer throws(JSONError) in
      try read(buffer, cores: cores) { reader throws(JSONError) in try Value(from: &reader) }
    }
  }

  /// Runs `body` on a reader of `bytes`, then requires that only whitespace follows.
  public static func read<Result>(
    _ bytes: UnsafeBufferPointer<UInt8>, cores: Cores = .one,
    _ body: (inout JSONReader) throws(JSONError) -> Result
  ) throws(JSONError) -> Result {
    var reader = JSONReader(bytes: bytes, cores: cores)
    let result = try body(&reader)
    try reader.finish()
    return result
  }

  /// Runs `body` on a reader placed at `range.lowerBound` of `bytes`, and requires that the
  /// value it reads ends at `range.upperBound`. Offsets in errors count from the start of
  /// `bytes`, so they point into the whole file.
  ///
  /// - Precondition: `range` lies within `bytes`.
  public static func read<Result>(
    _ bytes: UnsafeBufferPointer<UInt8>, valueAt range: Range<Int>, cores: Cores = .one,
    _ body: (inout JSONReader) throws(JSONError) -> Result
  ) throws(JSONError) -> Result {
    precondition(
      range.lowerBound >= 0 && range.upperBound <= bytes.count,
      "the range \(range) is not within the \(bytes.count) bytes read")
    var reader = JSONReader(
      bytes: UnsafeBufferPointer(rebasing: bytes[..<range.upperBound]), at: range.lowerBound,
      cores: cores)
    let result = try body(&reader)
    try reader.finish()
    return result
  }

  /// Runs `body` reading each replica id as a number, its index in `table`, as a writer that
  /// numbered replicas (``JSONWriter/numberReplicas()``) wrote them.
  public mutating func numberingReplicas<Result>(
    _ table: [ReplicaID], _ body: (inout JSONReader) throws(JSONError) -> Result
  ) throws(JSONError) -> Result {
    try numberingReplicasNotingUses(table, body).value
  }

  /// Runs `body` reading each value in its compact encoding, the one a writer that
  /// ``JSONWriter/writesCompactly`` wrote.
  public mutating func readingCompactly<Result>(
    _ body: (inout JSONReader) throws(JSONError) -> Result
  ) throws(JSONError) -> Result {
    let outer = readsCompactly
    readsCompactly = true
    defer { readsCompactly = outer }
    return try body(&self)
  }

  /// ``numberingReplicas(_:_:)``, and which numbers of `table` `body` read: a table is the
  /// writer's list of what it wrote, so a reader can refuse one that names more (it only
  /// costs the reader). Numbers read on a second core are not noted: read the value on one.
  public mutating func numberingReplicasNotingUses<Result>(
    _ table: [ReplicaID], _ body: (inout JSONReader) throws(JSONError) -> Result
  ) throws(JSONError) -> (value: Result, used: [Bool]) {
    let (outer, outerUses) = (replicaTable, replicaUses)
    replicaTable = table
    replicaUses = [Bool](repeating: false, count: table.count)
    defer { (replicaTable, replicaUses) = (outer, outerUses) }
    let value = try body(&self)
    return (value, replicaUses)
  }

  /// The replica numbered `number` in the table being read with; an error when there is none.
  /// Notes the number as used.
  public mutating func replica(numbered number: UInt64, in table: [ReplicaID]) throws(JSONError)
    -> ReplicaID
  {
    guard number < UInt64(table.count) else {
      throw error(.invalidValue("replica \(number) is not in the table of \(table.count)"))
    }
    if Int(number) < replicaUses.count { replicaUses[Int(number)] = true }
    return table[Int(number)]
  }

  /// Requires that only whitespace remains.
  public mutating func finish() throws(JSONError) {
    skipWhitespace()
    if position < bytes.count { throw JSONError(.trailingData, at: position) }
  }

  /// An error of `problem` at the current offset, for conformances that reject a value.
  public func error(_ problem: JSONError.Problem) -> JSONError {
    JSONError(problem, at: position)
  }

  /// Reads one value of a type that knows how to read itself.
  @inlinable
  /// Reads a field's value into its slot. The slot's type is an optional only to say whether
  /// the field was seen: the value itself must not be `null` (a field that may be null has a
  /// slot of a doubly optional type), so a forged `null` is refused here, at its offset, and
  /// never reaches a force-unwrap.
  public mutating func read<Value: JSONReadable>(into slot: inout Value?) throws(JSONError) {
    slot = try Value(from: &self)
  }

  public mutating func read<Value: JSONReadable>(_ type: Value.Type = Value.self) throws(JSONError)
    -> Value
  {
    try Value(from: &self)
  }

  // MARK: Tokens

  @inlinable
  mutating func skipWhitespace() {
    while position < bytes.count {
      switch bytes[position] {
      case 0x20, 0x0A, 0x0D, 0x09: position += 1
      default: return
      }
    }
  }

  /// The next non-whitespace byte, not consumed.
  ///
  /// Inlined for the common case, a token right here (files this codec writes have no
  /// whitespace); whitespace and the end of input take the out-of-line path.
  @inlinable @inline(__always)
  mutating func peek() throws(JSONError) -> UInt8 {
    if position < bytes.count, bytes[position] > 0x20 { return bytes[position] }
    return try peekAfterWhitespace()
  }

  @usableFromInline
  mutating func peekAfterWhitespace() throws(JSONError) -> UInt8 {
    skipWhitespace()
    guard position < bytes.count else { throw JSONError(.unexpectedEnd, at: position) }
    return bytes[position]
  }

  /// The first byte of the next value, not consumed: which kind of value comes next, for a
  /// reader of any JSON.
  public mutating func peekByte() throws(JSONError) -> UInt8 { try peek() }

  /// Consumes `byte` as the next token, or throws saying `expected` was.
  @inlinable @inline(__always)
  mutating func expect(_ byte: UInt8, _ expected: StaticString) throws(JSONError) {
    if position < bytes.count, bytes[position] == byte {
      position += 1
      return
    }
    try expectAfterWhitespace(byte, expected)
  }

  @usableFromInline
  mutating func expectAfterWhitespace(_ byte: UInt8, _ expected: StaticString) throws(JSONError) {
    let next = try peekAfterWhitespace()
    guard next == byte else {
      throw JSONError(.unexpectedByte(next, expected: "\(expected)"), at: position)
    }
    position += 1
  }

  mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
    let text = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
    for expected in text {
      guard position < bytes.count else { throw JSONError(.unexpectedEnd, at: position) }
      guard bytes[position] == expected else {
        throw JSONError(.unexpectedByte(bytes[position], expected: "\(literal)"), at: position)
      }
      position += 1
    }
  }

  // MARK: Scalars

  /// Consumes `null` and returns true if it comes next; otherwise consumes nothing.
  public mutating func readNull() throws(JSONError) -> Bool {
    guard try peek() == UInt8(ascii: "n") else { return false }
    try expectLiteral("null")
    return true
  }

  public mutating func readBool() throws(JSONError) -> Bool {
    switch try peek() {
    case UInt8(ascii: "t"):
      try expectLiteral("true")
      return true
    case UInt8(ascii: "f"):
      try expectLiteral("false")
      return false
    case let other:
      throw JSONError(.unexpectedByte(other, expected: "true or false"), at: position)
    }
  }

  /// Reads an integer and converts it exactly to `Integer`; fractions, exponents and values
  /// that do not fit are refused.
  mutating func readInteger<Integer: FixedWidthInteger>(
    _ type: Integer.Type = Integer.self
  ) throws(JSONError) -> Integer {
    let negative = try peek() == UInt8(ascii: "-")
    let start = position
    if negative { position += 1 }
    let magnitude = try readDigits()
    if position < bytes.count {
      switch bytes[position] {
      case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"):
        throw JSONError(.numberOutOfRange("\(Integer.self) field holds a non-integer"), at: start)
      default: break
      }
    }
    let value: Integer?
    if !negative {
      value = Integer(exactly: magnitude)
    } else if magnitude <= UInt64(Int64.max) {
      value = Integer(exactly: -Int64(magnitude))
    } else {
      value = magnitude == UInt64(Int64.max) + 1 ? Integer(exactly: Int64.min) : nil
    }
    guard let value else {
      throw JSONError(
        .numberOutOfRange("\(negative ? "-" : "")\(magnitude) does not fit \(Integer.self)"),
        at: start)
    }
    return value
  }

  /// Reads the digits of a non-negative integer, refusing leading zeros and overflow.
  private mutating func readDigits() throws(JSONError) -> UInt64 {
    let start = position
    guard position < bytes.count else { throw JSONError(.unexpectedEnd, at: position) }
    let first = bytes[position]
    guard first >= 0x30 && first <= 0x39 else {
      throw JSONError(.unexpectedByte(first, expected: "a number"), at: position)
    }
    position += 1
    if first == 0x30 { return 0 }
    var value = UInt64(first - 0x30)
    // Nineteen digits always fit 64 bits, so the first eighteen after the leading one need
    // no overflow checks.
    let unchecked = min(bytes.count, position + 18)
    // Eight digits at a time while eight follow: after a timestamp's first digit, its other
    // twelve take one step of eight and four single digits.
    while position + 8 <= unchecked, let eight = eightDigits(at: position) {
      value = value &* 100_000_000 &+ eight
      position += 8
    }
    while position < unchecked {
      let digit = bytes[position] &- 0x30
      guard digit < 10 else { return value }
      value = value &* 10 &+ UInt64(digit)
      position += 1
    }
    while position < bytes.count {
      let byte = bytes[position]
      guard byte >= 0x30 && byte <= 0x39 else { break }
      let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte - 0x30))
      guard !overflow1 && !overflow2 else {
        throw JSONError(.numberOutOfRange("more than 64 bits"), at: start)
      }
      value = sum
      position += 1
    }
    return value
  }

  /// The value of the eight bytes at `offset` as decimal digits, or `nil` when one of them is
  /// not a digit.
  ///
  /// The bytes are one little-endian word, the first digit in the lowest byte. A byte is a digit
  /// when its high nibble is 3 and adding 6 leaves it 3 (the low nibble is at most 9, so adding
  /// 6 carries nothing out of it). Then three multiplies join neighbours: each digit with the
  /// next into a pair, pairs into fours, fours into the eight, the earlier of each two weighted
  /// by 10, 100 and 10,000.
  @inline(__always)
  private func eightDigits(at offset: Int) -> UInt64? {
    let word = UInt64(
      littleEndian: UnsafeRawPointer(bytes.baseAddress! + offset).loadUnaligned(as: UInt64.self))
    let (highNibbles, threes) = (Self.ones &* 0xF0, Self.ones &* 0x30)
    guard word & highNibbles == threes, (word &+ Self.ones &* 6) & highNibbles == threes
    else { return nil }
    var value = word & (Self.ones &* 0x0F)
    value = (value &* (10 << 8 + 1)) >> 8 & 0x00FF_00FF_00FF_00FF
    value = (value &* (100 << 16 + 1)) >> 16 & 0x0000_FFFF_0000_FFFF
    return (value &* (10_000 << 32 + 1)) >> 32
  }

  /// Reads a string.
  public mutating func readString() throws(JSONError) -> String {
    let span = try scanString()
    return decodeString(span)
  }

  /// Reads a string and hands its UTF-8 bytes (escapes resolved) to `body`, without building a
  /// `String` when the string has no escapes.
  public mutating func readString<Result>(
    utf8 body: (UnsafeBufferPointer<UInt8>) throws(JSONError) -> Result
  ) throws(JSONError) -> Result {
    let span = try scanString()
    if !span.escaped {
      return try body(UnsafeBufferPointer(rebasing: bytes[span.start..<span.end]))
    }
    let unescaped = unescape(span)
    return try unescaped.withUnsafeBufferPointer { (buffer) throws(JSONError) in try body(buffer) }
  }

  @usableFromInline
  struct StringSpan {
    @usableFromInline let start: Int
    @usableFromInline let end: Int
    @usableFromInline let escaped: Bool
  }

  @usableFromInline
  func decodeString(_ span: StringSpan) -> String {
    if span.escaped { return String(decoding: unescape(span), as: UTF8.self) }
    return String(
      decoding: UnsafeBufferPointer(rebasing: bytes[span.start..<span.end]), as: UTF8.self)
  }

  /// Finds the end of the string that starts at the next token, validating UTF-8 and escapes.
  @usableFromInline
  mutating func scanString() throws(JSONError) -> StringSpan {
    try expect(UInt8(ascii: "\""), "a string")
    let start = position
    var escaped = false
    while position < bytes.count {
      skipPlainBytes()
      guard position < bytes.count else { break }
      let byte = bytes[position]
      if byte == UInt8(ascii: "\"") {
        position += 1
        return StringSpan(start: start, end: position - 1, escaped: escaped)
      } else if byte == UInt8(ascii: "\\") {
        escaped = true
        try scanEscape()
      } else if byte < 0x20 {
        throw JSONError(.controlCharacterInString, at: position)
      } else if byte < 0x80 {
        position += 1
      } else {
        try scanMultibyteScalar()
      }
    }
    throw JSONError(.unexpectedEnd, at: position)
  }

  /// Steps eight bytes at a time over string bytes that need no attention: printable ASCII
  /// other than a quote or a backslash. Stops at the first other byte, or within the last
  /// eight bytes of the input.
  @inline(__always)
  private mutating func skipPlainBytes() {
    skipWords { word in
      // A byte below n sets its high bit in (word - n·ones) & ~word (exact for n ≤ 0x80).
      Self.flags(word, equalTo: UInt8(ascii: "\"")) | Self.flags(word, equalTo: UInt8(ascii: "\\"))
        | ((word &- Self.ones &* 0x20) & ~word) | word
    }
  }

  /// Steps eight bytes at a time while `flags` flags no byte of the word (a flagged byte has
  /// its high bit set in what `flags` returns, and the lowest flag must be exact), to the first
  /// flagged byte, or to within the last eight bytes of the input, where the caller's byte
  /// loop goes on.
  @inline(__always)
  mutating func skipWords(unlessFlagged flags: (UInt64) -> UInt64) {
    guard let base = bytes.baseAddress else { return }
    while position + 8 <= bytes.count {
      let word = UInt64(
        littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
      let flagged = flags(word) & (Self.ones &* 0x80)
      if flagged != 0 {
        position += flagged.trailingZeroBitCount >> 3
        return
      }
      position += 8
    }
  }

  /// The bytes of `word` equal to `byte`, by their high bits: a zero byte of `word ^ byte·ones`.
  /// The lowest flag is exact (a borrow reaches only bytes above a flagged one).
  @inline(__always)
  static func flags(_ word: UInt64, equalTo byte: UInt8) -> UInt64 {
    let difference = word ^ (ones &* UInt64(byte))
    return (difference &- ones) & ~difference
  }

  static let ones: UInt64 = 0x0101_0101_0101_0101

  private mutating func scanEscape() throws(JSONError) {
    let escapeStart = position
    position += 1
    guard position < bytes.count else { throw JSONError(.unexpectedEnd, at: position) }
    switch bytes[position] {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
      UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
      position += 1
    case UInt8(ascii: "u"):
      position += 1
      let unit = try readHexUnit()
      if (0xDC00...0xDFFF).contains(unit) { throw JSONError(.invalidEscape, at: escapeStart) }
      if (0xD800...0xDBFF).contains(unit) {
        guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
          bytes[position + 1] == UInt8(ascii: "u")
        else { throw JSONError(.invalidEscape, at: escapeStart) }
        position += 2
        guard (0xDC00...0xDFFF).contains(try readHexUnit()) else {
          throw JSONError(.invalidEscape, at: escapeStart)
        }
      }
    default:
      throw JSONError(.invalidEscape, at: escapeStart)
    }
  }

  private mutating func readHexUnit() throws(JSONError) -> UInt16 {
    guard position + 4 <= bytes.count else { throw JSONError(.unexpectedEnd, at: bytes.count) }
    var unit: UInt16 = 0
    for _ in 0..<4 {
      let byte = bytes[position]
      let digit: UInt8
      switch byte {
      case 0x30...0x39: digit = byte - 0x30
      case 0x41...0x46: digit = byte - 0x41 + 10
      case 0x61...0x66: digit = byte - 0x61 + 10
      default: throw JSONError(.invalidEscape, at: position)
      }
      unit = unit << 4 | UInt16(digit)
      position += 1
    }
    return unit
  }

  /// Validates one multi-byte UTF-8 scalar (RFC 3629: no overlongs, no surrogates, at most
  /// U+10FFFF) and steps over it.
  private mutating func scanMultibyteScalar() throws(JSONError) {
    let lead = bytes[position]
    let length: Int
    var secondRange: ClosedRange<UInt8> = 0x80...0xBF
    switch lead {
    case 0xC2...0xDF: length = 2
    case 0xE0:
      length = 3
      secondRange = 0xA0...0xBF
    case 0xE1...0xEC, 0xEE...0xEF: length = 3
    case 0xED:
      length = 3
      secondRange = 0x80...0x9F
    case 0xF0:
      length = 4
      secondRange = 0x90...0xBF
    case 0xF1...0xF3: length = 4
    case 0xF4:
      length = 4
      secondRange = 0x80...0x8F
    default: throw JSONError(.invalidUTF8, at: position)
    }
    guard position + length <= bytes.count else { throw JSONError(.unexpectedEnd, at: position) }
    guard secondRange.contains(bytes[position + 1]) else {
      throw JSONError(.invalidUTF8, at: position)
    }
    for index in 2..<length where bytes[position + index] & 0xC0 != 0x80 {
      throw JSONError(.invalidUTF8, at: position)
    }
    position += length
  }

  /// The UTF-8 of a scanned string with its escapes resolved. The span was validated by
  /// ``scanString()``, so every escape here is well formed.
  @usableFromInline
  func unescape(_ span: StringSpan) -> [UInt8] {
    var result: [UInt8] = []
    result.reserveCapacity(span.end - span.start)
    var index = span.start
    func hexUnit(at position: Int) -> UInt32 {
      var unit: UInt32 = 0
      for byte in bytes[position..<position + 4] {
        let digit: UInt8 =
          byte <= 0x39 ? byte - 0x30 : (byte <= 0x46 ? byte - 0x41 + 10 : byte - 0x61 + 10)
        unit = unit << 4 | UInt32(digit)
      }
      return unit
    }
    while index < span.end {
      let byte = bytes[index]
      guard byte == UInt8(ascii: "\\") else {
        result.append(byte)
        index += 1
        continue
      }
      let kind = bytes[index + 1]
      index += 2
      switch kind {
      case UInt8(ascii: "b"): result.append(0x08)
      case UInt8(ascii: "f"): result.append(0x0C)
      case UInt8(ascii: "n"): result.append(0x0A)
      case UInt8(ascii: "r"): result.append(0x0D)
      case UInt8(ascii: "t"): result.append(0x09)
      case UInt8(ascii: "u"):
        var scalar = hexUnit(at: index)
        index += 4
        if (0xD800...0xDBFF).contains(scalar) {
          let low = hexUnit(at: index + 2)
          index += 6
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        result.append(contentsOf: UTF8.encode(Unicode.Scalar(scalar)!)!)
      default: result.append(kind)
      }
    }
    return result
  }
}
