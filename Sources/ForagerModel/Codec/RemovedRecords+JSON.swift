import SemanticCRDT
import SemanticCRDTJSON

// A kept removal in a replica file: `{"at": ms, "id": n, "records": state}`, in the envelope's
// `removed` array (docs/format.md).

extension RemovedRecords: JSONWritable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.field("at", removedAtMilliseconds)
    writer.field("id", id)
    writer.field("records", records)
    writer.endObject()
  }
}

extension RemovedRecords: JSONReadable {
  /// The keys of a kept removal's object.
  enum Field: String, CaseIterable, Sendable {
    case at, id, records
  }

  static let fields = JSONFields<Field>()

  /// Reads one kept removal, refusing a time past `HybridTimestamp.maximumWallMilliseconds`,
  /// an id below 1, and records keyed by a newer normalizer than this build's.
  public init(from reader: inout JSONReader) throws(JSONError) {
    let start = reader.offset
    var at: UInt64?
    var id: Int64?
    var records: HouseholdState?
    try reader.readObject(Self.fields) { reader, field throws(JSONError) in
      switch field {
      case .at: try reader.read(into: &at)
      case .id: try reader.read(into: &id)
      case .records: try reader.read(into: &records)
      }
    }
    guard let at, let id, let records else {
      throw JSONError(.invalidValue("a kept removal needs at, id and records"), at: start)
    }
    guard at <= HybridTimestamp.maximumWallMilliseconds else {
      throw JSONError(.invalidValue("a kept removal dated past the year 9999"), at: start)
    }
    guard id >= 1 else {
      throw JSONError(.invalidValue("a kept removal's id must be positive"), at: start)
    }
    guard records.normalizerVersion <= .current else {
      throw JSONError(
        .invalidValue("kept records keyed by normalizer v\(records.normalizerVersion.rawValue)"),
        at: start)
    }
    self.init(id: id, removedAtMilliseconds: at, records: records)
  }
}

extension [RemovedRecords] {
  /// Reads the envelope's `removed` array: at most ``RemovedRecords/maximumKept``, ids
  /// increasing. The caller checks their household against the file's.
  package static func read(from reader: inout JSONReader) throws(JSONError) -> [RemovedRecords] {
    var removals: [RemovedRecords] = []
    try reader.readArray { reader throws(JSONError) in
      let start = reader.offset
      let removal = try RemovedRecords(from: &reader)
      guard removals.count < RemovedRecords.maximumKept else {
        throw JSONError(
          .invalidValue("more than \(RemovedRecords.maximumKept) kept removals"), at: start)
      }
      guard removal.id > removals.last?.id ?? 0 else {
        throw JSONError(.invalidValue("kept removals' ids must increase"), at: start)
      }
      removals.append(removal)
    }
    return removals
  }
}
