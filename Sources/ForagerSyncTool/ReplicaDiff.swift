import ForagerSync
import Foundation
import SemanticCRDT
import SemanticCRDTJSON

/// `forager-sync diff`: what each of two replicas of one household holds that the other lacks.
struct ReplicaDiff {
  /// One kind of record.
  struct Part {
    let name: String
    var onlyInFirst: [String] = []
    var onlyInSecond: [String] = []
    /// Records both hold with different values, with the fields that differ.
    var differing: [(record: String, fields: [String])] = []

    var isEmpty: Bool { onlyInFirst.isEmpty && onlyInSecond.isEmpty && differing.isEmpty }
  }

  let first: ReplicaFile
  let second: ReplicaFile
  var parts: [Part] = []
  /// Bytes of the delta each side would send the other.
  var deltaToSecond = 0
  var deltaToFirst = 0

  init(_ first: ReplicaFile, _ second: ReplicaFile) throws(ToolError) {
    let a = first.contents.state
    let b = second.contents.state
    guard a.householdID == b.householdID else {
      throw .refused(
        "\(first.url.path) and \(second.url.path) are replicas of different households (\(a.householdID), \(b.householdID))"
      )
    }
    self.first = first
    self.second = second
    struct Compare: HouseholdMapVisitor {
      let a: HouseholdState
      let b: HouseholdState
      var parts: [Part] = []
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        parts.append(
          ReplicaDiff.compare(map.plural, a[keyPath: map.records], b[keyPath: map.records]))
      }
    }
    var compare = Compare(a: a, b: b)
    HouseholdState.forEachMap(&compare, carrying: a.carriedMapNames(with: b))
    parts = compare.parts
    deltaToSecond = a.delta(since: b.version).map { JSONWriter.encode($0).count } ?? 0
    deltaToFirst = b.delta(since: a.version).map { JSONWriter.encode($0).count } ?? 0
  }

  /// Whether the two states are equal. A delta between equal states is not necessarily empty:
  /// it carries the intervals of writes each side has seen removed (ADR 0002).
  var isEmpty: Bool { first.contents.state == second.contents.state }

  /// Compares one map: keys on one side only, and values whose encoded fields differ (for a
  /// counter, the contributions per replica are shown).
  static func compare<Key: Comparable & CustomStringConvertible, Value: JSONWritable>(
    _ name: String, _ a: ORMap<Key, Value>, _ b: ORMap<Key, Value>
  ) -> Part {
    var part = Part(name: name)
    part.onlyInFirst = a.keys.filter { !b.contains($0) }.sorted().map(\.description)
    part.onlyInSecond = b.keys.filter { !a.contains($0) }.sorted().map(\.description)
    for key in a.keys.filter(b.contains).sorted() {
      let first = fields(of: a[key]!)
      let second = fields(of: b[key]!)
      let names = Set(first.keys).union(second.keys).sorted().filter { field in
        first[field] != second[field]
      }
      guard !names.isEmpty else { continue }
      let shown = names.map { field in
        field == "uses"
          ? "uses (\(first[field] ?? "none") here, \(second[field] ?? "none") there)" : field
      }
      part.differing.append((key.description, shown))
    }
    return part
  }

  /// A record's fields, as canonical JSON text per field.
  private static func fields<Value: JSONWritable>(of value: Value) -> [String: String] {
    let bytes = JSONWriter.encode(value)
    guard
      let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
    else { return [:] }
    var fields: [String: String] = [:]
    for (name, field) in object {
      let data = try? JSONSerialization.data(
        withJSONObject: field, options: [.sortedKeys, .fragmentsAllowed])
      fields[name] = data.map { String(decoding: $0, as: UTF8.self) } ?? "?"
    }
    return fields
  }

  var text: String {
    let a = first.url.lastPathComponent
    let b = second.url.lastPathComponent
    var lines: [String] = []
    if isEmpty {
      lines.append("\(a) and \(b) hold the same state")
    }
    for part in parts where !part.isEmpty {
      lines.append("\(part.name):")
      lines += part.onlyInFirst.map { "  only in \(a): \($0)" }
      lines += part.onlyInSecond.map { "  only in \(b): \($0)" }
      lines += part.differing.map {
        "  differs: \($0.record): \($0.fields.joined(separator: ", "))"
      }
    }
    lines.append("delta \(a) → \(b): \(deltaToSecond) bytes; \(b) → \(a): \(deltaToFirst) bytes")
    return lines.joined(separator: "\n") + "\n"
  }
}
