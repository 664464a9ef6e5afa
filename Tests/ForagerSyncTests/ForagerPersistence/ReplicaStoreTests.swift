import CRDTTestSupport
import ForagerSync
import ForagerTestSupport
import Foundation
import SemanticCRDT
import SemanticCRDTJSON
import SharedSupport
import Testing

@testable import ForagerPersistence

@Suite struct ReplicaStoreTests {
  static let member = RandomHousehold.owner
  static let household = RandomHousehold.household

  static func savedFile(in folder: TemporaryFolder, seed: UInt64 = 5) throws -> (
    URL, HouseholdReplica
  ) {
    let file = folder.file("phone.json")
    let replica = RandomHousehold.replicas(seed: seed)[0]
    try ReplicaStore.save(to: file, replica)
    return (file, replica)
  }

  static func replacing(_ target: String, with replacement: String, in bytes: [UInt8]) -> [UInt8] {
    let text = String(decoding: bytes, as: UTF8.self)
    precondition(text.contains(target), "fixture lacks \(target)")
    return Array(text.replacingOccurrences(of: target, with: replacement).utf8)
  }

  // MARK: Round trip

  /// Every way a replica starts (created, joining, opened from its file, kept at an older
  /// build's normalizer) keeps the index of its writes that makes `delta(since:)` cost what it
  /// holds (ADR 0026), and keeps it exact through edits and merges; a state decoded from the
  /// file, as files and messages give them, keeps none.
  @Test func everyWayAReplicaStartsKeepsTheIndexOfItsWrites() throws {
    let folder = TemporaryFolder()
    let (file, saved) = try Self.savedFile(in: folder)
    let decoded = try JSONReader.decode(HouseholdState.self, from: JSONWriter.encode(saved.state))
    #expect(!decoded.keepsLiveDotIndex)
    var store = ReplicaStore(fileURL: file)
    var started = [
      ("created", saved),
      ("joining", HouseholdReplica(joining: Self.household, member: Self.member)),
      ("opened", try store.open(household: Self.household, member: Self.member)),
      (
        "older build",
        HouseholdReplica(
          olderBuild: decoded, member: Self.member,
          clock: HybridClock(replica: "laptop", wallClock: .fixed(1_733_788_900_000)))
      ),
    ]
    for index in started.indices {
      let name = started[index].0
      #expect(started[index].1.state.keepsLiveDotIndex, "\(name)")
      _ = try started[index].1.getOrCreateCategory(displayName: "Index \(index)")
      try started[index].1.merge(saved.state)
      #expect(started[index].1.state.keepsLiveDotIndex, "\(name)")
      #expect(started[index].1.state.invariantViolations() == [], "\(name)")
    }
  }

  @Test func savesAndOpensTheSameState() throws {
    let folder = TemporaryFolder()
    let (file, saved) = try Self.savedFile(in: folder)
    var store = ReplicaStore(fileURL: file)
    let opened = try store.open(household: Self.household, member: Self.member)
    #expect(opened.state == saved.state)
    #expect(opened.member == saved.member)
    #expect(opened.replicaID != saved.replicaID)
    let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["phone.json"])
  }

  @Test func aReopenedClockNeverGoesBack() throws {
    let folder = TemporaryFolder()
    let file = folder.file("phone.json")
    var store = ReplicaStore(fileURL: file)
    var replica = try store.open(
      household: Self.household, member: Self.member, wallClock: .fixed(5_000))
    _ = try replica.getOrCreateCategory(displayName: "Produce")
    try store.save(replica)
    // The wall clock is now behind what the file holds (the device's clock was set back).
    var reopened = try store.open(
      household: Self.household, member: Self.member, wallClock: .fixed(1_000))
    let renamed = try reopened.getOrCreateCategory(displayName: "Dairy").category
    #expect(renamed.createdAt.wallMilliseconds == 5_000)
    #expect(renamed.createdAt > replica.category(named: "Produce")!.createdAt)
  }

  @Test func aMissingFileIsAFirstLaunch() throws {
    let folder = TemporaryFolder()
    var store = ReplicaStore(fileURL: folder.file("new.json"))
    let replica = try store.open(household: Self.household, member: Self.member)
    #expect(replica.householdID == Self.household)
    #expect(replica.state.recordCount == 0)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
  }

  @Test func equalStatesGiveIdenticalFiles() throws {
    let replicas = RandomHousehold.replicas(seed: 77)
    var a = replicas[0]
    var b = replicas[1]
    try a.merge(b.state)
    try b.merge(a.state)
    var contentsA = ReplicaFileContents(a)
    let contentsB = ReplicaFileContents(b)
    contentsA.replica = contentsB.replica
    contentsA.clock = contentsB.clock
    #expect(ReplicaFileFormat.encode(contentsA) == ReplicaFileFormat.encode(contentsB))
  }

  // MARK: Every refusal leaves the file as it was

  struct BadFile: CustomTestStringConvertible, Sendable {
    let name: String
    let damage: @Sendable ([UInt8]) -> [UInt8]
    let expected: @Sendable (StoreError.Problem) -> Bool
    /// Whether `read()`, which inspects a file without opening it for a household, refuses too.
    var inspectionRefuses = true
    var testDescription: String { name }

    init(
      name: String, inspectionRefuses: Bool = true,
      damage: @escaping @Sendable ([UInt8]) -> [UInt8],
      expected: @escaping @Sendable (StoreError.Problem) -> Bool
    ) {
      self.name = name
      self.inspectionRefuses = inspectionRefuses
      self.damage = damage
      self.expected = expected
    }
  }

  /// The format this build writes, and how its files start.
  static let current = ReplicaFileFormat.current
  static let formatPrefix = "{\"format\":\(current),"

  static let badFiles: [BadFile] = [
    BadFile(name: "empty", damage: { _ in [] }) {
      $0 == .malformed(JSONError(.unexpectedEnd, at: 0))
    },
    BadFile(name: "truncated", damage: { Array($0.prefix($0.count / 2)) }) {
      if case .malformed(let error) = $0 { error.problem == .unexpectedEnd } else { false }
    },
    BadFile(name: "not JSON", damage: { _ in Array("PK\u{3}\u{4} zip".utf8) }) {
      $0 == .malformed(JSONError(.unexpectedByte(UInt8(ascii: "P"), expected: "an object"), at: 0))
    },
    BadFile(
      name: "one byte of the state changed",
      damage: { replacing("\"Ana\"", with: "\"Ann\"", in: $0) }
    ) {
      if case .checksumMismatch = $0 { true } else { false }
    },
    BadFile(
      name: "checksum changed",
      damage: { replacing("crc32:", with: "crc32:0", in: $0).dropLastDigit() }
    ) {
      if case .checksumMismatch = $0 { true } else { false }
    },
    BadFile(
      name: "newer format",
      damage: { replacing(Self.formatPrefix, with: "{\"format\":\(Self.current + 1),", in: $0) }
    ) {
      $0 == .newerFormat(found: Self.current + 1, supported: Self.current)
    },
    BadFile(
      name: "format zero", damage: { replacing(Self.formatPrefix, with: "{\"format\":0,", in: $0) }
    ) {
      $0 == .unknownFormat(0)
    },
    BadFile(
      name: "newer format, other shape",
      damage: { _ in Array(#"{"format":7,"chunks":[1,2]}"#.utf8) }
    ) {
      $0 == .newerFormat(found: 7, supported: Self.current)
    },
    BadFile(name: "no format", damage: { _ in Array(#"{"state":{}}"#.utf8) }) {
      $0 == .malformed(JSONError(.missingKey("format"), at: 0))
    },
    BadFile(
      name: "unknown top-level key",
      damage: { replacing(Self.formatPrefix, with: Self.formatPrefix + "\"x\":1,", in: $0) }
    ) {
      $0 == .malformed(JSONError(.unknownKey("x"), at: 16))
    },
    BadFile(name: "trailing garbage", damage: { $0 + Array("\n}".utf8) }) {
      if case .malformed(let error) = $0 { error.problem == .trailingData } else { false }
    },
    // Damaged content fails its checksum before it is parsed; invalid UTF-8 under a checksum
    // that holds (a writer's bug) is refused by the parse.
    BadFile(
      name: "invalid UTF-8",
      damage: {
        ReplicaFileBytes.restamped(replacing("Ana", with: "A\u{FFFD}a", in: $0).replacingFFFD())
      }
    ) {
      if case .invalidContent(let error) = $0 { error.problem == .invalidUTF8 } else { false }
    },
    BadFile(
      name: "invalid UTF-8 in the envelope",
      damage: { replacing("crc32:", with: "crc\u{FFFD}:", in: $0).replacingFFFD() }
    ) {
      if case .malformed(let error) = $0 { error.problem == .invalidUTF8 } else { false }
    },
    BadFile(
      name: "other household", inspectionRefuses: false,
      damage: {
        ReplicaFileBytes.restamped(
          replacing(
            RandomHousehold.household.uuid.uuidString, with: "00000000-0000-0000-0000-000000000001",
            in: $0))
      }
    ) {
      $0
        == .differentHousehold(
          expected: RandomHousehold.household,
          found: HouseholdID(uuid: UUID(uuidString: "00000000-0000-0000-0000-000000000001")!))
    },
    BadFile(
      name: "newer normalizer", inspectionRefuses: false,
      damage: {
        ReplicaFileBytes.restamped(
          replacing(
            "\"normalizer\":2", with: "\"normalizer\":9",
            in: replacing("\"normalizerVersion\":2", with: "\"normalizerVersion\":9", in: $0)))
      }
    ) {
      $0 == .newerNormalizer(found: NormalizerVersion(rawValue: 9), supported: .current)
    },
    BadFile(
      name: "envelope and state disagree",
      damage: {
        ReplicaFileBytes.restamped(replacing("\"normalizer\":2", with: "\"normalizer\":1", in: $0))
      }
    ) {
      if case .invalidContent(let error) = $0 {
        error.problem
          == .invalidValue("the envelope names normalizer v1 but the state is keyed by v2")
      } else {
        false
      }
    },
    BadFile(
      name: "a dot counter of 0",
      damage: {
        ReplicaFileBytes.restamped(replacing("[[\"phone\",1],", with: "[[\"phone\",0],", in: $0))
      }
    ) {
      if case .invalidContent(let error) = $0 {
        error.problem == .invalidValue("a dot counter is 0")
      } else {
        false
      }
    },
    BadFile(
      name: "duplicate key in the state",
      damage: {
        ReplicaFileBytes.restamped(
          replacing(
            "\"dissolved\":",
            with: "\"dissolved\":{\"timestamp\":[0,0,\"genesis\"],\"value\":false},\"dissolved\":",
            in: $0))
      }
    ) {
      if case .invalidContent(let error) = $0 {
        error.problem == .duplicateKey("dissolved")
      } else {
        false
      }
    },
    BadFile(
      name: "unknown field inside a record",
      damage: {
        ReplicaFileBytes.restamped(
          replacing("\"roleRegister\":", with: "\"nickname\":\"A\",\"roleRegister\":", in: $0))
      }
    ) {
      if case .invalidContent(let error) = $0 {
        error.problem == .unknownKey("nickname")
      } else {
        false
      }
    },
  ]

  @Test(arguments: badFiles)
  func refusesAndLeavesTheFileUnchanged(_ bad: BadFile) throws {
    let folder = TemporaryFolder()
    let (file, _) = try Self.savedFile(in: folder)
    let damaged = bad.damage(Array(try Data(contentsOf: file)))
    try Data(damaged).write(to: file)
    var store = ReplicaStore(fileURL: file)
    var attempts = [{ _ = try store.open(household: Self.household, member: Self.member) }]
    if bad.inspectionRefuses { attempts.append { _ = try store.read() } }
    for attempt in attempts {
      do {
        try attempt()
        Issue.record("\(bad.name): opened without an error")
      } catch let error as StoreError {
        #expect(bad.expected(error.problem), "\(bad.name): \(error)")
        #expect(error.file == file)
        #expect(error.description.hasPrefix(file.path))
      }
    }
    #expect(Array(try Data(contentsOf: file)) == damaged)
  }

  @Test func aFolderInPlaceOfTheFileIsUnreadable() throws {
    let folder = TemporaryFolder()
    let file = folder.file("phone.json")
    try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
    var store = ReplicaStore(fileURL: file)
    #expect {
      try store.open(household: Self.household, member: Self.member)
    } throws: { error in
      guard let error = error as? StoreError, case .unreadable = error.problem else { return false }
      return true
    }
  }

  @Test func aFailedSaveChangesNothing() throws {
    let folder = TemporaryFolder()
    let (file, replica) = try Self.savedFile(in: folder)
    let before = try Data(contentsOf: file)
    let missingFolder = folder.file("gone").appendingPathComponent("phone.json")
    #expect {
      try ReplicaStore.save(to: missingFolder, replica)
    } throws: { error in
      guard let error = error as? StoreError, case .writeFailed = error.problem else {
        return false
      }
      return true
    }
    #expect(try Data(contentsOf: file) == before)
  }

  // MARK: Forward compatibility and migration

  @Test func fieldsOfANewerBuildAreWrittenBack() throws {
    let folder = TemporaryFolder()
    let (file, _) = try Self.savedFile(in: folder)
    let unknown = #""routes":{"aisles":[1,2.5,"x"],"z":null}"#
    let newer = ReplicaFileBytes.adding(field: unknown, to: Array(try Data(contentsOf: file)))
    try Data(newer).write(to: file)
    var store = ReplicaStore(fileURL: file)
    var replica = try store.open(household: Self.household, member: Self.member)
    #expect(try store.read()?.carriedFieldNames == ["routes"])
    #expect(store.carriedFieldNames == ["routes"])
    _ = try replica.getOrCreateCategory(displayName: "Spices")
    try store.save(replica)
    let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
    #expect(text.contains(unknown + ","))
    #expect(try store.read()?.state == replica.state)

    // The fields stay with the store, beside the replica: the replica alone, saved through a
    // store that did not open the file, writes the envelope this build knows and nothing else.
    var elsewhere = ReplicaStore(fileURL: folder.file("copy.json"))
    try elsewhere.save(replica)
    #expect(try elsewhere.read()?.carriedFieldNames == [])
    #expect(try elsewhere.read()?.state == replica.state)
  }

  @Test func aFormat1FileIsMigrated() throws {
    let fixture = try #require(
      Bundle.module.url(
        forResource: "replica-format1", withExtension: "json", subdirectory: "Fixtures"))
    let expected = try FormatFixtures.state("seed11-state")
    let folder = TemporaryFolder()
    let file = folder.file("old.json")
    try FileManager.default.copyItem(at: fixture, to: file)
    var store = ReplicaStore(fileURL: file)
    let old = try #require(try store.read())
    #expect(old.format == 1)
    #expect(old.state == expected)
    #expect(old.member == RandomHousehold.owner)
    var replica = try store.open(household: Self.household, member: Self.member)
    #expect(
      replica.clock.latest.map { $0.wallMilliseconds }
        == expected.greatestTimestamp?.wallMilliseconds)
    _ = try replica.getOrCreateCategory(displayName: "Migrated")
    try store.save(replica)
    let migrated = try #require(try store.read())
    #expect(migrated.format == ReplicaFileFormat.current)
    #expect(migrated.state == replica.state)
  }

  // MARK: Amnesia

  /// A device restored from an old backup writes again. Under its old replica id it would
  /// reissue dots its peers have seen, and they would drop its new writes; under a fresh
  /// incarnation nothing is lost.
  @Test func aRestoredBackupLosesNothing() throws {
    let folder = TemporaryFolder()
    let file = folder.file("phone.json")
    let backup = folder.file("backup.json")
    var store = ReplicaStore(fileURL: file)
    var phone = try store.open(household: Self.household, member: Self.member)
    _ = try phone.getOrCreateCategory(displayName: "Produce")
    try store.save(phone)
    try FileManager.default.copyItem(at: file, to: backup)

    var later = try store.open(household: Self.household, member: Self.member)
    _ = try later.getOrCreateCategory(displayName: "Dairy")
    try later.recordUse(ofIngredient: "milk")
    try store.save(later)

    var backupStore = ReplicaStore(fileURL: backup)
    var restored = try backupStore.open(household: Self.household, member: Self.member)
    _ = try restored.getOrCreateCategory(displayName: "Bakery")
    try restored.recordUse(ofIngredient: "milk")

    try restored.merge(later.state)
    try later.merge(restored.state)
    for replica in [restored, later] {
      #expect(Set(replica.categories().map(\.displayName)) == ["Produce", "Dairy", "Bakery"])
      #expect(replica.ingredient(named: "milk")?.usageCount == 2)
    }
    #expect(restored.state == later.state)
  }

  /// What an incarnation costs: a session that writes adds one causal-context entry per map it
  /// writes to (docs/decisions/0006), and one id to the file's list of the device's earlier
  /// incarnations (docs/decisions/0029). Measured against the same writes made in one session.
  @Test func anIncarnationCostsOneContextEntryPerMapWritten() throws {
    let folder = TemporaryFolder()
    let sessions = 100
    func fileSize(sessions count: Int, name: String) throws -> Int {
      var store = ReplicaStore(fileURL: folder.file(name))
      var replica = try store.open(household: Self.household, member: Self.member)
      for session in 0..<sessions {
        if count > 1 { replica = try store.open(household: Self.household, member: Self.member) }
        _ = try replica.getOrCreateCategory(displayName: "Aisle \(session)")
        try store.save(replica)
      }
      return try Data(contentsOf: folder.file(name)).count
    }
    let oneSession = try fileSize(sessions: 1, name: "one.json")
    let manySessions = try fileSize(sessions: sessions, name: "many.json")
    let perIncarnation = Double(manySessions - oneSession) / Double(sessions - 1)
    // `,"abcdefghijklm":[[1,1]]` is 24 bytes: one context entry; `,"abcdefghijklm"` is 16: one
    // earlier incarnation. Counters and logical clocks stay shorter across many sessions
    // (measured 23.05 + 16 = 39.2), so allow a byte either way plus slack.
    #expect((36...44).contains(perIncarnation), "\(perIncarnation) bytes per incarnation")
  }

  /// The same story with the old replica id reused: the loss the incarnation prevents is real.
  @Test func reusingTheOldReplicaIDWouldLoseWrites() throws {
    let folder = TemporaryFolder()
    let file = folder.file("phone.json")
    var store = ReplicaStore(fileURL: file)
    func reopenUnderOldID(_ url: URL) throws -> HouseholdReplica {
      let contents = try #require(try ReplicaStore(fileURL: url).read())
      return HouseholdReplica(
        state: contents.state, member: contents.member,
        clock: HybridClock(replica: contents.replica))
    }
    var phone = try store.open(household: Self.household, member: Self.member)
    _ = try phone.getOrCreateCategory(displayName: "Produce")
    try store.save(phone)
    let backup = try Data(contentsOf: file)
    var later = try reopenUnderOldID(file)
    _ = try later.getOrCreateCategory(displayName: "Dairy")
    try Data(backup).write(to: file)
    var restored = try reopenUnderOldID(file)
    _ = try restored.getOrCreateCategory(displayName: "Bakery")
    try restored.merge(later.state)
    #expect(Set(restored.categories().map(\.displayName)) != ["Produce", "Dairy", "Bakery"])
  }
}

extension [UInt8] {
  /// Drops the last hex digit of the checksum label made one digit longer by a test.
  fileprivate func dropLastDigit() -> [UInt8] {
    let text = String(decoding: self, as: UTF8.self)
    let start = text.range(of: "crc32:")!.upperBound
    let end = text.index(start, offsetBy: 9)
    return Array((text[..<text.index(before: end)] + text[end...]).utf8)
  }

  /// Replaces the UTF-8 of U+FFFD with a lone continuation byte: invalid UTF-8.
  fileprivate func replacingFFFD() -> [UInt8] {
    var result: [UInt8] = []
    var index = 0
    while index < count {
      if index + 2 < count, self[index] == 0xEF, self[index + 1] == 0xBF, self[index + 2] == 0xBD {
        result.append(0x80)
        index += 3
      } else {
        result.append(self[index])
        index += 1
      }
    }
    return result
  }
}
