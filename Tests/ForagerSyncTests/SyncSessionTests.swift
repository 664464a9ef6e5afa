import ForagerSync
import Foundation
import SemanticCRDT
import SemanticCRDTJSON
import Testing

@Suite struct SyncSessionTests {
  static let household = HouseholdID(
    uuid: UUID(uuidString: "5E55100E-0000-4000-8000-000000000001")!)
  static let sam = MemberID(uuid: UUID(uuidString: "5E55100E-0000-4000-8000-000000000002")!)

  static func pair() -> (HouseholdReplica, HouseholdReplica) {
    (
      HouseholdReplica.create(
        household: household, owner: sam, ownerName: "Sam", replica: "phone",
        wallClock: .fixed(1_000)),
      HouseholdReplica(joining: household, member: sam, replica: "tablet", wallClock: .fixed(1_000))
    )
  }

  @Test func theFirstMessageIsTheFullStateAndLaterOnesAreDeltasForTheIncarnationHeard() throws {
    var (phone, tablet) = Self.pair()
    var phoneSide = SyncSession()
    var tabletSide = SyncSession()
    _ = try phone.getOrCreateCategory(displayName: "Produce")

    let first = phoneSide.message(from: phone)
    #expect(!first.isDelta && first.state == phone.state && first.sender == "phone")
    try tabletSide.receive(first, into: &tablet)
    #expect(tabletSide.peer == PeerVersion(replica: "phone", version: phone.state.version))

    // The tablet has heard the phone: it answers with a delta addressed to that incarnation.
    _ = try tablet.getOrCreateCategory(displayName: "Dairy")
    let answer = tabletSide.message(from: tablet)
    #expect(answer.recipient == "phone")
    #expect(answer.state.categories.keys.map(\.rawValue) == ["dairy"])
    try phoneSide.receive(answer, into: &phone)
    #expect(phone.state == tablet.state)

    // Equal states: the messages carry nothing but the version.
    let nothing = phoneSide.message(from: phone)
    #expect(nothing.isDelta && !nothing.carriesChanges)
    let report = try tabletSide.receive(nothing, into: &tablet)
    #expect(report?.changes.isEmpty == true)
  }

  /// The scenario of docs/decisions/0007 through sessions: the tablet comes back from a backup
  /// taken before it received a rename, as a new incarnation. A delta the phone computed for
  /// the tablet's earlier self says the name it holds was superseded and leaves out the write
  /// that superseded it; merged, it would delete the category. The session discards it, and
  /// the phone, once it hears the new incarnation, sends it what it lacks.
  @Test func aDeltaForAnEarlierIncarnationIsDiscarded() throws {
    var (phone, tablet) = Self.pair()
    var phoneSide = SyncSession()
    var tabletSide = SyncSession()
    let key = try phone.getOrCreateCategory(displayName: "Lentils").category.key
    try tabletSide.receive(phoneSide.message(from: phone), into: &tablet)
    try phoneSide.receive(tabletSide.message(from: tablet), into: &phone)
    let backup = tablet.state

    try phone.renameCategory(key, to: "lentils")  // the same key: a new write supersedes the old
    try tabletSide.receive(phoneSide.message(from: phone), into: &tablet)
    try phoneSide.receive(tabletSide.message(from: tablet), into: &phone)
    _ = try phone.getOrCreateCategory(displayName: "Rice")

    // The tablet is restored from its backup: a new incarnation, with a new session.
    var restored = HouseholdReplica(
      state: backup, member: Self.sam,
      clock: HybridClock(replica: "tablet-2", wallClock: .fixed(2_000)))
    var restoredSide = SyncSession()
    let stale = phoneSide.message(from: phone)
    #expect(stale.recipient == "tablet")
    var trusting = restored
    try trusting.merge(stale.state)
    #expect(trusting.state.categories[key] == nil, "the scenario no longer loses the record")

    #expect(try restoredSide.receive(stale, into: &restored) == nil)
    #expect(restored.state == backup)
    // What the restored tablet says teaches the phone its new incarnation.
    try phoneSide.receive(restoredSide.message(from: restored), into: &phone)
    let fresh = phoneSide.message(from: phone)
    #expect(fresh.recipient == "tablet-2")
    try restoredSide.receive(fresh, into: &restored)
    #expect(restored.state.categories[key]?.displayName == "lentils")
    #expect(restored.category(named: "Rice") != nil)
  }

  @Test func anotherHouseholdsMessageIsRefusedAndTeachesNothing() throws {
    var (phone, _) = Self.pair()
    var session = SyncSession()
    let stranger = HouseholdReplica.create(owner: MemberID(), ownerName: "Kim", replica: "kim")
    #expect(
      throws: HouseholdError.differentHousehold(local: Self.household, remote: stranger.householdID)
    ) {
      try session.receive(SyncSession().message(from: stranger), into: &phone)
    }
    #expect(session.peer == nil)
  }

  // MARK: Bytes

  @Test func aMessageReadsBackFromItsBytes() throws {
    var (phone, tablet) = Self.pair()
    _ = try phone.getOrCreateCategory(displayName: "Produce")
    _ = try tablet.getOrCreateCategory(displayName: "Bakery")
    let full = SyncSession().message(from: phone)
    #expect(try SyncMessage(decoding: full.encoded()) == full)
    var session = SyncSession()
    try session.receive(SyncSession().message(from: tablet), into: &phone)
    _ = try phone.getOrCreateCategory(displayName: "Dairy")
    let delta = session.message(from: phone)
    #expect(delta.isDelta)
    #expect(try SyncMessage(decoding: delta.encoded()) == delta)
  }

  @Test func bytesThatAreNotAMessageAreRefused() throws {
    let (phone, _) = Self.pair()
    let bytes = SyncSession().message(from: phone).encoded()
    let text = String(decoding: bytes, as: UTF8.self)
    func refusal(_ text: String, maximumSize: Int = SyncMessage.defaultMaximumSize)
      -> SyncMessageError?
    {
      do {
        _ = try SyncMessage(decoding: Array(text.utf8), maximumSize: maximumSize)
        return nil
      } catch {
        return error
      }
    }
    #expect(
      refusal(text.replacingOccurrences(of: #""format":1"#, with: #""format":2"#))
        == .newerFormat(found: 2, supported: 1))
    #expect(
      refusal(text.replacingOccurrences(of: #""format":1"#, with: #""format":0"#))
        == .unknownFormat(0))
    #expect(
      refusal(text, maximumSize: bytes.count - 1)
        == .tooLarge(size: bytes.count, limit: bytes.count - 1))
    for broken in [
      String(text.dropLast(7)),  // truncated
      text.replacingOccurrences(of: #""sender":"phone""#, with: #""sender":null"#),
      text.replacingOccurrences(of: #""sender":"phone""#, with: #""sender":"""#),
      text.replacingOccurrences(of: #""recipient":null,"#, with: ""),
      text + "{}",
    ] {
      guard case .malformed = refusal(broken) else {
        Issue.record("not refused as malformed: \(broken.prefix(80))")
        continue
      }
    }
  }
}
