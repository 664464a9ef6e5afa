// Inlining: the reader's and writer's per-byte and per-value methods are @inlinable so that
// a codec in another module (a household record's) compiles them into its own loop, and the
// generic ones specialize for its types, rather than paying a call per byte across the module
// boundary. @usableFromInline marks the cursor state and slow paths they reach; they stay
// internal.

/// A type that writes itself with ``JSONWriter``.
///
/// Conformances write keys in a fixed order and collection elements in a fixed order, so equal
/// values give identical bytes. The shapes are those `JSONEncoder` produces from the type's
/// `Codable` conformance with `.sortedKeys`, so one format has two codecs: this fast one for
/// files and Foundation's for everything else; tests hold them to the same bytes.
public protocol JSONWritable {
  /// Writes this value as one JSON value.
  func write(to writer: inout JSONWriter)
}

/// A type that reads itself with ``JSONReader``, validating as it goes.
///
/// The entries of a long map or set are read on two threads at once, each with its own
/// reader: a conformance must change nothing but its reader (no shared caches or counters).
public protocol JSONReadable: ReadableOnAnyThread {
  /// Reads one JSON value, or throws a ``JSONError`` saying where and why it is not one of
  /// these.
  init(from reader: inout JSONReader) throws(JSONError)
}

/// A type with both halves of the fast JSON codec.
public typealias JSONCodable = JSONWritable & JSONReadable

extension String: JSONCodable {
  public func write(to writer: inout JSONWriter) { writer.string(self) }
  public init(from reader: inout JSONReader) throws(JSONError) { self = try reader.readString() }
}

extension Bool: JSONCodable {
  public func write(to writer: inout JSONWriter) { writer.bool(self) }
  public init(from reader: inout JSONReader) throws(JSONError) { self = try reader.readBool() }
}

// Integers on the wire have a fixed width: a platform-width `Int` is 32 bits on an Apple
// Watch (arm64_32), where a 64-bit peer's values would not fit. `Int` is written (counts in
// reports, which widen to 64 bits), never read: no field read from a file or a message can be
// one, and a codable value (`LWWRegister<Int>`, say) does not compile (`FixedWidthWireTests`).
extension Int: JSONWritable {
  public func write(to writer: inout JSONWriter) { writer.signed(Int64(self)) }
}

extension Int64: JSONCodable {
  public func write(to writer: inout JSONWriter) { writer.signed(self) }
  public init(from reader: inout JSONReader) throws(JSONError) { self = try reader.readInteger() }
}

extension UInt64: JSONCodable {
  public func write(to writer: inout JSONWriter) { writer.unsigned(self) }
  public init(from reader: inout JSONReader) throws(JSONError) { self = try reader.readInteger() }
}

extension UInt32: JSONCodable {
  public func write(to writer: inout JSONWriter) { writer.unsigned(UInt64(self)) }
  public init(from reader: inout JSONReader) throws(JSONError) { self = try reader.readInteger() }
}

extension Optional: JSONWritable where Wrapped: JSONWritable {
  /// `nil` is written as `null`, as `JSONEncoder` writes a present optional key.
  public func write(to writer: inout JSONWriter) {
    if let self { self.write(to: &writer) } else { writer.null() }
  }
}

extension Optional: JSONReadable where Wrapped: JSONReadable {
  public init(from reader: inout JSONReader) throws(JSONError) {
    self = try reader.readNull() ? nil : try Wrapped(from: &reader)
  }
}

extension Array: JSONWritable where Element: JSONWritable {
  public func write(to writer: inout JSONWriter) {
    writer.beginArray()
    for element in self { element.write(to: &writer) }
    writer.endArray()
  }
}

extension Array: JSONReadable where Element: JSONReadable {
  public init(from reader: inout JSONReader) throws(JSONError) {
    self = try reader.readArray(of: Element.self)
  }
}

extension JSONWritable where Self: RawRepresentable, RawValue == String {
  /// Keys and string enums are written as their raw text.
  @inlinable
  public func write(to writer: inout JSONWriter) { writer.string(rawValue) }
}

extension JSONReadable where Self: RawRepresentable, RawValue == String {
  /// Reads the raw text, refusing text that is not a valid value.
  @inlinable
  public init(from reader: inout JSONReader) throws(JSONError) {
    let start = reader.offset
    let text = try reader.readString()
    guard let value = Self(rawValue: text) else {
      throw JSONError(.invalidValue("\"\(text)\" is not a valid \(Self.self)"), at: start)
    }
    self = value
  }
}

#if compiler(>=6.2)
  /// What a readable type's conformance must be: usable from any thread, since the entries of
  /// a long map or set may be read on two threads at once. Toolchains before Swift 6.2 do not
  /// check metatypes, so there it asks nothing.
  public typealias ReadableOnAnyThread = SendableMetatype
#else
  public typealias ReadableOnAnyThread = Any
#endif
