import SemanticCRDT

// Inlining: these conformances are generic (or called per element); @inlinable lets the module
// that encodes concrete maps and records specialize them, as the CRDTs' own code is (see
// ORMap.swift). @usableFromInline marks the field tables inlined code reads.

extension ReplicaID: JSONCodable {
  /// Writes the id as a string, or as its number while the writer numbers replicas.
  @inlinable
  public func write(to writer: inout JSONWriter) {
    if let number = writer.number(of: self) {
      writer.unsigned(UInt64(number))
    } else {
      writer.string(rawValue)
    }
  }

  public init(from reader: inout JSONReader) throws(JSONError) {
    if let table = reader.replicaTable {
      self = try reader.replica(numbered: UInt64(from: &reader), in: table)
      return
    }
    let span = try reader.scanString()
    guard span.end > span.start else { throw reader.error(.invalidValue("a replica id is empty")) }
    guard !span.escaped else {
      self.init(reader.decodeString(span))
      return
    }
    self = reader.recentReplicas.id(
      text: UnsafeBufferPointer(rebasing: reader.bytes[span.start..<span.end])
    ) { ReplicaID(String(decoding: $0, as: UTF8.self)) }
  }
}

extension JSONWriter {
  /// Writes `replica` as an object's key: its id, or its number while the writer numbers
  /// replicas.
  mutating func key(_ replica: ReplicaID) {
    let number = number(of: replica)
    key(number.map { String($0) } ?? replica.rawValue)
  }
}

extension JSONReader {
  /// The replica an object's key names: the key itself, or, while replicas are numbered, the
  /// replica of that number (written one way only, so that no replica is named twice).
  mutating func replica(key: String) throws(JSONError) -> ReplicaID {
    guard !key.isEmpty else { throw error(.invalidValue("a replica id is empty")) }
    guard let table = replicaTable else { return ReplicaID(key) }
    guard let number = UInt64(key), String(number) == key else {
      throw error(.invalidValue("\(key.debugDescription) is not a replica's number"))
    }
    return try replica(numbered: number, in: table)
  }
}
