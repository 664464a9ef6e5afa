import SemanticCRDT

// Inlining: the reader's and writer's per-byte and per-value methods are @inlinable so that
// a codec in another module (a household record's) compiles them into its own loop, and the
// generic ones specialize for its types, rather than paying a call per byte across the module
// boundary. @usableFromInline marks the cursor state and slow paths they reach; they stay
// internal.

/// A streaming JSON writer that appends UTF-8 bytes to one growing buffer.
///
/// It writes compact JSON (no whitespace) and leaves key order to the caller, so a type that
/// writes its keys in a fixed order gives identical bytes for equal values. Strings escape `"`,
/// `\` and the control characters and nothing else; every other scalar is written as UTF-8.
/// Separators are inserted automatically: callers only open, close and write values.
///
/// Cost: amortized O(1) per byte written; no allocation besides the buffer's growth.
public struct JSONWriter: Sendable {
  @usableFromInline var storage: [UInt8]
  @usableFromInline var needsSeparator = false
  /// While replicas are numbered (``numberReplicas()``), each replica's number.
  @usableFromInline var replicaNumbers: [ReplicaID: Int]?
  /// The replicas numbered so far, in the order of their numbers.
  public private(set) var numberedReplicas: [ReplicaID] = []
  /// Whether values write their compact encoding, the one of sync messages from format 5 on:
  /// a causal context's intervals as gaps, a map's record without the part that is its key.
  /// A reader reads it only inside ``JSONReader/readingCompactly(_:)``.
  public var writesCompactly = false

  /// Creates a writer whose buffer starts with room for `capacity` bytes.
  public init(capacity: Int = 4096) {
    storage = []
    storage.reserveCapacity(capacity)
  }

  /// A writer with an empty buffer that numbers replicas as `other` does and goes on from its
  /// table, and writes as compactly: for one document whose parts are written apart and share
  /// one table.
  public init(numberingAs other: JSONWriter, capacity: Int = 4096) {
    self.init(capacity: capacity)
    replicaNumbers = other.replicaNumbers
    numberedReplicas = other.numberedReplicas
    writesCompactly = other.writesCompactly
  }

  /// The bytes written so far.
  public var bytes: [UInt8] { storage }

  /// The number of bytes written so far.
  public var count: Int { storage.count }

  /// Replaces already-written bytes starting at `offset`, for a fixed-width placeholder (a
  /// checksum) whose value is known only after what follows it is written.
  public mutating func overwrite(at offset: Int, with replacement: some Collection<UInt8>) {
    precondition(offset >= 0 && offset + replacement.count <= storage.count)
    storage.replaceSubrange(offset..<offset + replacement.count, with: replacement)
  }

  /// Calls `body` with the bytes written so far.
  public func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
    storage.withUnsafeBufferPointer(body)
  }

  /// Writes one value with its ``JSONWritable`` conformance and returns the bytes.
  public static func encode<Value: JSONWritable>(_ value: Value, capacity: Int = 4096) -> [UInt8] {
    var writer = JSONWriter(capacity: capacity)
    value.write(to: &writer)
    return writer.storage
  }

  /// From now on writes each replica id as a number, its index in ``numberedReplicas``, so
  /// that a document names each replica once: in a table its reader is given
  /// (``JSONReader/numberingReplicas(_:_:)``).
  public mutating func numberReplicas() {
    if replicaNumbers == nil { replicaNumbers = [:] }
  }

  /// The number of `replica` while replicas are numbered, given it on first sight; `nil` when
  /// they are not.
  @inlinable
  public mutating func number(of replica: ReplicaID) -> Int? {
    guard replicaNumbers != nil else { return nil }
    if let number = replicaNumbers![replica] { return number }
    let number = numberedReplicas.count
    replicaNumbers![replica] = number
    appendNumbered(replica)
    return number
  }

  @usableFromInline
  mutating func appendNumbered(_ replica: ReplicaID) { numberedReplicas.append(replica) }

  /// Writes `json`, one whole JSON value another writer wrote, as the next value.
  public mutating func encodedValue(_ json: [UInt8]) {
    separate()
    storage.append(contentsOf: json)
    needsSeparator = true
  }

  // MARK: Structure

  @inlinable
  mutating func separate() {
    if needsSeparator { storage.append(UInt8(ascii: ",")) }
  }

  @inlinable
  public mutating func beginObject() {
    separate()
    storage.append(UInt8(ascii: "{"))
    needsSeparator = false
  }

  @inlinable
  public mutating func endObject() {
    storage.append(UInt8(ascii: "}"))
    needsSeparator = true
  }

  @inlinable
  public mutating func beginArray() {
    separate()
    storage.append(UInt8(ascii: "["))
    needsSeparator = false
  }

  @inlinable
  public mutating func endArray() {
    storage.append(UInt8(ascii: "]"))
    needsSeparator = true
  }

  /// Writes an object key known at compile time; it must need no escaping.
  @inlinable
  public mutating func key(_ name: StaticString) {
    separate()
    storage.append(UInt8(ascii: "\""))
    name.withUTF8Buffer { storage.append(contentsOf: $0) }
    storage.append(UInt8(ascii: "\""))
    storage.append(UInt8(ascii: ":"))
    needsSeparator = false
  }

  /// Writes an object key of two parts known at compile time, `name` then `suffix` (a field's
  /// name and its kind); neither may need escaping.
  @inlinable
  public mutating func key(_ name: StaticString, _ suffix: StaticString) {
    separate()
    storage.append(UInt8(ascii: "\""))
    name.withUTF8Buffer { storage.append(contentsOf: $0) }
    suffix.withUTF8Buffer { storage.append(contentsOf: $0) }
    storage.append(UInt8(ascii: "\""))
    storage.append(UInt8(ascii: ":"))
    needsSeparator = false
  }

  /// Writes an object key computed at run time, escaped like a string.
  public mutating func key(_ name: String) {
    string(name)
    storage.append(UInt8(ascii: ":"))
    needsSeparator = false
  }

  /// Writes `key: value`.
  @inlinable
  public mutating func field<Value: JSONWritable>(_ name: StaticString, _ value: Value) {
    key(name)
    value.write(to: &self)
  }

  /// Writes a value through its conformance.
  @inlinable
  public mutating func value<Value: JSONWritable>(_ value: Value) {
    value.write(to: &self)
  }

  // MARK: Scalars

  public mutating func null() {
    separate()
    storage.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
    needsSeparator = true
  }

  public mutating func bool(_ value: Bool) {
    separate()
    if value {
      storage.append(contentsOf: [0x74, 0x72, 0x75, 0x65])
    } else {
      storage.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65])
    }
    needsSeparator = true
  }

  public mutating func unsigned(_ value: UInt64) {
    separate()
    appendDigits(of: value)
    needsSeparator = true
  }

  public mutating func signed(_ value: Int64) {
    separate()
    if value < 0 { storage.append(UInt8(ascii: "-")) }
    appendDigits(of: value.magnitude)
    needsSeparator = true
  }

  @usableFromInline
  mutating func appendDigits(of value: UInt64) {
    if value < 10 {
      storage.append(0x30 &+ UInt8(truncatingIfNeeded: value))
      return
    }
    var digits = 1
    var rest = value / 10
    while rest > 0 {
      digits += 1
      rest /= 10
    }
    let end = storage.count + digits
    storage.append(contentsOf: repeatElement(0, count: digits))
    storage.withUnsafeMutableBufferPointer { buffer in
      var index = end
      var remaining = value
      repeat {
        index -= 1
        buffer[index] = 0x30 &+ UInt8(truncatingIfNeeded: remaining % 10)
        remaining /= 10
      } while remaining > 0
    }
  }

  /// Writes a string, escaping `"`, `\` and U+0000–U+001F.
  public mutating func string(_ value: String) {
    separate()
    storage.append(UInt8(ascii: "\""))
    var value = value
    value.withUTF8 { appendEscaped($0) }
    storage.append(UInt8(ascii: "\""))
    needsSeparator = true
  }

  /// Writes a string given as its UTF-8 bytes, which the caller guarantees are valid UTF-8.
  public mutating func string(utf8 bytes: UnsafeBufferPointer<UInt8>) {
    separate()
    storage.append(UInt8(ascii: "\""))
    appendEscaped(bytes)
    storage.append(UInt8(ascii: "\""))
    needsSeparator = true
  }

  private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
    var runStart = 0
    for index in 0..<utf8.count {
      let byte = utf8[index]
      guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
        continue
      }
      storage.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
      runStart = index + 1
      switch byte {
      case UInt8(ascii: "\""): storage.append(contentsOf: [0x5C, 0x22])
      case UInt8(ascii: "\\"): storage.append(contentsOf: [0x5C, 0x5C])
      case 0x08: storage.append(contentsOf: [0x5C, UInt8(ascii: "b")])
      case 0x09: storage.append(contentsOf: [0x5C, UInt8(ascii: "t")])
      case 0x0A: storage.append(contentsOf: [0x5C, UInt8(ascii: "n")])
      case 0x0C: storage.append(contentsOf: [0x5C, UInt8(ascii: "f")])
      case 0x0D: storage.append(contentsOf: [0x5C, UInt8(ascii: "r")])
      default:
        let hex = Array("0123456789abcdef".utf8)
        storage.append(contentsOf: [
          0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)],
        ])
      }
    }
    storage.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
  }

  /// Writes bytes that already form one complete, valid JSON value (for example a field this
  /// build does not understand, carried through unchanged).
  public mutating func raw(_ json: [UInt8]) {
    separate()
    storage.append(contentsOf: json)
    needsSeparator = true
  }
}
