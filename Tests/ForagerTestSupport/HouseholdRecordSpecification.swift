import CRDTTestSupport
import ForagerSync
import SemanticCRDT

/// The records of an observed-remove map as the household specification follows them: which
/// writes survive their removals, and what each surviving write carries.
///
/// Every record the household keeps in an `ORMap` (items, recipes, lists, plans, categories) is
/// a join of its surviving writes' values (ADR 0001), and a write's value is what its device
/// held of the record, changed by the write. So a record shows when some write of it was seen
/// by no removal of it, and each field shows the last write among everything the surviving
/// writes carry. Stated with events alone: no dots, no contexts.
extension HouseholdModel {
  /// A record the specification follows through writes and removals.
  package enum RecordRef: Hashable {
    case item(ItemRef)
    case recipe(RecipeID)
    case list(WeeklyListID)
    case plan(MealPlanID)
    case category(CategoryKey)
    case meal(SlotKey)
  }

  /// An item: by id where an operation names it, and for the items a recipe adds (whose ids are
  /// fresh UUIDs a model cannot predict) by the adding event and the line's index.
  package enum ItemRef: Hashable {
    case id(GroceryItemID)
    case recipeLine(event: Int, line: Int)
  }

  package enum Field: Hashable {
    case text, template, category, checked, title, lines, name, order, scope
    /// A detail a ``DetailEdit`` writes, by its key in the record's declaration.
    case detail(String)
  }

  package enum FieldValue: Equatable {
    case text(String)
    case template(IngredientKey)
    case category(CategoryKey?)
    case flag(Bool)
    case lines([String])
    case order(Int64)
    case scope(SharingScope)
    /// A detail's value, as ``DetailEdit/writes(_:at:)`` says it shows.
    case shown(String)
  }

  /// What a device holds of a record: each field's last write, and each replica's uses.
  package struct RecordValue {
    package var fields: [Field: (stamp: HybridTimestamp, value: FieldValue)] = [:]
    package var uses: [ReplicaID: UInt64] = [:]

    package mutating func write(_ field: Field, _ value: FieldValue, at stamp: HybridTimestamp) {
      if fields[field].map({ stamp > $0.stamp }) ?? true { fields[field] = (stamp, value) }
    }

    /// The join of two values: per field the later write, per replica the greater count.
    package mutating func join(_ other: RecordValue) {
      for (field, write) in other.fields { self.write(field, write.value, at: write.stamp) }
      uses.merge(other.uses, uniquingKeysWith: max)
    }

    package subscript(field: Field) -> FieldValue? { fields[field]?.value }

    package var text: String? { if case .text(let text)? = self[.text] { text } else { nil } }
    package var template: IngredientKey? {
      if case .template(let key)? = self[.template] { key } else { nil }
    }
    /// The category written last; `nil` when none was written or the last write cleared it.
    package var category: CategoryKey? {
      if case .category(let key)? = self[.category] { key } else { nil }
    }
    package var isChecked: Bool {
      if case .flag(let checked)? = self[.checked] { checked } else { false }
    }
    package var title: String? { if case .text(let title)? = self[.title] { title } else { nil } }
    package var lines: [String] { if case .lines(let lines)? = self[.lines] { lines } else { [] } }
    package var name: String? { if case .text(let name)? = self[.name] { name } else { nil } }
    package var order: Int64? { if case .order(let order)? = self[.order] { order } else { nil } }
    package var scope: SharingScope {
      if case .scope(let scope)? = self[.scope] { scope } else { .household }
    }
    package var usageCount: UInt64 { uses.values.reduce(0, +) }
    /// The details written, by key, each as it shows.
    package var details: [String: String] {
      var result: [String: String] = [:]
      for (field, write) in fields {
        if case .detail(let key) = field, case .shown(let shown) = write.value {
          result[key] = shown
        }
      }
      return result
    }
  }

  /// One event's write of one record.
  package struct RecordWrite {
    /// Where the written value starts from.
    package enum Start {
      /// The record's value as the device held it: an edit.
      case current
      /// Nothing: a new record set over whatever the device held.
      case empty
      /// Another record's value as the device held it: a category moved by a rename.
      case from(RecordRef)
    }

    package var start = Start.current
    package var fields: [(field: Field, value: FieldValue, stamp: HybridTimestamp)] = []
    /// Uses counted, per replica.
    package var uses: [ReplicaID: UInt64] = [:]

    package static func creating(_ fields: [(Field, FieldValue)], at stamp: HybridTimestamp)
      -> RecordWrite
    {
      RecordWrite(start: .empty, fields: fields.map { ($0.0, $0.1, stamp) })
    }

    package static func editing(_ field: Field, _ value: FieldValue, at stamp: HybridTimestamp)
      -> RecordWrite
    {
      RecordWrite(fields: [(field, value, stamp)])
    }
  }

  /// The records' writes and removals of a set of events, and the values that follow, with
  /// each event's results remembered (the specification asks about every event's past).
  package final class RecordHistory {
    private let writesOf: (Event<Operation>) -> [RecordRef: RecordWrite]
    private let removalsOf: (Event<Operation>) -> Set<RecordRef>
    private let seen: (Event<Operation>) -> [Event<Operation>]
    private var writes: [Int: [RecordRef: RecordWrite]] = [:]
    private var removals: [Int: Set<RecordRef>] = [:]
    private var carried: [RecordRef: [Int: RecordValue]] = [:]

    package init(
      writes: @escaping (Event<Operation>) -> [RecordRef: RecordWrite],
      removals: @escaping (Event<Operation>) -> Set<RecordRef>,
      seen: @escaping (Event<Operation>) -> [Event<Operation>]
    ) {
      writesOf = writes
      removalsOf = removals
      self.seen = seen
    }

    package func writes(of event: Event<Operation>) -> [RecordRef: RecordWrite] {
      if let known = writes[event.id] { return known }
      let result = writesOf(event)
      writes[event.id] = result
      return result
    }

    package func removals(of event: Event<Operation>) -> Set<RecordRef> {
      if let known = removals[event.id] { return known }
      let result = removalsOf(event)
      removals[event.id] = result
      return result
    }

    /// The record's value after `history`, or `nil` when every write of it was seen by a
    /// removal of it (or there is none).
    package func value(of record: RecordRef, in history: [Event<Operation>]) -> RecordValue? {
      let removers = history.filter { removals(of: $0).contains(record) }
      var result: RecordValue?
      for writer in history where writes(of: writer)[record] != nil {
        guard !removers.contains(where: { writer.isObserved(by: $0) }) else { continue }
        var joined = result ?? RecordValue()
        joined.join(value(of: record, writtenBy: writer))
        result = joined
      }
      return result
    }

    /// What `writer`'s write of the record carries: where it starts, as its device held it,
    /// changed by the write.
    private func value(of record: RecordRef, writtenBy writer: Event<Operation>) -> RecordValue {
      if let known = carried[record]?[writer.id] { return known }
      let write = writes(of: writer)[record]!
      var result: RecordValue
      switch write.start {
      case .current: result = value(of: record, in: seen(writer)) ?? RecordValue()
      case .empty: result = RecordValue()
      case .from(let source): result = value(of: source, in: seen(writer)) ?? RecordValue()
      }
      for (field, value, stamp) in write.fields { result.write(field, value, at: stamp) }
      for (replica, count) in write.uses { result.uses[replica, default: 0] += count }
      carried[record, default: [:]][writer.id] = result
      return result
    }
  }
}
