import ForagerSync
import ForagerTestSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Files that are not what they seem: reading them fails at once with a typed error and
/// changes nothing; it never blocks, and never reads more than the limit.
@Suite("Hostile files")
struct HostileFileTests {
  /// A FIFO named like a replica blocked an ordinary open until a writer came: forever, in a
  /// sync folder. It is refused without blocking, and so is a symlink to one.
  ///
  /// The limit counts from when the test is scheduled, not when its body runs: on two cores
  /// the long synchronous fuzzers can hold both threads of the test pool for minutes first. Ten
  /// minutes is past any default run, and a FIFO that blocks blocks forever.
  @Test(.timeLimit(.minutes(10)))
  func aFIFOIsRefusedWithoutBlocking() throws {
    let folder = TemporaryFolder()
    let fifo = folder.file("peer.forager.json")
    #expect(mkfifo(fifo.path, 0o600) == 0)
    let link = folder.file("link.forager.json")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: fifo)
    for url in [fifo, link] {
      #expect {
        try ReplicaStore(fileURL: url).read()
      } throws: { error in
        guard let error = error as? StoreError, case .unreadable(let reason) = error.problem
        else { return false }
        return reason.contains("not a regular file")
      }
    }
  }

  @Test func aFileOverTheSizeLimitIsRefusedBeforeItIsRead() throws {
    let folder = TemporaryFolder()
    let file = folder.file("big.forager.json")
    try Data(repeating: UInt8(ascii: " "), count: 4_096).write(to: file)
    let store = ReplicaStore(fileURL: file, maximumFileSize: 4_095)
    #expect(throws: StoreError(file: file, problem: .tooLarge(size: 4_096, limit: 4_095))) {
      try store.read()
    }
    #expect(
      "\(StoreError(file: file, problem: .tooLarge(size: 4_096, limit: 4_095)))".contains(
        "holds 4096 bytes, more than the 4095 a replica file may hold"))
    #expect(ReplicaStore.defaultMaximumFileSize == 256 << 20)
  }

  /// The skew bound held for merges but not for a replica's own file (nor the command line's
  /// first input): a file stamped a century ahead was opened, and froze last-writer-wins for
  /// every device it reached.
  @Test func aFileStampedFarAheadIsRefusedWhenOpened() throws {
    let folder = TemporaryFolder()
    let file = folder.file("ahead.forager.json")
    let household = HouseholdID()
    let ana = MemberID()
    let century: UInt64 = 100 * 365 * 24 * 3_600 * 1_000
    let now: UInt64 = 1_767_571_200_000
    let ahead = HouseholdReplica.create(
      household: household, owner: ana, ownerName: "Ana", replica: "phone",
      wallClock: .fixed(now + century))
    try ReplicaStore.save(to: file, ahead)
    let before = try Data(contentsOf: file)
    var store = ReplicaStore(fileURL: file)
    #expect {
      try store.open(household: household, member: ana, wallClock: .fixed(now))
    } throws: { error in
      guard let error = error as? StoreError, case .clockSkew = error.problem else { return false }
      return "\(error)".contains("stamped too far ahead")
    }
    #expect(try Data(contentsOf: file) == before)
    // Within the bound it opens.
    _ = try store.open(household: household, member: ana, wallClock: .fixed(now + century))
  }

  /// A household of `ana`'s made at `now`, and the same household after a device whose clock
  /// runs a century ahead added one category to it.
  static func householdWithOneRecordFarAhead(
    _ household: HouseholdID, _ ana: MemberID, now: UInt64
  ) throws -> (phone: HouseholdReplica, ahead: HouseholdState) {
    let century: UInt64 = 100 * 365 * 24 * 3_600 * 1_000
    let phone = HouseholdReplica.create(
      household: household, owner: ana, ownerName: "Ana", replica: "phone",
      wallClock: .fixed(now))
    var ahead = HouseholdReplica(
      joining: household, member: ana, replica: "ahead", wallClock: .fixed(now + century))
    try ahead.merge(phone.state)
    try ahead.getOrCreateCategory(displayName: "Produce")
    return (phone, ahead.state)
  }

  /// Opening finds the state's greatest stamp as the file is read, not by a second pass: a
  /// file whose envelope clock is honest and whose one record is stamped a century ahead is
  /// refused all the same.
  @Test func aFileWithOneRecordStampedFarAheadIsRefusedWhenOpened() throws {
    let folder = TemporaryFolder()
    let file = folder.file("one-ahead.forager.json")
    let (household, ana, now) = (HouseholdID(), MemberID(), UInt64(1_767_571_200_000))
    let (phone, ahead) = try Self.householdWithOneRecordFarAhead(household, ana, now: now)
    var contents = ReplicaFileContents(phone)
    contents.state = ahead
    #expect(contents.clock?.wallMilliseconds == now)
    try Data(ReplicaFileFormat.encode(contents)).write(to: file)
    var store = ReplicaStore(fileURL: file)
    #expect {
      try store.open(household: household, member: ana, wallClock: .fixed(now))
    } throws: { error in
      guard let error = error as? StoreError, case .clockSkew = error.problem else { return false }
      return true
    }
  }

  /// Contents read from a file and then given another state are checked on the state they
  /// hold, not on the stamp found when the first was read.
  @Test func contentsGivenAnotherStateAreCheckedOnIt() throws {
    let folder = TemporaryFolder()
    let file = folder.file("phone.forager.json")
    let (household, ana, now) = (HouseholdID(), MemberID(), UInt64(1_767_571_200_000))
    let (phone, ahead) = try Self.householdWithOneRecordFarAhead(household, ana, now: now)
    try ReplicaStore.save(to: file, phone)
    var store = ReplicaStore(fileURL: file)
    var contents = try #require(try store.read())
    contents.state = ahead
    #expect {
      try store.open(
        contents, file: file, household: household, member: ana, wallClock: .fixed(now),
        incarnation: "phone-2")
    } throws: { error in
      guard let error = error as? StoreError, case .clockSkew = error.problem else { return false }
      return true
    }
  }
}

@Suite("Symlinked replica files")
struct SymlinkedReplicaTests {
  /// Saving through a symlink replaced the link with a regular file, so the file the person
  /// kept elsewhere silently stopped changing.
  @Test func savingThroughASymlinkKeepsTheLinkAndUpdatesItsTarget() throws {
    let folder = TemporaryFolder()
    let target = folder.file("elsewhere.forager.json")
    let link = folder.file("phone.forager.json")
    let household = HouseholdID()
    let ana = MemberID()
    var phone = HouseholdReplica.create(
      household: household, owner: ana, ownerName: "Ana", replica: "phone")
    try ReplicaStore.save(to: target, phone)
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
    try phone.getOrCreateCategory(displayName: "Spices")
    var store = ReplicaStore(fileURL: link)
    let lock = try store.lock()
    #expect(throws: StoreError(file: target, problem: .locked)) {
      try ReplicaStore(fileURL: target).lock()
    }
    try store.save(phone)
    withExtendedLifetime(lock) {}
    let attributes = try FileManager.default.attributesOfItem(atPath: link.path)
    #expect(attributes[.type] as? FileAttributeType == .typeSymbolicLink)
    #expect(try ReplicaStore(fileURL: target).read()?.state == phone.state)
  }
}
