import ForagerTestSupport
import Foundation
import SemanticCRDTJSON
import SharedSupport
import Testing

@testable import ForagerModel
@testable import ForagerPersistence
@testable import ForagerWire

/// Nothing a device writes or reads depends on the width of `Int`, which is 32 bits on an Apple
/// Watch of watchOS 9–11 (arm64_32): a field read as `Int` there refuses a 64-bit peer's value,
/// and arithmetic on it traps. Simulators are 64-bit, so only these checks can show it before a
/// watch does.
@Suite struct FixedWidthWireTests {
  /// The platform-width integers; a field holding one of them is a defect.
  static func isPlatformWidth(_ value: Any) -> Bool {
    let type = type(of: value)
    return type == Int.self || type == UInt.self
  }

  /// The paths under `value` of every stored platform-width integer, found by reflection.
  static func platformWidthFields(
    of value: Any, at path: String, skipping skipped: Set<String> = [], depth: Int = 0
  ) -> [String] {
    if isPlatformWidth(value) { return [path] }
    guard depth < 12 else { return [] }
    return Mirror(reflecting: value).children.flatMap { child -> [String] in
      let label = child.label ?? "?"
      if skipped.contains(label) { return [] }
      return platformWidthFields(
        of: child.value, at: "\(path).\(label)", skipping: skipped, depth: depth + 1)
    }
  }

  /// Reads the record types of every map from a household that has records in each.
  struct RecordFields: HouseholdMapVisitor {
    let state: HouseholdState
    var recordsSeen: [String: Int] = [:]
    var offenders: [String] = []

    mutating func visit<Record: MappedRecord>(_ map: HouseholdMap<Record>) {
      var seen = 0
      var found: [String] = []
      state[keyPath: map.records].forEachBoxedValue { _, record in
        seen += 1
        found += FixedWidthWireTests.platformWidthFields(of: record.value, at: map.singular)
      }
      recordsSeen[map.plural] = seen
      offenders += found
    }
  }

  @Test func noRecordFieldIsAPlatformWidthInteger() {
    // The first seed whose household holds records in every map.
    var fields = RecordFields(state: HouseholdState(householdID: RandomHousehold.household))
    for seed in UInt64(37)..<60 {
      fields = RecordFields(state: RandomHousehold.state(seed: seed, operations: 400))
      HouseholdState.forEachMap(&fields, carrying: [])
      if fields.recordsSeen.values.allSatisfy({ $0 > 0 }) { break }
    }
    // Not vacuous: every map of the model held records.
    #expect(fields.recordsSeen.count >= 7 && fields.recordsSeen.values.allSatisfy { $0 > 0 })
    #expect(Set(fields.offenders).sorted() == [])
  }

  @Test func noEnvelopeOrMessageFieldIsAPlatformWidthInteger() throws {
    var replica = HouseholdReplica.create(owner: MemberID(), ownerName: "Sam", replica: "a")
    _ = try replica.getOrCreateCategory(displayName: "Produce")
    let contents = ReplicaFileContents(replica)
    let removal = RemovedRecords(id: 1, removedAtMilliseconds: 2, records: replica.state)
    let message = SyncSession.fresh(from: &replica)
    let offenders =
      Self.platformWidthFields(
        of: contents, at: "file", skipping: ["state", "byteCount", "greatestTimestampRead"])
      + Self.platformWidthFields(of: removal, at: "removal", skipping: ["records"])
      + Self.platformWidthFields(of: message, at: "message", skipping: ["state"])
      + Self.platformWidthFields(of: NormalizerVersion.current, at: "normalizer")
    #expect(offenders == [])
  }

  /// Reading a value as `Int` does not compile: neither `Int` nor `UInt` is readable, so no
  /// codable type (`LWWRegister<Int>`, say) can hold one. Adding the conformance back fails here.
  @Test func platformWidthIntegersCannotBeRead() {
    func isReadable(_ type: Any.Type) -> Bool { type is any JSONReadable.Type }
    #expect(!isReadable(Int.self) && !isReadable(UInt.self))
    #expect(isReadable(Int64.self) && isReadable(UInt64.self) && isReadable(UInt32.self))
  }

  /// A kept removal with an id a 64-bit device minted (milliseconds since 1970) reads, and a
  /// forged greatest id makes the next removal number them again instead of overflowing.
  @Test func removalIDsAre64BitAndNeverOverflow() throws {
    var replica = HouseholdReplica.create(owner: MemberID(), ownerName: "Sam", replica: "a")
    _ = try replica.getOrCreateCategory(displayName: "Produce")
    replica.removals = [
      RemovedRecords(id: 1_795_800_000_000, removedAtMilliseconds: 1, records: replica.state),
      RemovedRecords(id: .max, removedAtMilliseconds: 2, records: replica.state),
    ]
    let bytes = JSONWriter.encode(replica.removals[1])
    let read = try JSONReader.decode(RemovedRecords.self, from: bytes)
    #expect(read.id == .max)
    replica.keep(replica.state, policy: MergePolicy(keepsRemovedRecordsFor: .seconds(1e12)))
    #expect(replica.removals.map(\.id).dropLast() == [1, 2])
    #expect(replica.removals.last!.id > 2)
  }

  /// The seeded generator draws in 64 bits. The standard library draws an `Int` in `Int`'s
  /// width: its 32-bit draws (what `Int.random(in:using:)` does on a watch, played here by
  /// `Int32`) differ from its 64-bit ones, so a seed would replay differently there. Ours equal
  /// the 64-bit draws whatever the width asked for.
  @Test func seededDrawsDoNotDependOnIntsWidth() {
    var differs = 0
    for seed in UInt64(1)...200 {
      for bound in [2, 3, 7, 10, 97, 1000, 65_537] {
        var ours = SplitMix64(seed: seed)
        var wide = SplitMix64(seed: seed)
        var narrow = SplitMix64(seed: seed)
        let draw = ours.int(in: 0..<bound)
        #expect(draw == Int(Int64.random(in: 0..<Int64(bound), using: &wide)))
        if Int32.random(in: 0..<Int32(bound), using: &narrow) != Int32(draw) { differs += 1 }
      }
      var shuffling = SplitMix64(seed: seed)
      var stdlib = SplitMix64(seed: seed)
      #expect(shuffling.shuffled(0..<20) == (0..<20).shuffled(using: &stdlib))
    }
    // The hazard is real: a 32-bit draw is another number for most seeds.
    #expect(differs > 700)
  }

  /// No seeded generator in the package calls the standard library's width-dependent draws.
  @Test func seededGeneratorsUseTheFixedWidthDraws() throws {
    let root = packageRoot
    let pattern = try Regex(
      #"\b(Int|UInt|Int32|UInt32)\.random\(|randomElement\(using|shuffled?\(using"#)
    var offenders: [String] = []
    var scanned = 0
    for folder in ["Sources", "Tests", "Benchmarks"] {
      let base = root.appendingPathComponent(folder)
      guard let files = FileManager.default.enumerator(atPath: base.path) else { continue }
      for case let path as String in files where path.hasSuffix(".swift") {
        let text = try String(contentsOf: base.appendingPathComponent(path), encoding: .utf8)
        scanned += 1
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false)
          .enumerated()
        where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//")
          && !line.contains("FixedWidthWireTests")
          && line.contains(pattern) && !path.hasSuffix("FixedWidthWireTests.swift")
        {
          offenders.append("\(folder)/\(path):\(number + 1)")
        }
      }
    }
    #expect(scanned > 100)
    #expect(offenders == [])
  }
}
