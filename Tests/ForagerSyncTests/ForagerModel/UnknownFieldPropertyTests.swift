import CRDTTestSupport
import ForagerTestSupport
import SemanticCRDT
import SemanticCRDTJSON
import SharedSupport
import Testing

@testable import ForagerModel

/// A category as a newer build might declare it: this build's fields and one more of every
/// kind, each keyed with its kind. What this build reads of it is a `GroceryCategory` whose
/// `unknownFields` hold the four.
struct NewerCategory: DeclaredRecord, Equatable {
  var key: CategoryKey
  var creation: Creation
  var color = LWWRegister<String?>(nil, at: HouseholdState.genesis)
  var cooks = MVRegister<String>()
  var lastStocked = MaxRegister<Int64>(0)
  var name = LWWRegister("", at: HouseholdState.genesis)
  var order = LWWRegister<Int64>(0, at: HouseholdState.genesis)
  var pins = GCounter()
  var scope = LWWRegister(SharingScope.household, at: HouseholdState.genesis)
  var unknownFields = UnknownFields()

  static func fields<Visitor: FieldVisitor>(
    _ visitor: inout Visitor, _ record: inout Self, _ other: Self
  ) throws(Visitor.Failure) {
    try visitor.field("color", &record.color, other.color)
    try visitor.field("cooks", &record.cooks, other.cooks)
    try visitor.creation(&record.creation, other.creation)
    try visitor.identity("key", &record.key, other.key)
    try visitor.field("lastStocked", &record.lastStocked, other.lastStocked)
    try visitor.field(.bare("name"), &record.name, other.name)
    try visitor.field(.bare("order"), &record.order, other.order)
    try visitor.field("pins", &record.pins, other.pins)
    try visitor.field(.bare("scope"), &record.scope, other.scope)
  }

  static let blank = NewerCategory(
    key: CategoryKey(rawValue: ""),
    creation: Creation(timestamp: HouseholdState.genesis, member: RandomHousehold.owner))
  static let fieldKeys = declaredKeys()

  var sharingScope: SharingScope { scope.value }
  mutating func merge(_ other: Self) { mergeFields(other) }
  var greatestTimestamp: HybridTimestamp? { fieldsGreatestTimestamp }
  func committed(over previous: @autoclosure () -> Self?, in scope: inout NestingScope) -> Self {
    committedFields(over: previous, in: &scope)
  }
  func write(to writer: inout JSONWriter) { writeFields(to: &writer) }
  init(from reader: inout JSONReader) throws(JSONError) {
    self = try Self.readFields(from: &reader)
  }
  func encode(to encoder: any Encoder) throws { try encodeFields(to: encoder) }
  init(from decoder: any Decoder) throws { try self.init(decodingFieldsFrom: decoder) }
  init(key: CategoryKey, creation: Creation) {
    self.key = key
    self.creation = creation
  }
}

/// The generic merge of fields a build does not know is the typed merge of the build that
/// declares them: for every kind, after any exchange, a device of each build holds the same
/// bytes, whatever the order of the merges, and a newer device reading what an older one
/// relayed sees the merged values.
@Suite struct UnknownFieldPropertyTests {
  typealias Newer = ORMap<CategoryKey, NewerCategory>
  typealias Older = ORMap<CategoryKey, GroceryCategory>

  static let keys = ["produce", "dairy"].map { CategoryKey(rawValue: $0) }
  static let replicas: [ReplicaID] = ["a", "b", "c"]

  /// One step on one of three newer devices.
  enum Step: CustomStringConvertible {
    case create(device: Int, key: Int)
    case write(device: Int, key: Int, field: Int, value: Int64)
    case merge(from: Int, into: Int)

    var description: String {
      switch self {
      case .create(let device, let key): "device \(device) creates \(key)"
      case .write(let device, let key, let field, let value):
        "device \(device) writes field \(field) of \(key) = \(value)"
      case .merge(let from, let into): "device \(into) merges \(from)"
      }
    }
  }

  static func generate(_ random: inout SplitMix64) -> [Step] {
    (0..<random.int(in: 4...30)).map { _ in
      switch random.int(in: 0..<10) {
      case 0: .create(device: random.int(in: 0..<3), key: random.int(in: 0..<2))
      case 1...6:
        .write(
          device: random.int(in: 0..<3), key: random.int(in: 0..<2),
          field: random.int(in: 0..<5), value: random.draw(in: 0...5))
      default: .merge(from: random.int(in: 0..<3), into: random.int(in: 0..<3))
      }
    }
  }

  /// Runs the steps. Device 2 is of the older build: it writes only what that build declares
  /// and skips the rest. With `generic`, it runs that build's code on what it reads of the newer
  /// maps; without, the newer build's typed code does the same edits and merges in its place.
  static func run(_ steps: [Step], generic: Bool) -> [Newer] {
    let older = 2
    var maps = [Newer](repeating: Newer(), count: 3)
    var clocks = [UInt64](repeating: 1_000, count: 3)
    /// Runs `body` on device `device`'s map as the older build reads it, when it is that build.
    func asOlder(_ device: Int, _ body: (inout Older) -> Void) -> Bool {
      guard generic, device == older else { return false }
      var map = try! JSONReader.decode(Older.self, from: Self.bytes(maps[device]))
      body(&map)
      maps[device] = try! JSONReader.decode(Newer.self, from: Self.bytes(map))
      return true
    }
    for step in steps {
      switch step {
      case .create(let device, let key):
        let replica = replicas[device]
        clocks[device] += 1
        let creation = Creation(
          timestamp: HybridTimestamp(wallMilliseconds: clocks[device], replica: replica),
          member: RandomHousehold.owner)
        let done = asOlder(device) {
          $0.update(
            keys[key], by: replica, default: GroceryCategory(key: keys[key], creation: creation)
          ) { _ in }
        }
        if !done {
          maps[device].update(
            keys[key], by: replica, default: NewerCategory(key: keys[key], creation: creation)
          ) { _ in }
        }
      case .write(let device, let key, let field, let value):
        let replica = replicas[device]
        guard maps[device][keys[key]] != nil, device != older || field == 4 else { continue }
        clocks[device] += 1
        let stamp = HybridTimestamp(wallMilliseconds: clocks[device], replica: replica)
        let done = asOlder(device) {
          $0.update(keys[key], by: replica, default: .blank) {
            $0.name.assign("name \(value)", at: stamp)
          }
        }
        if done { continue }
        maps[device].update(keys[key], by: replica, default: .blank) { record in
          switch field {
          case 0: record.color.assign(value == 0 ? nil : "color \(value)", at: stamp)
          case 1: record.cooks.write("cook \(value)", at: stamp)
          case 2: record.lastStocked.raise(to: value * 1_000)
          case 3: record.pins.increment(by: UInt64(value) + 1, replica: replica)
          default: record.name.assign("name \(value)", at: stamp)
          }
        }
      case .merge(let from, let into):
        let incoming = maps[from]
        let done = asOlder(into) {
          $0.merge(try! JSONReader.decode(Older.self, from: Self.bytes(incoming)))
        }
        if !done { maps[into].merge(incoming) }
      }
    }
    return maps
  }

  static func bytes(_ value: some JSONWritable) -> [UInt8] { JSONWriter.encode(value) }

  /// What a newer build shows of a category: every field's value.
  struct Shown: Equatable {
    let color: String?
    let cooks: [String]
    let lastStocked: Int64
    let name: String
    let order: Int64
    let pins: UInt64
    let creation: Creation

    init(_ record: NewerCategory) {
      color = record.color.value
      cooks = record.cooks.writes.map(\.value)
      lastStocked = record.lastStocked.value
      name = record.name.value
      order = record.order.value
      pins = record.pins.value
      creation = record.creation
    }
  }

  static func permutations(_ count: Int) -> [[Int]] {
    guard count > 1 else { return [Array(0..<count)] }
    return permutations(count - 1).flatMap { rest in
      (0...rest.count).map { position in
        var order = rest
        order.insert(count - 1, at: position)
        return order
      }
    }
  }

  @Test func anOlderBuildMergesUnknownFieldsAsTheNewerOneDoes() {
    let failure = checkProperty(
      "older builds merge unknown fields as their declaring build", iterations: 150,
      generate: Self.generate
    ) { steps in
      // The older device's edits and merges, made by the older build on what it reads, leave
      // every device showing what the newer build would have. Not byte for byte: a newer
      // build's write of a record grows its multi-value fields' contexts to all it has seen
      // (ADR 0011), and an older build can do that only for a field it has received.
      let typed = Self.run(steps, generic: false)
      let mixed = Self.run(steps, generic: true)
      for device in 0..<3 {
        for key in Self.keys
        where typed[device][key].map(Shown.init) != mixed[device][key].map(Shown.init) {
          return "device \(device) shows another \(key) when device 2 runs the older build"
        }
      }
      let relayed: [Older]
      do {
        relayed = try typed.map { try JSONReader.decode(Older.self, from: Self.bytes($0)) }
      } catch {
        return "an older build refused a newer one's map: \(error)"
      }
      for (typed, relayed) in zip(typed, relayed) where Self.bytes(typed) != Self.bytes(relayed) {
        return "read and written back, a map changed"
      }
      for order in Self.permutations(3) {
        var newer = Newer()
        var older = Older()
        for index in order {
          newer.merge(typed[index])
          older.merge(relayed[index])
        }
        guard Self.bytes(older) == Self.bytes(newer) else {
          return "merged in order \(order), the older build's bytes differ from the newer's"
        }
        // What each shows of a record is the merge of its writes: one record, the same bytes.
        for key in Self.keys where older[key].map(Self.bytes) != newer[key].map(Self.bytes) {
          return "merged in order \(order), the records shown for \(key) differ"
        }
        guard let read = try? JSONReader.decode(Newer.self, from: Self.bytes(older)),
          read == newer
        else { return "the newer build does not read what the older one merged" }
      }
      return nil
    }
    #expect(failure == nil, "\(failure.map(String.init(describing:)) ?? "")")
  }

  /// The generators reach every kind, merged concurrently: otherwise the property above says
  /// little.
  @Test func theStepsReachEveryKind() {
    var reached: Set<String> = []
    for seed in 0..<UInt64(40) {
      var random = SplitMix64(seed: seed)
      let text = String(
        decoding: Self.bytes(Self.run(Self.generate(&random), generic: true)[0]), as: UTF8.self)
      for marker in ["color:lww", "cooks:mv", "lastStocked:max", "pins:counter"]
      where text.contains("\"\(marker)\"") {
        reached.insert(marker)
      }
    }
    #expect(reached.count == 4)
  }
}

/// A peer may send a record with any number of unknown fields, in any order. They are read
/// into key order and written back in it; a key twice is refused; an older build's edit of
/// the record commits each of them over the previous record's in one pass. (With 20,000
/// multi-value fields in descending order, reading by insertion and committing by search took
/// time quadratic in them.)
@Suite struct ManyUnknownFieldsTests {
  static func category(fields count: Int, duplicate: Bool = false) -> [UInt8] {
    let stamp = #"[1733788800002,0,"phone"]"#
    var members = (0..<count).reversed().map { index in
      #""f\#(index):mv":{"context":{"phone":[[1,1]]},"writes":[[["phone",1],[\#(stamp),\#(index)]]]}"#
    }
    if duplicate { members.append(members[0]) }
    members.append(
      #""creation":{"member":"00000000-0000-0000-0000-0000000000A1","timestamp":\#(stamp)}"#)
    members.append(#""key":"produce""#)
    return Array(("{" + members.joined(separator: ",") + "}").utf8)
  }

  @Test func manyUnknownFieldsInAnyOrderAreKeptInKeyOrderAndCommitted() throws {
    let read = try JSONReader.decode(GroceryCategory.self, from: Self.category(fields: 20_000))
    let keys = read.unknownFields.keys
    #expect(keys.count == 20_000)
    #expect(keys == keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    var map = ORMap<CategoryKey, GroceryCategory>()
    map.set(read.key, to: read, by: "phone")
    map.update(read.key, by: "tablet", default: read) {
      $0.order.assign(
        3, at: HybridTimestamp(wallMilliseconds: 1_733_788_800_010, replica: "tablet"))
    }
    let edited = try #require(map[read.key])
    #expect(edited.unknownFields.keys == keys)
    let again = try JSONReader.decode(GroceryCategory.self, from: JSONWriter.encode(edited))
    #expect(again == edited)
    #expect(throws: JSONError.self) {
      _ = try JSONReader.decode(
        GroceryCategory.self, from: Self.category(fields: 3, duplicate: true))
    }
  }
}
