import ForagerSync
import ForagerTestSupport
import SemanticCRDT
import Testing

/// Sessions that announce their replica's version instead of sending its whole state
/// (docs/decisions/0043).
@Suite("Announced versions")
struct AnnouncementTests {
  static func pair() -> (HouseholdReplica, HouseholdReplica) {
    var (phone, tablet) = SyncSessionTests.pair()
    _ = try! phone.getOrCreateCategory(displayName: "Produce")
    _ = try! tablet.getOrCreateCategory(displayName: "Bakery")
    return (phone, tablet)
  }

  /// Two sessions that announce: each opens with its version and answers the other's with what
  /// it lacks, so the two converge without a full state; once each has acknowledged the
  /// other, their messages are format 3 deltas without a version.
  @Test func sessionsThatAnnounceExchangeNoFullState() throws {
    var (phone, tablet) = Self.pair()
    var phoneSide = SyncSession(announcingVersions: true)
    var tabletSide = SyncSession(announcingVersions: true)
    var sent: [SyncMessage] = []
    func exchange(
      _ from: inout SyncSession, _ sender: inout HouseholdReplica,
      _ to: inout SyncSession, _ receiver: inout HouseholdReplica
    ) throws -> SyncMessage {
      let message = try SyncMessage(decoding: from.message(from: &sender).encoded())
      sent.append(message)
      try to.receive(message, into: &receiver)
      return message
    }

    let tabletBefore = tablet.state
    let opening = try exchange(&phoneSide, &phone, &tabletSide, &tablet)
    #expect(opening.isAnnouncement && !opening.carriesChanges)
    #expect(opening.senderVersion == phone.state.version)
    // Compact (format 5): a peer not heard from learns that this replica reads it.
    #expect(String(decoding: opening.json(), as: UTF8.self).hasPrefix(#"{"format":5,"#))
    #expect(tablet.state == tabletBefore)

    // The answer: what the phone lacks, with the tablet's version.
    let answer = try exchange(&tabletSide, &tablet, &phoneSide, &phone)
    #expect(answer.isDelta && answer.since == 0 && answer.senderVersion != nil)
    #expect(answer.state?.categories.keys.map(\.rawValue) == ["bakery"])
    #expect(phone.category(named: "Bakery") != nil)

    let back = try exchange(&phoneSide, &phone, &tabletSide, &tablet)
    #expect(back.isDelta && back.since == 0)
    #expect(back.state?.categories.keys.map(\.rawValue) == ["produce"])
    #expect(tablet.state == phone.state)

    _ = try exchange(&tabletSide, &tablet, &phoneSide, &phone)
    _ = try phone.getOrCreateCategory(displayName: "Dairy")
    let acknowledged = try exchange(&phoneSide, &phone, &tabletSide, &tablet)
    #expect(acknowledged.isDelta && acknowledged.senderVersion == nil)
    // Both wrote format 5, so both write it on (docs/decisions/0044).
    #expect(String(decoding: acknowledged.json(), as: UTF8.self).contains(#""format":5,"#))
    #expect(tablet.state == phone.state)
    #expect(sent.allSatisfy { $0.isDelta || $0.isAnnouncement })
  }

  /// A session that does not announce still reads an announcement and answers it with what
  /// the announcer lacks; the announcer, having no version of it, sends its whole state.
  @Test func aSessionThatDoesNotAnnounceAnswersAnAnnouncement() throws {
    var (phone, tablet) = Self.pair()
    var phoneSide = SyncSession(announcingVersions: true)
    var tabletSide = SyncSession()
    try tabletSide.receive(phoneSide.message(from: &phone), into: &tablet)
    let answer = tabletSide.message(from: &tablet)
    #expect(answer.isDelta && answer.since == 0 && answer.senderVersion == nil)
    try phoneSide.receive(answer, into: &phone)
    let full = phoneSide.message(from: &phone)
    #expect(!full.isDelta && full.state == phone.state && full.senderVersion == nil)
    try tabletSide.receive(full, into: &tablet)
    #expect(tablet.state == phone.state)
  }

  /// A peer that opens with its whole state may run a build before format 4: a session that
  /// announces answers it in format 3, without its version, so that such a build reads it.
  @Test func aWholeStateIsAnsweredInFormat3() throws {
    var (phone, tablet) = Self.pair()
    var phoneSide = SyncSession(announcingVersions: true)
    var tabletSide = SyncSession()
    try phoneSide.receive(tabletSide.message(from: &tablet), into: &phone)
    let answer = phoneSide.message(from: &phone)
    #expect(answer.isDelta && answer.since == 0 && answer.senderVersion == nil)
    #expect(String(decoding: answer.json(), as: UTF8.self).contains(#""format":3,"#))
    try tabletSide.receive(answer, into: &tablet)
    #expect(tablet.state == phone.state)
  }

  /// A version that claims writes of the receiver's incarnation it never made is ignored and
  /// counted: answered, it would leave those writes out of what the phone sends the tablet.
  /// The phone announces its own version instead, as to a peer whose version it does not know.
  @Test func aVersionClaimingTheReceiversUnmadeWritesIsIgnored() throws {
    var (phone, tablet) = Self.pair()
    var phoneSide = SyncSession(announcingVersions: true)
    var tabletSide = SyncSession(announcingVersions: true)
    let honest = tabletSide.message(from: &tablet)
    var claimed = try #require(honest.senderVersion)
    claimed.categories.merge(VersionVector([phone.replicaID: 1_000]))
    let forged = SyncMessage(
      household: honest.household, sender: honest.sender, through: honest.through, since: nil,
      recipient: nil, acknowledged: nil, state: nil, senderVersion: claimed)
    try phoneSide.receive(forged, into: &phone)
    #expect(phoneSide.ignoredVersions == 1)
    let next = phoneSide.message(from: &phone)
    #expect(next.isAnnouncement && next.recipient == tablet.replicaID)
    // The same version without the claim is taken: the answer is what the tablet lacks.
    var (phone2, _) = Self.pair()
    var phone2Side = SyncSession(announcingVersions: true)
    try phone2Side.receive(honest, into: &phone2)
    #expect(phone2Side.ignoredVersions == 0)
    #expect(phone2Side.message(from: &phone2).since == 0)
  }

  /// After an acknowledgment it ignored (ADR 0024), the phone owes the tablet its whole state,
  /// the only message that sets back what the tablet holds of the phone; a version the tablet
  /// sends meanwhile does not turn that into a delta.
  @Test func anIgnoredAcknowledgmentIsAnsweredWithTheWholeStateDespiteAVersion() throws {
    var (phone, tablet) = Self.pair()
    var phoneSide = SyncSession(announcingVersions: true)
    var tabletSide = SyncSession(announcingVersions: true)
    try tabletSide.receive(phoneSide.message(from: &phone), into: &tablet)
    let answer = tabletSide.message(from: &tablet)
    let forged = SyncMessage(
      household: answer.household, sender: answer.sender, through: answer.through,
      since: answer.since, recipient: answer.recipient,
      acknowledged: phone.changes.log.sequence + 5, state: answer.state,
      senderVersion: answer.senderVersion)
    try phoneSide.receive(forged, into: &phone)
    #expect(phoneSide.ignoredAcknowledgments == 1)
    try phoneSide.receive(answer, into: &phone)
    let next = phoneSide.message(from: &phone)
    #expect(!next.isDelta && next.state == phone.state)
    try tabletSide.receive(next, into: &tablet)
    #expect(tablet.state == phone.state)
  }

  /// Every truncation of an announcement's JSON is refused as malformed, and every byte of it
  /// changed to any of a few others is refused or reads as some message: never a trap.
  @Test func damagedAnnouncementsAreRefusedOrRead() throws {
    var (phone, tablet) = Self.pair()
    var session = SyncSession(announcingVersions: true)
    try phone.merge(tablet.state)
    let json = session.message(from: &phone).json()
    let (wrong, read) = DamagedMessages.decode(json)
    #expect(wrong.isEmpty, "\(wrong.prefix(3))")
    // Some digits changed still read (another counter, another number): a byte of a version
    // is not checked for what it says, only for being a version.
    #expect(read > 0)
  }

  /// The bytes of an announcement: refused as malformed when its format is 3 (which has no
  /// version), when it loses its version (a full state without a state), and when a full state
  /// carries one.
  @Test func malformedAnnouncementsAreRefused() throws {
    var (phone, _) = Self.pair()
    var session = SyncSession(announcingVersions: true)
    let announcement = session.message(from: &phone)
    let text = String(decoding: announcement.json(), as: UTF8.self)
    #expect(try SyncMessage(decoding: Array(text.utf8)) == announcement)
    let version = try #require(text.range(of: #","version":"#))
    let withoutVersion = String(text[..<version.lowerBound]) + "}"
    let full = SyncMessage(
      household: announcement.household, sender: announcement.sender,
      through: announcement.through, since: nil, recipient: nil, acknowledged: nil,
      state: phone.state, senderVersion: announcement.senderVersion)
    for (broken, reason) in [
      (text.replacingOccurrences(of: #""format":5"#, with: #""format":3"#), "has no version"),
      (withoutVersion, "a full state has no state"),
      (String(decoding: full.json(), as: UTF8.self), "carries a version besides its state's"),
    ] {
      do {
        _ = try SyncMessage(decoding: Array(broken.utf8))
        Issue.record("not refused: \(broken.prefix(80))")
      } catch {
        guard case .malformed(let problem) = error else {
          Issue.record("refused as \(error), not as malformed")
          continue
        }
        #expect("\(problem)".contains(reason))
      }
    }
  }
}
