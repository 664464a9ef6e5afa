import Foundation
import SemanticCRDT
import SemanticCRDTJSON

// The fast codec's conformances for the household model. Each writes the bytes `JSONEncoder`
// with `.sortedKeys` writes from the synthesized `Codable` conformance (keys in ascending
// order), which `HouseholdCodecTests` checks on random households.

extension CategoryKey: JSONCodable {}
extension IngredientKey: JSONCodable {}
extension SlotKey: JSONCodable {}
extension SharingScope: JSONCodable {}
extension MemberRole: JSONCodable {}

extension NormalizerVersion: JSONCodable {
  public func write(to writer: inout JSONWriter) { rawValue.write(to: &writer) }

  public init(from reader: inout JSONReader) throws(JSONError) {
    self.init(rawValue: try Int64(from: &reader))
  }
}

extension Creation: JSONCodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.field("member", member)
    writer.field("timestamp", timestamp)
    writer.endObject()
  }

  public init(from reader: inout JSONReader) throws(JSONError) {
    var member: MemberID?
    var timestamp: HybridTimestamp?
    try reader.readObject(Self.fields) { reader, field throws(JSONError) in
      switch field {
      case .member: try reader.read(into: &member)
      case .timestamp: try reader.read(into: &timestamp)
      }
    }
    self.init(timestamp: timestamp.take()!, member: member.take()!)
  }
}

/// The one key of a recipe source's payload, as the synthesized enum coding names it.
private enum RecipeSourceField: String, CaseIterable, Sendable {
  case recipe = "_0"
}

private let recipeSourceFields = JSONFields<RecipeSourceField>()

extension ItemSource: JSONCodable {
  /// The synthesized enum shape: `{"manual":{}}`, `{"staple":{}}`, `{"recipe":{"_0":id}}`.
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    switch self {
    case .manual:
      writer.key("manual")
      writer.beginObject()
      writer.endObject()
    case .staple:
      writer.key("staple")
      writer.beginObject()
      writer.endObject()
    case .recipe(let id):
      writer.key("recipe")
      writer.beginObject()
      writer.field("_0", id)
      writer.endObject()
    }
    writer.endObject()
  }

  public init(from reader: inout JSONReader) throws(JSONError) {
    let start = reader.offset
    var source: ItemSource?
    try reader.readDynamicObject { reader, name throws(JSONError) in
      guard source == nil else {
        throw reader.error(.invalidValue("an item source names one case"))
      }
      switch name {
      case "manual", "staple":
        try reader.readEmptyObject()
        source = name == "manual" ? .manual : .staple
      case "recipe":
        var id: RecipeID?
        try reader.readObject(recipeSourceFields) { reader, _ throws(JSONError) in
          try reader.read(into: &id)
        }
        source = .recipe(id!)
      default:
        throw reader.error(.unknownKey(name))
      }
    }
    guard let source else { throw JSONError(.invalidValue("an item source is empty"), at: start) }
    self = source
  }
}

extension Creation { static let fields = JSONFields<CodingKeys>() }

/// The keys of a ``CalendarDay``, as its `Codable` conformance names them.
private enum CalendarDayField: String, CaseIterable, Sendable {
  case day, month, year
}

private let calendarDayFields = JSONFields<CalendarDayField>()

extension CalendarDay: JSONCodable {
  /// `{"day":10,"month":12,"year":2024}`: the synthesized shape, keys in ascending order.
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.field("day", Int64(day))
    writer.field("month", Int64(month))
    writer.field("year", Int64(year))
    writer.endObject()
  }

  /// Reads a day, refusing one no calendar has (the 31st of April, year 0).
  public init(from reader: inout JSONReader) throws(JSONError) {
    let start = reader.offset
    var day: Int64?
    var month: Int64?
    var year: Int64?
    try reader.readObject(calendarDayFields) { reader, field throws(JSONError) in
      switch field {
      case .day: try reader.read(into: &day)
      case .month: try reader.read(into: &month)
      case .year: try reader.read(into: &year)
      }
    }
    guard let year, let month, let day, (1...9999).contains(year), (1...12).contains(month),
      (1...31).contains(day),
      let valid = CalendarDay(year: Int(year), month: Int(month), day: Int(day))
    else {
      throw JSONError(
        .invalidValue("\(year ?? 0)-\(month ?? 0)-\(day ?? 0) is not a day"), at: start)
    }
    self = valid
  }
}
