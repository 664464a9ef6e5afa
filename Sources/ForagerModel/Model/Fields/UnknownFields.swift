import SemanticCRDT
import SemanticCRDTJSON

/// One field a newer build declared and this build does not know: its kind's CRDT over
/// ``RawJSON`` values, so it merges as the declaring build merges it.
package enum UnknownField: Equatable, Sendable {
  case lastWriterWins(LWWRegister<RawJSON>)
  case multiValue(MVRegister<RawJSON>)
  case counter(GCounter)
  case maximum(MaxRegister<RawJSON>)

  /// Calls `body` with the field's CRDT, as whichever kind it is.
  fileprivate func with<Result>(_ body: (any RecordField) -> Result) -> Result {
    switch self {
    case .lastWriterWins(let field): body(field)
    case .multiValue(let field): body(field)
    case .counter(let field): body(field)
    case .maximum(let field): body(field)
    }
  }

  /// The field as `transform` leaves its CRDT, whichever kind it is.
  fileprivate func map(_ transform: Transform) -> UnknownField {
    switch self {
    case .lastWriterWins(let field): .lastWriterWins(transform.apply(field))
    case .multiValue(let field): .multiValue(transform.apply(field))
    case .counter(let field): .counter(transform.apply(field))
    case .maximum(let field): .maximum(transform.apply(field))
    }
  }

  /// An operation on one field of any kind, applied generically.
  fileprivate protocol Transform {
    func apply<Field: RecordField>(_ field: Field) -> Field
  }

  /// Merges `other`, which has the same key and so the same kind.
  fileprivate mutating func merge(_ other: UnknownField) {
    switch (self, other) {
    case (.lastWriterWins(var field), .lastWriterWins(let incoming)):
      field.merge(incoming)
      self = .lastWriterWins(field)
    case (.multiValue(var field), .multiValue(let incoming)):
      field.merge(incoming)
      self = .multiValue(field)
    case (.counter(var field), .counter(let incoming)):
      field.merge(incoming)
      self = .counter(field)
    case (.maximum(var field), .maximum(let incoming)):
      field.merge(incoming)
      self = .maximum(field)
    default:
      preconditionFailure("two fields of one key are of one kind: the key names it")
    }
  }

  /// Reads a field of `kind`.
  fileprivate init(_ kind: FieldKind, from reader: inout JSONReader) throws(JSONError) {
    switch kind {
    case .lastWriterWins: self = .lastWriterWins(try LWWRegister(from: &reader))
    case .multiValue: self = .multiValue(try MVRegister(from: &reader))
    case .counter: self = .counter(try GCounter(from: &reader))
    case .maximum: self = .maximum(try MaxRegister(from: &reader))
    }
  }

  /// Decodes a field of `kind` from `container` under `key`.
  fileprivate init<Key: CodingKey>(
    _ kind: FieldKind, from container: KeyedDecodingContainer<Key>, forKey key: Key
  ) throws {
    switch kind {
    case .lastWriterWins:
      self = .lastWriterWins(try container.decode(LWWRegister<RawJSON>.self, forKey: key))
    case .multiValue:
      self = .multiValue(try container.decode(MVRegister<RawJSON>.self, forKey: key))
    case .counter: self = .counter(try container.decode(GCounter.self, forKey: key))
    case .maximum: self = .maximum(try container.decode(MaxRegister<RawJSON>.self, forKey: key))
    }
  }
}

/// The fields of one record that this build does not know, by key, each merged by the kind its
/// key names, and written back in key order among the fields it knows.
///
/// Empty in every record a build of the same model wrote, so each operation costs one check
/// then.
package struct UnknownFields: Equatable, Sendable {
  /// One field under its key (`"name:kind"`).
  package struct Entry: Equatable, Sendable {
    package let key: String
    package var field: UnknownField
  }

  /// The fields, ascending by the UTF-8 bytes of their keys, each key once.
  package private(set) var entries: [Entry] = []

  package init() {}

  package var isEmpty: Bool { entries.isEmpty }

  /// The keys, in order.
  package var keys: [String] { entries.map(\.key) }

  /// Merges `other`'s fields: a key in both merges by its kind; a key in one is kept.
  ///
  /// - Complexity: O(*n* + *m*) for the two records' unknown fields.
  package mutating func merge(_ other: UnknownFields) {
    guard !other.isEmpty else { return }
    guard !isEmpty else {
      self = other
      return
    }
    var merged: [Entry] = []
    merged.reserveCapacity(entries.count + other.entries.count)
    var mine = entries[...]
    var theirs = other.entries[...]
    while let next = mine.first, let incoming = theirs.first {
      if next.key == incoming.key {
        var field = next.field
        field.merge(incoming.field)
        merged.append(Entry(key: next.key, field: field))
        mine.removeFirst()
        theirs.removeFirst()
      } else if next.key.utf8.lexicographicallyPrecedes(incoming.key.utf8) {
        merged.append(mine.removeFirst())
      } else {
        merged.append(theirs.removeFirst())
      }
    }
    merged += mine
    merged += theirs
    entries = merged
  }

  /// The greatest timestamp among the fields' writes.
  package var greatestTimestamp: HybridTimestamp? {
    entries.lazy.compactMap { $0.field.with { $0.fieldTimestamp } }.max()
  }

  /// Whether a field holds a live write of one of `replicas` under a dot.
  package func holdsDot(of replicas: Set<ReplicaID>) -> Bool {
    entries.contains { $0.field.with { $0.holdsDot(of: replicas) } }
  }

  /// The fields with the writes of `replicas` stamped for `replica` (ADR 0029).
  package func restamping(_ replicas: Set<ReplicaID>, as replica: ReplicaID) -> UnknownFields {
    struct Restamping: UnknownField.Transform {
      let replicas: Set<ReplicaID>
      let replica: ReplicaID
      func apply<Field: RecordField>(_ field: Field) -> Field {
        field.restamping(replicas, as: replica)
      }
    }
    return transformed(Restamping(replicas: replicas, replica: replica))
  }

  /// The fields as a map's write commits them over `previous`'s (see `Nestable`).
  package func committed(over previous: UnknownFields?, in scope: inout NestingScope)
    -> UnknownFields
  {
    guard !isEmpty else { return self }
    var result = self
    // Both are in key order: one pass over each, however many fields a peer sent.
    var earlier = (previous?.entries ?? [])[...]
    for index in result.entries.indices {
      let key = result.entries[index].key
      while let next = earlier.first, next.key.utf8.lexicographicallyPrecedes(key.utf8) {
        earlier.removeFirst()
      }
      let before = earlier.first.flatMap { $0.key == key ? $0.field : nil }
      switch (result.entries[index].field, before) {
      case (.multiValue(let field), .multiValue(let previous)?):
        result.entries[index].field = .multiValue(field.committed(over: previous, in: &scope))
      case (.multiValue(let field), _):
        result.entries[index].field = .multiValue(field.committed(over: nil, in: &scope))
      default:
        break
      }
    }
    return result
  }

  private func transformed(_ transform: some UnknownField.Transform) -> UnknownFields {
    guard !isEmpty else { return self }
    var result = self
    for index in result.entries.indices {
      result.entries[index].field = result.entries[index].field.map(transform)
    }
    return result
  }

  // MARK: Codecs

  /// Reads the field under `key`, which names its kind, to be put in order by
  /// ``finishReading(at:)`` once the record's object is read.
  ///
  /// - Throws: `unknownKey` for a key that names no kind: only a field format 3 had is written
  ///   bare, and every build knows those. `invalidValue` for a kind this build does not know,
  ///   which only a newer major version may add.
  package mutating func read(_ key: String, from reader: inout JSONReader, at offset: Int)
    throws(JSONError)
  {
    let kind = try Self.kind(of: key, at: offset)
    entries.append(Entry(key: key, field: try UnknownField(kind, from: &reader)))
  }

  /// Decodes the field under `key` from `container`, as ``read(_:from:at:)`` reads it.
  package mutating func decode<Key: CodingKey>(
    _ key: Key, from container: KeyedDecodingContainer<Key>
  ) throws {
    let kind: FieldKind
    do {
      kind = try Self.kind(of: key.stringValue, at: 0)
    } catch {
      throw DecodingError.dataCorruptedError(
        forKey: key, in: container, debugDescription: error.problem.description)
    }
    entries.append(
      Entry(key: key.stringValue, field: try UnknownField(kind, from: container, forKey: key)))
  }

  /// Puts the fields read in key order, in O(*n* log *n*) whatever order they came in, and
  /// refuses a key read twice (the reader checks only the keys it knows), at `offset`.
  package mutating func finishReading(at offset: Int) throws(JSONError) {
    guard entries.count > 1 else { return }
    entries.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    for index in entries.indices.dropFirst() where entries[index - 1].key == entries[index].key {
      throw JSONError(.duplicateKey(entries[index].key), at: offset)
    }
  }

  /// The kind `key` names, or the error for a key that names none this build knows.
  private static func kind(of key: String, at offset: Int) throws(JSONError) -> FieldKind {
    guard let (name, kind) = FieldKind.parse(key), !name.isEmpty else {
      throw JSONError(.unknownKey(key), at: offset)
    }
    guard let kind else {
      throw JSONError(
        .invalidValue("key \"\(key)\" names a kind of field this build does not know"),
        at: offset)
    }
    return kind
  }

  /// Writes the fields whose keys precede `key` (all of them when `nil`) and drops them from
  /// `remaining`: how a record's writer puts them among the fields it knows.
  package static func write(
    _ remaining: inout ArraySlice<Entry>, before key: UnsafeBufferPointer<UInt8>?,
    to writer: inout JSONWriter
  ) {
    while let next = remaining.first {
      if let key, !next.key.utf8.lexicographicallyPrecedes(key) { return }
      writer.key(next.key)
      switch next.field {
      case .lastWriterWins(let field): field.write(to: &writer)
      case .multiValue(let field): field.write(to: &writer)
      case .counter(let field): field.write(to: &writer)
      case .maximum(let field): field.write(to: &writer)
      }
      remaining.removeFirst()
    }
  }

  /// Encodes every field into `container`.
  package func encode<Key: CodingKey>(
    to container: inout KeyedEncodingContainer<Key>, key: (String) -> Key
  ) throws {
    for entry in entries {
      switch entry.field {
      case .lastWriterWins(let field): try container.encode(field, forKey: key(entry.key))
      case .multiValue(let field): try container.encode(field, forKey: key(entry.key))
      case .counter(let field): try container.encode(field, forKey: key(entry.key))
      case .maximum(let field): try container.encode(field, forKey: key(entry.key))
      }
    }
  }
}
