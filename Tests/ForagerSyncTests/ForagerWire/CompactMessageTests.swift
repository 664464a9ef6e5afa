import ForagerSync
import ForagerTestSupport
import Foundation
import SemanticCRDT
import Testing

/// Format 5: messages whose states are written compactly, and the sessions that write them
/// only to peers that read them (docs/decisions/0044).
@Suite("Compact messages")
struct CompactMessageTests {
  /// A message as format 5 writes it: a full state or a delta of a random household.
  static func compact(_ state: HouseholdState, since: UInt64? = nil) -> SyncMessage {
    SyncMessage(
      household: state.householdID, sender: "phone", through: 9, since: since,
      recipient: since == nil ? nil : "tablet", acknowledged: nil, state: state, compact: true)
  }

  /// The households the round trips read: random runs of every record kind, with a newer
  /// build's carried maps and unknown fields, whole and as deltas between two of their devices.
  static func states(seeds: ClosedRange<UInt64>, operations: Int = 60)
    -> [(HouseholdState, since: UInt64?)]
  {
    seeds.flatMap { seed -> [(HouseholdState, since: UInt64?)] in
      let replicas = RandomHousehold.replicas(seed: seed, operations: operations)
      let newer = RandomHousehold.addingNewerBuildsWrites(to: replicas[0])
      var states: [(HouseholdState, since: UInt64?)] = [(newer.state, nil)]
      if let delta = newer.delta(since: replicas[1].state.version) { states.append((delta, 1)) }
      return states
    }
  }

  /// Every state reads back equal from its compact bytes, in fewer bytes than format 3's, and
  /// no record of it writes the part its entry's key says.
  @Test func compactStatesReadBackEqual() throws {
    for (state, since) in Self.states(seeds: 1...24) {
      let message = Self.compact(state, since: since)
      let read = try SyncMessage(decoding: message.encoded())
      #expect(read == message && read.isCompact)
      #expect(read.state == state)
      let json = String(decoding: message.json(), as: UTF8.self)
      #expect(json.hasPrefix(#"{"format":5,"#))
      for part in [#""key":"#, #""slot":"#] { #expect(!json.contains(part)) }
      let standard = message.carrying(state)
      #expect(
        SyncMessage(
          household: standard.household, sender: standard.sender, through: 9, since: since,
          recipient: standard.recipient, acknowledged: nil, state: state
        ).json().count > message.json().count)
    }
  }

  /// A context's intervals as gaps, and each record without its key part: a record that
  /// writes it, a gap of 0 (an interval that does not follow the one before), a gap past
  /// 2⁶⁴ and a state before the format are refused as malformed.
  @Test func malformedCompactStatesAreRefused() throws {
    var (phone, _) = AnnouncementTests.pair()
    _ = try phone.getOrCreateCategory(displayName: "Dairy")
    let text = String(decoding: Self.compact(phone.state).json(), as: UTF8.self)
    #expect(text.contains(#""context":{"0":[[1,1]]}"#))
    #expect(text.contains(#"[[[0,2],{"creation""#))
    let broken = [
      (
        text.replacingOccurrences(
          of: #"[[[0,2],{"creation""#, with: #"[[[0,2],{"key":"dairy","creation""#),
        "which its entry's key says"
      ),
      (
        text.replacingOccurrences(of: #""context":{"0":[[1,1]]}"#, with: #""context":{"0":[1,0]}"#),
        "does not follow the one before"
      ),
      (
        text.replacingOccurrences(
          of: #""context":{"0":[[1,1]]}"#, with: #""context":{"0":[2,18446744073709551615]}"#),
        "does not follow the one before"
      ),
      (
        text.replacingOccurrences(of: #""format":5,"#, with: "")
          .replacingOccurrences(of: #""through":9"#, with: #""through":9,"format":5"#),
        "the state comes before the format"
      ),
    ]
    for (broken, reason) in broken {
      #expect(broken != text)
      do {
        _ = try SyncMessage(decoding: Array(broken.utf8))
        Issue.record("not refused: \(reason)")
      } catch {
        guard case .malformed(let problem) = error else {
          Issue.record("refused as \(error), not as malformed")
          continue
        }
        #expect("\(problem)".contains(reason), "\(problem)")
      }
    }
  }

  /// Every truncation of a compact delta is refused as malformed, and every third byte changed
  /// is refused or read: none traps.
  @Test func damagedCompactMessagesAreRefusedOrRead() throws {
    let (state, since) = try #require(Self.states(seeds: 3...3, operations: 16).last)
    let json = Self.compact(state, since: since).json()
    // Records and removed dots, not an empty delta.
    let text = String(decoding: json, as: UTF8.self)
    #expect(json.count > 1_000 && text.contains(#""creation""#) && text.contains("[["))
    let (wrong, read) = DamagedMessages.decode(json, stride: 3)
    #expect(wrong.isEmpty, "\(wrong.prefix(3))")
    #expect(read > 0)
  }

  /// Two sessions of this build: the announcer writes format 5 to a peer not heard from, the
  /// peer answers in it, and every message after is compact.
  @Test func sessionsOfThisBuildWriteCompactlyToEachOther() throws {
    var (phone, tablet) = AnnouncementTests.pair()
    var phoneSide = SyncSession(announcingVersions: true)
    var tabletSide = SyncSession()
    var sent: [SyncMessage] = []
    for round in 0..<4 {
      _ = try phone.getOrCreateCategory(displayName: "Phone \(round)")
      _ = try tablet.getOrCreateCategory(displayName: "Tablet \(round)")
      for sender in [0, 1] {
        let message =
          sender == 0 ? phoneSide.message(from: &phone) : tabletSide.message(from: &tablet)
        let read = try SyncMessage(decoding: message.encoded())
        sent.append(read)
        if sender == 0 {
          try tabletSide.receive(read, into: &tablet)
        } else {
          try phoneSide.receive(read, into: &phone)
        }
      }
    }
    #expect(tablet.state == phone.state)
    #expect(sent.allSatisfy { $0.isCompact })
  }

  /// A peer on a build that reads format 4 at most (played by rewriting its messages as that
  /// build writes them, and refusing format 5 as it does), announcing or not: it refuses the
  /// first announcement, is answered in format 4 or 3 once it speaks, and after this device
  /// relaunches is announced to in format 4, so that the two keep converging. (Announced to in
  /// format 5 again, a peer that does not announce would receive nothing from this device until
  /// it relaunched itself.)
  @Test(arguments: [false, true])
  func aPeerThatReadsFormat4IsWrittenFormat4(olderAnnounces: Bool) throws {
    var (phone, older) = AnnouncementTests.pair()
    var phoneSide = SyncSession(announcingVersions: true)
    var olderSide = SyncSession(announcingVersions: olderAnnounces)
    /// Delivers to the older build: refused if format 5, as that build refuses it.
    func toOlder(_ message: SyncMessage) throws -> Bool {
      guard !message.isCompact else { return false }
      try olderSide.receive(SyncMessage(decoding: message.encoded()), into: &older)
      return true
    }
    /// What the older build sends: its message, not compact.
    func fromOlder() -> SyncMessage {
      olderSide.message(from: &older).written(compact: false)
    }
    func toPhone(_ message: SyncMessage) throws {
      try phoneSide.receive(SyncMessage(decoding: message.encoded()), into: &phone)
    }
    #expect(try toOlder(phoneSide.message(from: &phone)) == false)
    try toPhone(fromOlder())
    let answer = phoneSide.message(from: &phone)
    #expect((answer.senderVersion != nil) == olderAnnounces && !answer.isCompact)
    #expect(try toOlder(answer))
    try toPhone(fromOlder())
    #expect(phone.state == older.state)

    // The phone relaunches: a new incarnation and a new session.
    phone = HouseholdReplica(
      state: phone.state, member: SyncSessionTests.sam,
      clock: HybridClock(replica: "phone-2", wallClock: .fixed(2_000)))
    phoneSide = SyncSession(announcingVersions: true)
    _ = try phone.getOrCreateCategory(displayName: "After relaunch")
    #expect(try toOlder(phoneSide.message(from: &phone)) == false)
    // The older build's message is for the phone's earlier incarnation: discarded, but heard.
    try toPhone(fromOlder())
    for _ in 0..<3 {
      #expect(try toOlder(phoneSide.message(from: &phone)))
      try toPhone(fromOlder())
    }
    #expect(phone.state == older.state)
    #expect(older.category(named: "After relaunch") != nil)
  }
}
