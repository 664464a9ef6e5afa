import Foundation
import SemanticCRDT
import SemanticCRDTJSON

/// One device's copy of a household: its replica id, its member, its hybrid clock, and the
/// replicated ``HouseholdState``. Every change goes through here, so each write is stamped by
/// this replica's clock, and every merge is checked before it is applied.
///
/// ```swift
/// var phone = HouseholdReplica.create(household: id, owner: me, ownerName: "Sam")
/// var tablet = HouseholdReplica(joining: id, member: me)
/// phone.getOrCreateCategory(displayName: "Produce")
/// tablet.getOrCreateCategory(displayName: "produce ")
/// try tablet.merge(phone.state)
/// tablet.categories().count   // 1
/// ```
public struct HouseholdReplica: Sendable {
  /// The replicated state.
  public internal(set) var state: HouseholdState
  /// The member using this device.
  public let member: MemberID
  /// This replica's clock; its replica id names every write made here.
  public internal(set) var clock: HybridClock
  /// What merges removed, oldest first, kept for a restore (see ``RemovedRecords``).
  package var removals: [RemovedRecords] = []
  /// What this replica's writes and merges changed, noted once each: for its views, its
  /// journal, and (in its numbered log) the sync sessions and folders that send its changes.
  package var changes = ChangeRecord()
  /// This device's earlier incarnations, oldest first. Only this device made their writes,
  /// but one may have gone on after the file this replica opened was saved (the file was a
  /// backup, or the app crashed after sending writes it had not saved), so a claim on them
  /// is taken for forged only past what no device writes (docs/decisions/0029).
  package var pastIncarnations: [ReplicaID] = []
  /// Where the id of a fresh incarnation comes from (``moveToFreshIncarnation()``): the system's
  /// random numbers when `nil`, as in every app; a seeded generator's state in the simulator,
  /// whose runs must repeat byte for byte.
  package var incarnationSeed: UInt64?
  /// Whether a merge checks the incoming state's claims: refuses one past what any device
  /// writes, and answers one on this device's own writes (docs/decisions/0029). Always in an
  /// app; the simulator turns it off to show that its hostile peer finds what a replica that
  /// trusts every claim loses.
  package var checksClaims = true

  /// The records this replica's own edits changed since ``takeLocalChanges()`` last took them.
  public var localChanges: HouseholdChange { changes.shown }
  /// This replica's id.
  public var replicaID: ReplicaID { clock.replica }
  /// The household.
  public var householdID: HouseholdID { state.householdID }

  /// Opens a replica of an existing state (for example, loaded from its file). A state keyed
  /// by an older normalizer is re-keyed with the current rules (see
  /// ``HouseholdState/rekeyed(to:)``); one keyed by a newer normalizer is kept as it is, and
  /// merging it elsewhere is refused.
  ///
  /// - Complexity: O(*n*) for *n* records whose writes' counters are dense (the usual case;
  ///   O(*n* log *n*) otherwise): the replica indexes its records' writes by replica and
  ///   counter (ADR 0026), so that ``delta(since:)`` and merging small deltas cost what they
  ///   change.
  public init(state: HouseholdState, member: MemberID, clock: HybridClock) {
    self.state = state.normalizerVersion < .current ? state.rekeyed(to: .current) : state
    self.member = member
    self.clock = clock
    self.state.indexLiveDots()
  }

  /// A replica that keeps the normalizer version of `state`, as a build of that version would:
  /// for tests of mixed-version households.
  package init(olderBuild state: HouseholdState, member: MemberID, clock: HybridClock) {
    self.state = state
    self.member = member
    self.clock = clock
    self.state.indexLiveDots()
  }

  /// A replica on a new device of an existing household: empty until it merges a peer.
  ///
  /// - Parameter replica: This replica's id; leave the default, a fresh random one. Never pass
  ///   an id another replica has used.
  public init(
    joining household: HouseholdID, member: MemberID, replica: ReplicaID = .random(),
    wallClock: WallClock = .system
  ) {
    self.init(
      state: HouseholdState(householdID: household), member: member,
      clock: HybridClock(replica: replica, wallClock: wallClock))
  }

  /// Creates a household with `owner` as its owner and first member.
  ///
  /// - Parameter replica: This replica's id; leave the default, a fresh random one. Never pass
  ///   an id another replica has used.
  public static func create(
    household: HouseholdID = HouseholdID(), owner: MemberID, ownerName: String,
    replica: ReplicaID = .random(), wallClock: WallClock = .system
  ) -> HouseholdReplica {
    var replica = HouseholdReplica(
      joining: household, member: owner, replica: replica, wallClock: wallClock)
    let creation = replica.creation()
    replica.noteWrite(
      replica.state.owner.assign(owner, at: creation.timestamp), in: \.owner, showing: .nothing)
    replica.write(
      \.members, owner, Member(id: owner, name: ownerName, role: .owner, creation: creation))
    return replica
  }

  /// A creation record for a write made now.
  mutating func creation() -> Creation {
    Creation(timestamp: clock.tick(), member: member)
  }

  /// Returns the records this replica's own edits changed since the last call, and starts
  /// noting afresh: an app (or a store that owns the replica) calls it after a batch of edits to tell its
  /// views. Merges report what they changed in ``MergeReport/changes``.
  ///
  /// - Complexity: O(1); noting costs O(1) per record written.
  public mutating func takeLocalChanges() -> HouseholdChange {
    changes.takeShown()
  }

  /// Returns the changes this replica's own edits made since the last call, as one delta, and
  /// starts collecting afresh: `nil` when there were none.
  ///
  /// Merged into the state this replica had at the last call (or at its start), the delta
  /// gives the state it has now, byte for byte; merged into any replica of the household it
  /// brings these edits. It names the records it removes, so merging it costs what the edits
  /// do, not what the household holds. A store appends it to its journal; a transport can send
  /// it to peers that had everything else.
  ///
  /// - Complexity: O(1); collecting costs O(1) per record written.
  public mutating func takeLocalDelta() -> HouseholdState? {
    changes.takeDelta()
  }

  /// Returns what this replica's own edits changed since the last take, the records for its
  /// views and the delta for its journal together, and starts noting afresh: what a store
  /// takes after each edit. The change log numbered the same writes as they were made.
  ///
  /// - Complexity: O(1).
  package mutating func takeLocalEdit() -> LocalEdit {
    changes.take()
  }

  /// Notes one local write, `part`, the delta of the map (or register) `slot`, and what it
  /// changed that a view shows.
  mutating func noteWrite<Part: Mergeable>(
    _ part: Part, in slot: WritableKeyPath<HouseholdState, Part>, showing shown: ChangeRecord.Shown
  ) {
    changes.noteWrite(part, in: slot, of: state, showing: shown)
  }

  /// Changes an existing record as a new write of this replica, replacing the writes of it
  /// this replica has seen (their merged value is where the change starts). No-op when the
  /// record is absent.
  mutating func edit<Record: MappedRecord>(
    _ map: WritableKeyPath<HouseholdState, ORMap<Record.Key, Record>>, _ key: Record.Key,
    _ body: (inout Record) -> Void
  ) {
    guard let previous = state[keyPath: map][key] else { return }
    var record = previous
    body(&record)
    write(map, key, record, replacing: previous)
  }

  /// Writes `record` under `key` as a new write of this replica, and notes the change for
  /// ``takeLocalChanges()``. Every local write of a record goes through here or ``remove(_:_:)``.
  mutating func write<Record: MappedRecord>(
    _ map: WritableKeyPath<HouseholdState, ORMap<Record.Key, Record>>, _ key: Record.Key,
    _ record: Record
  ) {
    write(map, key, record, replacing: state[keyPath: map][key])
  }

  /// ``write(_:_:_:)`` for a caller that has read the record's value already.
  private mutating func write<Record: MappedRecord>(
    _ map: WritableKeyPath<HouseholdState, ORMap<Record.Key, Record>>, _ key: Record.Key,
    _ record: Record, replacing previous: Record?
  ) {
    let written = state[keyPath: map].set(key, to: record, by: replicaID)
    // A write of the value the record shows already (checking a checked item), or one whose
    // value loses to what the record holds (a stamp behind it), changes nothing a view shows.
    let showsSame =
      previous.flatMap { previous in state[keyPath: map][key].map(previous.showsSame) }
      ?? false
    noteWrite(
      written, in: map,
      showing: showsSame ? .nothing : .record(key.notedKey, existed: previous != nil, exists: true))
  }

  /// Removes the record under `key`, if any, and notes the change.
  mutating func remove<Record: MappedRecord>(
    _ map: WritableKeyPath<HouseholdState, ORMap<Record.Key, Record>>, _ key: Record.Key
  ) {
    guard state[keyPath: map].contains(key) else { return }
    noteWrite(
      state[keyPath: map].remove(key), in: map,
      showing: .record(key.notedKey, existed: true, exists: false))
  }

  /// Writes the record under `key` in the carried map `map` (ADR 0037) as `edit` leaves it,
  /// starting from `created` where the key holds none, both given this write's stamp: how the
  /// simulator's newer build writes the records of the kind it adds. An app of this build
  /// never writes a carried record; it carries those of newer builds.
  package mutating func editCarried(
    _ map: String, _ key: CarriedKey, created: (HybridTimestamp) -> CarriedRecord,
    _ edit: (inout CarriedRecord, HybridTimestamp) -> Void
  ) throws(HouseholdError) {
    try requireOpen()
    let stamp = clock.tick()
    let previous = state[carried: map][key]
    var record = previous ?? created(stamp)
    edit(&record, stamp)
    changes.carryKeyed(map, of: state)
    write(\.[carried: map], key, record, replacing: previous)
  }

  func requireOpen() throws(HouseholdError) {
    if state.dissolved.value { throw .householdDissolved(householdID) }
  }

  /// Refuses a name that shows nothing; see ``HouseholdError/blankName(_:)``.
  func requireVisible(_ name: String) throws(HouseholdError) {
    if isBlank(name) { throw .blankName(name) }
  }
}
