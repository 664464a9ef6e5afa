import ForagerTestSupport
import Foundation
import SemanticCRDT
import Testing

@testable import ForagerModel

/// Each record kind's declaration (``DeclaredRecord/fields(_:_:_:)``) is the one list of its
/// parts, and everything per field is derived from it. These tests check the list against the
/// record itself, so that a stored property it misses, or a line that names one property and
/// binds another, fails here rather than as a field that never merges or never reaches the disk.
@Suite struct RecordDeclarationTests {
  /// What the declaration of one kind says, collected by a visitor.
  struct Declared: FieldVisitor {
    typealias Failure = Never
    var names: [String] = []
    var keys: [String] = []

    mutating func identity<Value: IdentityValue>(
      _ name: StaticString, _ value: inout Value, _ other: Value
    ) {
      names.append(name.description)
      keys.append(name.description)
    }

    mutating func creation(_ value: inout Creation, _ other: Creation) {
      names.append("creation")
      keys.append("creation")
    }

    mutating func field<Field: RecordField>(
      _ name: FieldName, _ value: inout Field, _ other: Field
    ) {
      names.append(name.name.description)
      keys.append(name.key(Field.kind))
    }
  }

  /// Copies part `target` of the record given as `other` into the record visited.
  struct CopyingPart: FieldVisitor {
    typealias Failure = Never
    let target: Int
    var index = 0

    mutating func identity<Value: IdentityValue>(
      _ name: StaticString, _ value: inout Value, _ other: Value
    ) {
      if index == target { value = other }
      index += 1
    }

    mutating func creation(_ value: inout Creation, _ other: Creation) {
      if index == target { value = other }
      index += 1
    }

    mutating func field<Field: RecordField>(
      _ name: FieldName, _ value: inout Field, _ other: Field
    ) {
      if index == target { value = other }
      index += 1
    }
  }

  /// A check of one kind of record, given the records of that kind in random households.
  protocol KindCheck {
    func check<Record: MappedRecord>(_ kind: Record.Type, records: [Record], plural: String)
  }

  /// Runs a check on every kind of record.
  struct EachKind<Check: KindCheck>: HouseholdMapVisitor {
    let check: Check
    var states: [HouseholdState] = []

    mutating func visit<Record>(_ map: HouseholdMap<Record>) {
      let records = states.flatMap { Array($0[keyPath: map.records].values) }
      check.check(Record.self, records: records, plural: map.plural)
    }
  }

  static func forEachKind(_ check: some KindCheck, states: [HouseholdState] = []) {
    var visitor = EachKind(check: check, states: states)
    HouseholdState.forEachMap(&visitor, carrying: [])
  }

  static func declared<Record: DeclaredRecord>(_ kind: Record.Type) -> Declared {
    var visitor = Declared()
    var record = Record.blank
    Record.fields(&visitor, &record, Record.blank)
    return visitor
  }

  /// The stored properties of a record, by name, each as text to compare.
  static func properties(of record: some DeclaredRecord) -> [String: String] {
    Dictionary(
      uniqueKeysWithValues: Mirror(reflecting: record).children.map {
        ($0.label ?? "?", String(reflecting: $0.value))
      })
  }

  /// The parts in the order the codecs write them (their keys' UTF-8 bytes), each once, and the
  /// table the reader matches keys against is the same list.
  @Test func partsAreDeclaredInKeyOrderEachOnce() {
    struct Check: KindCheck {
      func check<Record: MappedRecord>(_ kind: Record.Type, records: [Record], plural: String) {
        let keys = RecordDeclarationTests.declared(kind).keys
        let sorted = keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        #expect(keys == sorted, "\(plural): declared out of key order")
        #expect(Set(keys).count == keys.count, "\(plural): a key declared twice")
        #expect(Record.fieldKeys.names == keys, "\(plural): the reader's table is stale")
      }
    }
    Self.forEachKind(Check())
  }

  /// Every stored property but the unknown fields is declared, under its own name.
  @Test func everyStoredPropertyIsDeclared() {
    struct Check: KindCheck {
      func check<Record: MappedRecord>(_ kind: Record.Type, records: [Record], plural: String) {
        let stored = Set(RecordDeclarationTests.properties(of: Record.blank).keys).subtracting([
          "unknownFields"
        ])
        #expect(Set(RecordDeclarationTests.declared(kind).names) == stored, "\(plural)")
      }
    }
    Self.forEachKind(Check())
  }

  /// Each line of a declaration binds the property it names: copying part *i* of a record into
  /// a blank one changes exactly the property of that name. Random households must write every
  /// part of every kind somewhere, or the generator misses a field, which fails here too.
  @Test func eachDeclaredPartBindsThePropertyItNames() {
    struct Check: KindCheck {
      func check<Record: MappedRecord>(_ kind: Record.Type, records: [Record], plural: String) {
        let blank = RecordDeclarationTests.properties(of: Record.blank)
        for (target, name) in RecordDeclarationTests.declared(kind).names.enumerated() {
          var written = false
          for record in records {
            var copy = Record.blank
            var copying = CopyingPart(target: target)
            Record.fields(&copying, &copy, record)
            let changed = RecordDeclarationTests.properties(of: copy).filter {
              blank[$0.key] != $0.value
            }.keys
            guard !changed.isEmpty else { continue }
            written = true
            #expect(Array(changed) == [name], "\(plural): the line of \(name) binds \(changed)")
            break
          }
          #expect(written, "\(plural): no random household writes \(name)")
        }
      }
    }
    Self.forEachKind(
      Check(), states: (1...40).map { RandomHousehold.state(seed: $0, operations: 300) })
  }
}

/// The guide to evolving the model is in docs/ and in the DocC catalog: the same text.
@Suite struct EvolvingTheModelGuideTests {
  /// Every guide a DocC catalog publishes is a link to its document in docs/, so each guide's
  /// text lives in one place; only a catalog's landing page is its own.
  @Test func everyCatalogGuideIsALinkToItsDocument() throws {
    let root = packageRoot
    let sources = root.appendingPathComponent("Sources")
    let files = FileManager.default
    var guides = 0
    for module in try files.contentsOfDirectory(atPath: sources.path) {
      let catalog = sources.appendingPathComponent("\(module)/\(module).docc")
      guard files.fileExists(atPath: catalog.path) else { continue }
      for article in try files.contentsOfDirectory(atPath: catalog.path)
      where article.hasSuffix(".md") && article != "\(module).md" {
        let path = catalog.appendingPathComponent(article).path
        let target = try? files.destinationOfSymbolicLink(atPath: path)
        #expect(
          target?.hasPrefix("../../../docs/") == true,
          "\(module).docc/\(article) is not a link to a document in docs/")
        #expect(files.fileExists(atPath: path), "\(module).docc/\(article) links to nothing")
        guides += 1
      }
    }
    #expect(guides >= 7, "the catalogs publish the guides")
  }

  @Test func theGuideSaysTheSameInBothPlaces() throws {
    let root = packageRoot
    func body(_ path: String) throws -> [Substring] {
      let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
      return text.split(separator: "\n", omittingEmptySubsequences: false)
        .filter { !$0.hasPrefix("<!--") && !$0.hasPrefix("     ") }
    }
    let docs = try body("docs/evolving-the-model.md")
    let catalog = try body("Sources/ForagerSync/ForagerSync.docc/EvolvingTheModel.md")
    #expect(docs == catalog)
  }
}
