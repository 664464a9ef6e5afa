import ForagerSync
import Foundation
import SemanticCRDT
import SemanticCRDTJSON
import SharedSupport
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

  @Test func fullStatesUntilAcknowledgedThenDeltasOfWhatChangedAndEmptyBetweenEqualStates()
    throws
  {
    var (phone, tablet) = Self.pair()
    var phoneSide = SyncSession()
    var tabletSide = SyncSession()
    _ = try phone.getOrCreateCategory(displayName: "Produce")

    let first = phoneSide.message(from: &phone)
    #expect(!first.isDelta && first.state == phone.state && first.sender == "phone")
    #expect(first.recipient == nil && first.acknowledged == nil)
    try tabletSide.receive(first, into: &tablet)
    #expect(tabletSide.peer == PeerProgress(replica: "phone", merged: first.through))

    // The tablet has heard the phone but the phone has acknowledged nothing of the tablet's:
    // what the tablet holds beyond the phone's full state, from its change 0, acknowledging
    // the phone's.
    _ = try tablet.getOrCreateCategory(displayName: "Dairy")
    let answer = tabletSide.message(from: &tablet)
    #expect(answer.isDelta && answer.since == 0 && answer.recipient == "phone")
    #expect(answer.acknowledged == first.through)
    #expect(answer.state?.categories.keys.map(\.rawValue) == ["dairy"])
    #expect(answer.state?.members.isEmpty == true)
    try phoneSide.receive(answer, into: &phone)
    #expect(phone.state == tablet.state)
    #expect(phoneSide.peer?.acknowledged == first.through)

    // Equal states: the phone's changes since its acknowledged one are the tablet's own.
    let nothing = phoneSide.message(from: &phone)
    #expect(nothing.isDelta && nothing.since == first.through && !nothing.carriesChanges)
    #expect(nothing.encoded().count < 200)
    let report = try tabletSide.receive(nothing, into: &tablet)
    #expect(report?.changes.isEmpty == true)

    // An edit: the delta holds it and nothing else.
    _ = try phone.getOrCreateCategory(displayName: "Bakery")
    let edit = phoneSide.message(from: &phone)
    #expect(edit.isDelta && edit.state?.categories.keys.map(\.rawValue) == ["bakery"])
    try tabletSide.receive(edit, into: &tablet)
    #expect(tablet.state == phone.state)
    // Answered and acknowledged, both sides send empty deltas again.
    try phoneSide.receive(tabletSide.message(from: &tablet), into: &phone)
    #expect(!phoneSide.message(from: &phone).carriesChanges)
    #expect(!tabletSide.message(from: &tablet).carriesChanges)
  }

  /// A full state that changed a device reaches its other peers as what it changed (ADR 0040):
  /// a delta of the records it added and removed, which merged gives what the device's whole
  /// state gives. A log that kept nothing of a full state's merge sent each of them a full
  /// state of their own, and they passed it on the same way.
  @Test func aFullStatesChangesArePassedOnAsADelta() throws {
    var (phone, tablet) = Self.pair()
    _ = try phone.getOrCreateCategory(displayName: "Produce")
    _ = try phone.getOrCreateCategory(displayName: "Dairy")
    try tablet.merge(phone.state)
    var watch = HouseholdReplica(
      joining: Self.household, member: Self.sam, replica: "watch", wallClock: .fixed(1_000))
    var tabletToWatch = SyncSession()
    var watchToTablet = SyncSession()
    try watchToTablet.receive(tabletToWatch.message(from: &tablet), into: &watch)
    try tabletToWatch.receive(watchToTablet.message(from: &watch), into: &tablet)
    #expect(!tabletToWatch.message(from: &tablet).carriesChanges)

    // A laptop that saw the phone's categories removes one and adds one; its full state
    // reaches the tablet by a session of its own.
    var laptop = HouseholdReplica(
      joining: Self.household, member: Self.sam, replica: "laptop", wallClock: .fixed(2_000))
    try laptop.merge(phone.state)
    try laptop.deleteCategory(CategoryKey(normalizing: "Dairy"))
    _ = try laptop.getOrCreateCategory(displayName: "Frozen")
    var laptopToTablet = SyncSession()
    var tabletFromLaptop = SyncSession()
    let full = laptopToTablet.message(from: &laptop)
    #expect(!full.isDelta)
    try tabletFromLaptop.receive(full, into: &tablet)

    let passedOn = tabletToWatch.message(from: &tablet)
    #expect(passedOn.isDelta)
    #expect(passedOn.state?.categories.keys.map(\.rawValue) == ["frozen"])
    var whole = watch
    try whole.merge(tablet.state)
    try watchToTablet.receive(passedOn, into: &watch)
    let same = watch.state == whole.state && watch.state == tablet.state
    #expect(same)
    #expect(watch.category(named: "Dairy") == nil && watch.category(named: "Frozen") != nil)
  }

  /// A full state's merge is kept as the delta of what it changed exactly while it changed no
  /// more keys than the log's budget for the merged state (a quarter of its records here, so
  /// the budget grows with the records the merge adds), and that delta, merged into the state
  /// before, gives the state after: the writes after are read from the merged map (ADR 0040).
  /// A budget read from the state before the merge (a quarter of 41 records, 10) would fail it
  /// for 11 to 13 new records; a delta without the writes after fails it for every size kept.
  @Test func aFullStatesMergeIsKeptWhileItFitsTheBudgetOfTheMergedState() throws {
    var outcomes: [Bool] = []
    for added in 8...16 {
      var (phone, tablet) = Self.pair()
      for index in 0..<40 { _ = try phone.getOrCreateCategory(displayName: "Aisle \(index)") }
      try tablet.merge(phone.state)
      tablet.changes.log.minimumBudget = 1
      let before = tablet.changes.log.sequence
      let earlier = tablet
      for index in 0..<added { _ = try phone.getOrCreateCategory(displayName: "Fresh \(index)") }
      try tablet.merge(phone.state)

      let budget = tablet.state.recordCount / 4
      let kept = tablet.changes.log.delta(after: before, for: nil, of: tablet.state)
      #expect((kept != nil) == (added <= budget), "\(added) added, budget \(budget)")
      if let kept {
        #expect(kept.categories.count == added && kept.members.isEmpty)
        // Merged into the state before, it gives the state after.
        var merged = earlier
        try merged.merge(kept)
        #expect(merged.state == tablet.state)
      }
      outcomes.append(kept != nil)
    }
    // Both sides of the budget were met.
    #expect(outcomes.contains(true) && outcomes.contains(false))
  }

  /// A device that writes while no message goes out (offline for long) holds its writes to the
  /// log's budget like any other change: past it they are dropped and the floor rises, so the
  /// log does not hold a second copy of every key the device wrote, and the next message is
  /// what the device holds beyond the state the peer acknowledged (ADR 0042). Before, they
  /// waited unbounded for a message to seal them.
  @Test func writesNoMessageSealedAreHeldToTheLogsBudget() throws {
    var (phone, tablet) = Self.pair()
    var phoneSide = SyncSession()
    var tabletSide = SyncSession()
    phone.changes.log.minimumBudget = 8
    try tabletSide.receive(phoneSide.message(from: &phone), into: &tablet)
    try phoneSide.receive(tabletSide.message(from: &tablet), into: &phone)
    let acknowledged = try #require(phoneSide.peer?.acknowledged)

    for index in 0..<20 { _ = try phone.getOrCreateCategory(displayName: "Aisle \(index)") }
    #expect(phone.changes.log.floor > acknowledged)
    // The log no longer reaches the tablet's acknowledgment: the tablet is sent what the phone
    // holds beyond its state when it sent that number, not the whole state (ADR 0042).
    let next = phoneSide.message(from: &phone)
    #expect(next.isDelta && next.since == acknowledged)
    #expect(next.state?.categories.count == 20 && next.state?.members.isEmpty == true)
    try tabletSide.receive(next, into: &tablet)
    #expect(tablet.state == phone.state)
  }

  /// The change log keeps the versions of a few of the states messages carried, spaced wider
  /// going back, and answers for any acknowledgment the version at the greatest kept number
  /// at or below it: never a state past what the peer acknowledged (ADR 0042).
  @Test func theLogKeepsAFewVersionsOfWhatMessagesCarried() throws {
    var (phone, _) = Self.pair()
    phone.changes.log.maximumSentVersions = 4
    var sent: [(sequence: UInt64, version: HouseholdVersion)] = []
    for index in 0..<40 {
      _ = try phone.getOrCreateCategory(displayName: "Aisle \(index)")
      if index % 3 == 0 { _ = try phone.getOrCreateIngredient(named: "salt \(index)") }
      // What a message announces is the state's version, also when another map changed
      // since the last one kept (its own version shares that one's storage).
      #expect(phone.changes.log.noteSent(phone.state) == phone.state.version)
      // The same number again keeps one version.
      #expect(phone.changes.log.noteSent(phone.state) == phone.state.version)
      sent.append((phone.changes.log.sequence, phone.state.version))
    }
    var found = Set<UInt64>()
    for acknowledged in 0...(sent.last!.sequence + 2) {
      let version = phone.changes.log.version(acknowledgedBy: acknowledged)
      let match = sent.last { $0.version == version }
      if version != nil {
        let number = try #require(match?.sequence, "a version no message carried")
        #expect(number <= acknowledged, "acknowledged \(acknowledged), version at \(number)")
        found.insert(number)
      } else {
        // The first number kept stays: before it, nothing is known.
        #expect(acknowledged < sent[0].sequence)
      }
    }
    #expect(found.count == 4)
    #expect(found.contains(sent.last!.sequence))
    #expect(found.min()! < sent[sent.count / 2].sequence)
  }

  /// A restore notes its records as local writes made together: held to the budget like
  /// single writes, not left pending past it until the next message.
  @Test func aRestoreIsHeldToTheLogsBudgetToo() throws {
    var (phone, tablet) = Self.pair()
    var phoneSide = SyncSession()
    var tabletSide = SyncSession()
    let list = try phone.createWeeklyList(name: "Week 48")
    for index in 0..<20 { try phone.addItem("item \(index)", to: list.id) }
    try tabletSide.receive(phoneSide.message(from: &phone), into: &tablet)
    try phoneSide.receive(tabletSide.message(from: &tablet), into: &phone)
    try tablet.deleteWeeklyList(list.id)
    try phoneSide.receive(tabletSide.message(from: &tablet), into: &phone)
    try tabletSide.receive(phoneSide.message(from: &phone), into: &tablet)
    try phoneSide.receive(tabletSide.message(from: &tablet), into: &phone)
    let acknowledged = try #require(phoneSide.peer?.acknowledged)
    #expect(acknowledged == phone.changes.log.sequence)
    let removal = try #require(phone.recentlyRemoved.first)

    phone.changes.log.minimumBudget = 8
    #expect(try phone.restore(removal.id) == 21)
    #expect(phone.changes.log.floor > acknowledged)
    let next = phoneSide.message(from: &phone)
    #expect(next.isDelta && next.since == acknowledged)
    #expect(next.state?.items.count == 20 && next.state?.lists.count == 1)
    try tabletSide.receive(next, into: &tablet)
    #expect(tablet.state == phone.state)
  }

  /// The scenario of docs/decisions/0007 through sessions: the tablet comes back from a backup
  /// taken before it received a rename, as a new incarnation. The delta the phone made for the
  /// tablet's earlier self starts after the rename, which that self had acknowledged: merged
  /// and taken as complete, the restored tablet would acknowledge the phone's changes without
  /// ever getting the rename. The session discards it, and the phone, once it hears the new
  /// incarnation (its full state), sends it what it holds beyond that state, from change 0.
  @Test func aDeltaForAnEarlierIncarnationIsDiscarded() throws {
    var (phone, tablet) = Self.pair()
    var phoneSide = SyncSession()
    var tabletSide = SyncSession()
    let key = try phone.getOrCreateCategory(displayName: "Lentils").category.key
    try tabletSide.receive(phoneSide.message(from: &phone), into: &tablet)
    try phoneSide.receive(tabletSide.message(from: &tablet), into: &phone)
    let backup = tablet.state

    try phone.renameCategory(key, to: "lentils")  // the same key: a new write supersedes the old
    try tabletSide.receive(phoneSide.message(from: &phone), into: &tablet)
    try phoneSide.receive(tabletSide.message(from: &tablet), into: &phone)
    _ = try phone.getOrCreateCategory(displayName: "Rice")

    // The tablet is restored from its backup: a new incarnation, with a new session.
    var restored = HouseholdReplica(
      state: backup, member: Self.sam,
      clock: HybridClock(replica: "tablet-2", wallClock: .fixed(2_000)))
    var restoredSide = SyncSession()
    let stale = phoneSide.message(from: &phone)
    #expect(stale.isDelta && stale.recipient == "tablet")
    var trusting = restored
    try trusting.merge(#require(stale.state))
    #expect(
      trusting.state.categories[key]?.displayName == "Lentils",
      "the scenario no longer leaves the rename out")

    #expect(try restoredSide.receive(stale, into: &restored) == nil)
    #expect(restored.state == backup)
    #expect(restoredSide.peer?.merged == nil)
    // What the restored tablet says teaches the phone its new incarnation.
    try phoneSide.receive(restoredSide.message(from: &restored), into: &phone)
    let fresh = phoneSide.message(from: &phone)
    #expect(fresh.isDelta && fresh.since == 0 && fresh.recipient == "tablet-2")
    #expect(fresh.state?.categories.count == 2, "the rename and Rice, nothing the backup holds")
    try restoredSide.receive(fresh, into: &restored)
    #expect(restored.state.categories[key]?.displayName == "lentils")
    #expect(restored.category(named: "Rice") != nil)
  }

  /// A lost message costs nothing: the next delta starts where the receiver acknowledged. A
  /// receiver that made a new session (same incarnation) has merged nothing in it: it refuses
  /// a delta that starts after a change of the sender's (it cannot tell it from one a forged
  /// acknowledgment started), its answer (the whole state) acknowledges nothing, and the sender
  /// sends what it holds beyond that state, from its change 0.
  @Test func aLostDeltaIsSentAgainAndANewSessionGetsWhatItLacksFromChangeZero() throws {
    var (phone, tablet) = Self.pair()
    var phoneSide = SyncSession()
    var tabletSide = SyncSession()
    try tabletSide.receive(phoneSide.message(from: &phone), into: &tablet)
    try phoneSide.receive(tabletSide.message(from: &tablet), into: &phone)

    _ = try phone.getOrCreateCategory(displayName: "Produce")
    let lost = phoneSide.message(from: &phone)
    _ = try phone.getOrCreateCategory(displayName: "Dairy")
    let next = phoneSide.message(from: &phone)
    #expect(lost.isDelta && next.since == lost.since)
    #expect(try tabletSide.receive(next, into: &tablet) != nil)
    #expect(tablet.state == phone.state)

    _ = try phone.getOrCreateCategory(displayName: "Bakery")
    var newSide = SyncSession()
    let delta = phoneSide.message(from: &phone)
    #expect(throws: HouseholdError.deltaSkipsChanges(since: delta.since!, merged: 0)) {
      try newSide.receive(delta, into: &tablet)
    }
    // The new session's answer: the whole state, acknowledging nothing of the phone's.
    let answer = newSide.message(from: &tablet)
    #expect(answer.acknowledged == nil && !answer.isDelta)
    try phoneSide.receive(answer, into: &phone)
    let lacking = phoneSide.message(from: &phone)
    #expect(lacking.isDelta && lacking.since == 0)
    #expect(lacking.state?.categories.keys.map(\.rawValue) == ["bakery"])
    #expect(try newSide.receive(lacking, into: &tablet) != nil)
    #expect(tablet.state == phone.state)
  }

  @Test func anotherHouseholdsMessageIsRefusedAndTeachesNothing() throws {
    var (phone, _) = Self.pair()
    var session = SyncSession()
    var stranger = HouseholdReplica.create(owner: MemberID(), ownerName: "Kim", replica: "kim")
    #expect(
      throws: HouseholdError.differentHousehold(local: Self.household, remote: stranger.householdID)
    ) {
      try session.receive(SyncSession.fresh(from: &stranger), into: &phone)
    }
    #expect(session.peer == nil)
  }

  // MARK: Bytes

  @Test func aMessageReadsBackFromItsBytes() throws {
    var (phone, tablet) = Self.pair()
    _ = try phone.getOrCreateCategory(displayName: "Produce")
    _ = try tablet.getOrCreateCategory(displayName: "Bakery")
    let full = SyncSession.fresh(from: &phone)
    #expect(try SyncMessage(decoding: full.encoded()) == full)
    #expect(try SyncMessage(decoding: full.json()) == full)
    // A state compresses: the bytes are a gzip member, and smaller than the JSON.
    #expect(full.encoded().prefix(2) == [0x1F, 0x8B])
    #expect(full.encoded().count < full.json().count / 2)
    var phoneSide = SyncSession()
    var tabletSide = SyncSession()
    try phoneSide.receive(tabletSide.message(from: &tablet), into: &phone)
    try tabletSide.receive(phoneSide.message(from: &phone), into: &tablet)
    try phoneSide.receive(tabletSide.message(from: &tablet), into: &phone)
    _ = try phone.getOrCreateCategory(displayName: "Dairy")
    let delta = phoneSide.message(from: &phone)
    #expect(delta.isDelta && delta.carriesChanges)
    #expect(try SyncMessage(decoding: delta.encoded()) == delta)
    try tabletSide.receive(delta, into: &tablet)
    try phoneSide.receive(tabletSide.message(from: &tablet), into: &phone)
    let empty = phoneSide.message(from: &phone)
    #expect(empty.isDelta && !empty.carriesChanges)
    #expect(try SyncMessage(decoding: empty.encoded()) == empty)
  }

  @Test func compressedBytesThatDoNotDecompressAreRefused() throws {
    var (phone, _) = Self.pair()
    let message = SyncSession.fresh(from: &phone)
    let bytes = message.encoded()
    func refusal(_ bytes: [UInt8], maximumSize: Int = SyncMessage.defaultMaximumSize)
      -> SyncMessageError?
    {
      do {
        _ = try SyncMessage(decoding: bytes, maximumSize: maximumSize)
        return nil
      } catch {
        return error
      }
    }
    #expect(refusal(Array(bytes.dropLast(9))) == .damagedCompression("truncated"))
    var flipped = bytes
    flipped[bytes.count - 8] ^= 1  // the checksum
    #expect(refusal(flipped) == .damagedCompression("the checksum does not match the data"))
    // Small on the wire, larger than the receiver reads once decompressed.
    let json = message.json()
    #expect(
      refusal(bytes, maximumSize: json.count - 1)
        == .damagedCompression("more than \(json.count - 1) bytes once decompressed"))
    #expect(try SyncMessage(decoding: bytes, maximumSize: json.count) == message)
    // Whole compression around JSON that is not a message: refused as the JSON would be.
    guard case .malformed = refusal(Gzip.compress(Array(json.dropLast()))) else {
      Issue.record("a truncated message, compressed, not refused as malformed")
      return
    }
  }

  @Test func bytesThatAreNotAMessageAreRefused() throws {
    var (phone, _) = Self.pair()
    let message = SyncSession.fresh(from: &phone)
    let bytes = message.json()
    let through = #","through":\#(message.through)"#
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
    // A message without its sender's version is format 3, which builds before format 4 read.
    let current = SyncMessage.formatWithoutVersion
    let newest = SyncMessage.currentFormat
    #expect(
      refusal(
        text.replacingOccurrences(of: #""format":\#(current)"#, with: #""format":\#(newest + 1)"#))
        == .newerFormat(found: newest + 1, supported: newest))
    for older: Int64 in [0, 1] {
      #expect(
        refusal(
          text.replacingOccurrences(of: #""format":\#(current)"#, with: #""format":\#(older)"#))
          == .unknownFormat(older))
    }
    // The format before, whose states hold no field added since, is read as it is.
    #expect(
      refusal(text.replacingOccurrences(of: #""format":\#(current)"#, with: #""format":2"#)) == nil)
    #expect(
      refusal(text, maximumSize: bytes.count - 1)
        == .tooLarge(size: bytes.count, limit: bytes.count - 1))
    // The table of replicas moved after the state, which is read by it.
    let table = try #require(
      text.range(of: #","replicas":\[[^\]]*\]"#, options: .regularExpression))
    let tableLast = text.replacingCharacters(in: table, with: "").dropLast() + text[table] + "}"
    #expect(try SyncMessage(decoding: Array(text.utf8)).sender == "phone")
    // A replica the message never names, at the end of the table: a table of millions of them
    // would only cost the reader.
    let padded = text.replacingCharacters(
      in: table, with: String(text[table].dropLast()) + #","stranger"]"#)
    guard case .malformed(let unused) = refusal(padded) else {
      Issue.record("a table naming an unused replica was not refused: \(padded.prefix(120))")
      return
    }
    #expect("\(unused)".contains("the table names stranger, which the message does not use"))
    // A table past the household's bound on replicas is refused as it is read.
    let huge = text.replacingCharacters(
      in: table,
      with: String(text[table].dropLast())
        + (0...HouseholdState.maximumReplicas).map { #","r\#($0)""# }.joined() + "]")
    guard case .malformed(let tooMany) = refusal(huge) else {
      Issue.record("a table of more replicas than a household may hold was not refused")
      return
    }
    #expect("\(tooMany)".contains("the table names more than"))
    for broken in [
      String(text.dropLast(7)),  // truncated
      text.replacingOccurrences(of: #""sender":0"#, with: #""sender":null"#),
      text.replacingOccurrences(of: #""sender":0"#, with: #""sender":"phone""#),
      text.replacingOccurrences(of: #""sender":0"#, with: #""sender":9"#),  // not in the table
      text.replacingOccurrences(of: #""replicas":["phone""#, with: #""replicas":["phone","phone""#),
      text.replacingOccurrences(of: #"[[0,"#, with: #"[[9,"#),  // a dot of no replica listed
      text.replacingOccurrences(of: #"{"0":"#, with: #"{"00":"#),  // a context's key respelled
      String(tableLast),
      text.replacingOccurrences(of: #""through":"#, with: #""since":1,"through":"#),
      text.replacingOccurrences(
        of: #""format":\#(current),"#, with: #""acknowledged":1,"format":\#(current),"#),
      text.replacingOccurrences(of: #""through":"#, with: #""through":-"#),
      text.replacingOccurrences(of: through, with: ""),
      text + "{}",
    ] {
      guard case .malformed = refusal(broken) else {
        Issue.record("not refused as malformed: \(broken.prefix(80))")
        continue
      }
    }
  }
}

/// Acknowledgments are claims: one past the sender's last change cannot be true.
@Suite struct ForgedAcknowledgmentTests {
  /// A phone and a tablet whose sessions have exchanged one message each way.
  static func acquainted() throws -> (
    HouseholdReplica, HouseholdReplica, SyncSession, SyncSession
  ) {
    var phone = HouseholdReplica.create(owner: MemberID(), ownerName: "Sam", replica: "phone")
    var tablet = HouseholdReplica(joining: phone.householdID, member: MemberID(), replica: "tab")
    var phoneSide = SyncSession()
    var tabletSide = SyncSession()
    try tabletSide.receive(phoneSide.message(from: &phone), into: &tablet)
    try phoneSide.receive(tabletSide.message(from: &tablet), into: &phone)
    return (phone, tablet, phoneSide, tabletSide)
  }

  /// The tablet's message is forged to acknowledge the phone's changes far past the last one
  /// the phone made. The phone ignores it (and counts it), so its later deltas still start at
  /// what the tablet really merged, and the tablet gets every edit. On df69d73 the phone's
  /// deltas started after the forged number: the edits in between never reached the tablet.
  @Test func anAcknowledgmentPastTheSendersLastChangeIsIgnored() throws {
    var (phone, tablet, phoneSide, tabletSide) = try Self.acquainted()
    let honest = tabletSide.message(from: &tablet)
    let forged = SyncMessage(
      household: honest.household, sender: honest.sender, through: honest.through,
      since: honest.since, recipient: honest.recipient,
      acknowledged: phone.changes.log.sequence + 5, state: honest.state)
    try phoneSide.receive(forged, into: &phone)
    #expect(phoneSide.ignoredAcknowledgments == 1)
    for round in 0..<8 {
      _ = try phone.getOrCreateCategory(displayName: "Edit \(round)")
      try tabletSide.receive(phoneSide.message(from: &phone), into: &tablet)
      try phoneSide.receive(tabletSide.message(from: &tablet), into: &phone)
    }
    for round in 0..<8 { #expect(tablet.category(named: "Edit \(round)") != nil, "edit \(round)") }
    #expect(tablet.state == phone.state)
  }

  /// A forged acknowledgment of the message the phone just made, which the tablet never got,
  /// then more writes than the phone's log keeps: the phone sends what it holds beyond its
  /// state at the forged number (ADR 0042), starting at that number, so the tablet refuses it
  /// as any delta that starts past what it merged, and then gets the lost edit.
  @Test func aForgedAcknowledgmentTheLogNoLongerReachesIsRefused() throws {
    var (phone, tablet, phoneSide, tabletSide) = try Self.acquainted()
    phone.changes.log.minimumBudget = 8
    _ = try phone.getOrCreateCategory(displayName: "Lost")
    _ = phoneSide.message(from: &phone)  // lost on the way
    let honest = tabletSide.message(from: &tablet)
    let forged = SyncMessage(
      household: honest.household, sender: honest.sender, through: honest.through,
      since: honest.since, recipient: honest.recipient,
      acknowledged: phone.changes.log.sequence, state: honest.state)
    try phoneSide.receive(forged, into: &phone)
    #expect(phoneSide.ignoredAcknowledgments == 0)
    for index in 0..<20 { _ = try phone.getOrCreateCategory(displayName: "Aisle \(index)") }

    let next = phoneSide.message(from: &phone)
    #expect(next.isDelta && next.state?.categories.count == 20)
    #expect(throws: HouseholdError.self) { try tabletSide.receive(next, into: &tablet) }
    try phoneSide.receive(tabletSide.message(from: &tablet), into: &phone)
    try tabletSide.receive(phoneSide.message(from: &phone), into: &tablet)
    #expect(tablet.category(named: "Lost") != nil)
    #expect(tablet.state == phone.state)
  }
}
