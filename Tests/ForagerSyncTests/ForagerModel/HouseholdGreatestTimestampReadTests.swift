import CRDTTestSupport
import ForagerPersistence
import ForagerSync
import ForagerTestSupport
import Foundation
import SemanticCRDT
import SemanticCRDTJSON
import SharedSupport
import Testing

/// Reading a household finds its greatest timestamp as it reads each record, and opening a
/// store checks that stamp against the skew bound instead of scanning the household again: it
/// must be exactly ``HouseholdState/greatestTimestamp``, wherever the greatest stamp sits.
@Suite("Greatest timestamp while reading a household")
struct HouseholdGreatestTimestampReadTests {
  /// A day ahead of every device of ``RandomHousehold``, so its edit holds the greatest stamp.
  static let lateClock = WallClock.fixed(RandomHousehold.start + 86_400_000)

  /// Edits beside ``RandomHousehold``'s operations, for what they write last of all: a meal
  /// plan (theirs assigns a meal after it), and the dissolved register.
  static let extraEdits: [@Sendable (inout HouseholdReplica) throws -> Void] = [
    { _ = try $0.createMealPlan(name: "Late plan") },
    { try $0.dissolve() },
  ]

  /// Every kind of edit in turn, made last by a device whose clock runs ahead, so the greatest
  /// stamp sits in whatever that edit wrote: each map of records, the category moves and the
  /// dissolved register. (The owner register is written only when a household is created.)
  @Test func findsTheGreatestWhereverTheLastEditPutIt() throws {
    var holders: Set<String> = []
    for seed in 0..<UInt64(PropertyEnvironment.iterations(default: 20)) {
      let device = RandomHousehold.replicas(seed: seed)[0]
      for edit in 0..<RandomHousehold.operationCount + Self.extraEdits.count {
        var late = HouseholdReplica(
          joining: RandomHousehold.household, member: RandomHousehold.owner, replica: "late",
          wallClock: Self.lateClock)
        try late.merge(device.state)
        var random = SplitMix64(seed: seed &* 31 &+ UInt64(edit))
        if edit < RandomHousehold.operationCount {
          RandomHousehold.apply(
            operation: edit, name: "Late \(edit)", random: &random, to: &late, peers: [device])
        } else {
          try Self.extraEdits[edit - RandomHousehold.operationCount](&late)
        }
        let bytes = JSONWriter.encode(late.state)
        let read = try JSONReader.decode(HouseholdState.AsRead.self, from: bytes)
        #expect(
          read.greatestTimestamp == late.state.greatestTimestamp, "seed \(seed), edit \(edit)")
        #expect(read.state == late.state, "seed \(seed), edit \(edit)")
        // The same stamp, found while decoding a message and a journal line: what a merge of
        // a peer's message or folder and a replay of the journal check instead of a scan.
        let found = try Self.greatestFoundInMessageAndJournalLine(holding: late.state)
        #expect(
          found.message == .some(late.state.greatestTimestamp)
            && found.line == .some(late.state.greatestTimestamp),
          "seed \(seed), edit \(edit)")
        if let greatest = late.state.greatestTimestamp, greatest.replica == "late" {
          holders.formUnion(Self.holders(of: greatest, in: late.state))
        }
      }
    }
    var expected: Set<String> = ["categoryMoves", "dissolved"]
    var names = FieldNames()
    HouseholdState.forEachMap(&names, carrying: [])
    expected.formUnion(names.names)
    #expect(holders == expected, "the late edits must put the greatest stamp everywhere")
  }

  /// A state as read is merged with the stamp its reader found: one holding a record stamped
  /// days ahead is refused by the skew bound, as the same state made in memory (and scanned)
  /// is, and an honest one merges as the state does.
  @Test func aStateAsReadIsCheckedWithTheStampItsReaderFound() throws {
    let device = RandomHousehold.replicas(seed: 3)[0]
    var ahead = HouseholdReplica(
      joining: RandomHousehold.household, member: RandomHousehold.owner, replica: "ahead",
      wallClock: .fixed(RandomHousehold.start + 30 * 86_400_000))
    try ahead.merge(device.state)
    _ = try ahead.getOrCreateCategory(displayName: "From The Future")
    let receiver = HouseholdReplica(
      joining: RandomHousehold.household, member: RandomHousehold.owner, replica: "receiver",
      wallClock: .fixed(RandomHousehold.start + 86_400_000))
    let isSkew = { (error: any Error) in
      if case .clockSkew = error as? HouseholdError { true } else { false }
    }
    let farAhead = try JSONReader.decode(
      HouseholdState.AsRead.self, from: JSONWriter.encode(ahead.state))
    #expect(farAhead.greatestTimestamp == ahead.state.greatestTimestamp)
    var refusing = receiver
    #expect { try refusing.merge(farAhead) } throws: { isSkew($0) }
    #expect { try refusing.merge(ahead.state) } throws: { isSkew($0) }
    #expect(refusing.state == receiver.state)

    let honest = try JSONReader.decode(
      HouseholdState.AsRead.self, from: JSONWriter.encode(device.state))
    var (byRead, byState) = (receiver, receiver)
    let reports = (try byRead.merge(honest), try byState.merge(device.state))
    #expect(reports.0 == reports.1 && byRead.state == byState.state)
    #expect(byRead.state.recordCount == device.state.recordCount)
  }

  /// Replica file contents as read hand their state over with the stamp found while reading
  /// it, until the state is replaced.
  @Test func fileContentsHandTheirStateOverAsRead() throws {
    let device = RandomHousehold.replicas(seed: 5)[0]
    let bytes = ReplicaFileFormat.encode(ReplicaFileContents(device))
    var contents = try ReplicaFileFormat.decode(bytes, file: URL(fileURLWithPath: "/file"))
    let read = try #require(contents.stateAsRead)
    #expect(read.greatestTimestamp == device.state.greatestTimestamp && read.state == device.state)
    contents.state = HouseholdState(householdID: device.householdID)
    #expect(contents.stateAsRead == nil)
  }

  /// The greatest timestamp of `state` as decoding a message and a journal line that hold it
  /// found it.
  static func greatestFoundInMessageAndJournalLine(holding state: HouseholdState) throws -> (
    message: HybridTimestamp??, line: HybridTimestamp??
  ) {
    let message = SyncMessage(
      household: state.householdID, sender: "late", through: 1, since: nil, recipient: nil,
      acknowledged: nil, state: state)
    let line = ReplicaJournal.encode(
      JournalEntry(sequence: 1, replica: "late", clock: nil, delta: state))
    let entries = try ReplicaJournal.decode(line, file: URL(fileURLWithPath: "/journal")).entries
    return (
      try SyncMessage(decoding: message.encoded()).greatestTimestampRead,
      try #require(entries.first).greatestTimestampRead
    )
  }

  /// The names of the maps and registers of `state` that hold `stamp`.
  static func holders(of stamp: HybridTimestamp, in state: HouseholdState) -> Set<String> {
    struct Holders: HouseholdMapVisitor {
      let state: HouseholdState
      let stamp: HybridTimestamp
      var names: Set<String> = []
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        if state[keyPath: map.records].greatestTimestamp == stamp {
          names.insert(map.field)
        }
      }
    }
    var holders = Holders(state: state, stamp: stamp)
    HouseholdState.forEachMap(&holders, carrying: state.carriedMapNames)
    if state.owner.timestamp == stamp { holders.names.insert("owner") }
    if state.dissolved.timestamp == stamp { holders.names.insert("dissolved") }
    if state.moves.greatestTimestamp == stamp { holders.names.insert("categoryMoves") }
    return holders.names
  }

  struct FieldNames: HouseholdMapVisitor {
    var names: Set<String> = []
    mutating func visit<Record>(_ map: HouseholdMap<Record>) { names.insert(map.field) }
  }
}
