import SemanticCRDT

/// The changes a replica's state went through since it opened, numbered, so that a peer that
/// has merged them up to some number is sent what follows and nothing else
/// (docs/decisions/0024): the view of the replica's ``ChangeRecord`` that sync sessions and
/// folders read, and whose number the store's save cursor follows (ADR 0039).
///
/// Every change is numbered: each local write, and each merge that changed the state. The log
/// keeps them as a short list of deltas, each the join of consecutive changes and each with the
/// number of its last one. Merged into a state that holds every change up to a number, the
/// join of the entries after it gives a state that holds every change up to ``sequence``.
///
/// The log holds deltas any replica of the household may merge, whatever it has seen, and
/// lose nothing: the deltas local writes return and the keyed deltas merges took in, which are
/// joins of writes (``HouseholdState/isKeyedDelta``); and for a merge of anything else (a full
/// state, a ``HouseholdReplica/delta(since:)``), what the merge changed
/// (``MergeDelta``, ADR 0040): the merged state restricted to the dots the merge brought and
/// those of the keys it changed, which is part of a state of the household. So a full state
/// that changed a replica is passed on to its other peers as the few records it changed, not
/// as a full state of its own.
///
/// The log is bounded. Its entries hold at most as many keys as a quarter of the state's
/// records (at least ``minimumBudget``); older ones are dropped and ``floor`` rises past them,
/// and a peer that has merged less than the floor is sent what it lacks beside the state its
/// session knows it holds (ADR 0042), or the whole state. Local writes not yet sealed into an
/// entry count too: more of them than the budget are sealed at the write (or the restore of
/// kept removals) that passes it, and so dropped. A merge that changed nothing is not a
/// change: otherwise three peers passing one write around would echo it for ever.
package struct ChangeLog: Sendable {
  /// Consecutive changes, joined.
  struct Entry: Sendable {
    /// The number of the entry's last change.
    var through: UInt64
    /// The incarnation whose message brought the changes, which has them already; `nil` for
    /// local writes and for an entry that joined changes of several origins.
    var origin: ReplicaID?
    /// The changes; `nil` for a merge whose changes weighed more than the log keeps, which
    /// it does not give again: a peer that lacks them is sent the whole state (its origin does
    /// not lack them).
    var delta: HouseholdState?
    /// The keys `delta` holds or retires: what it costs to keep, send and merge.
    var weight: Int
  }

  /// The number of the last change. Change 1 is the state the replica opened with, which the
  /// log does not hold: so a peer that acknowledges a number has merged a message that carried
  /// that state, and 0 is what a session that merged nothing of this replica would say. (Were
  /// the opening state numbered 0, a forged acknowledgment of 0 would be sent a delta without
  /// it, which a peer that merged nothing takes: `SyncSessionPropertyTests`' regression seed.)
  package private(set) var sequence: UInt64 = 1
  /// Every change after this number is held; those up to it may not be.
  package private(set) var floor: UInt64 = 1
  private var entries: [Entry] = []
  /// Local writes after the last entry, joined: made an entry by ``seal(recordCount:)``, or by
  /// the next merge, so that a write costs one join into it.
  private var pending: HouseholdState?
  /// The writes joined in `pending`: at least the keys it holds.
  private var pendingWrites = 0
  /// The budget `pending` is held to, read when its writes first pass ``minimumBudget``.
  private var pendingLimit: Int?
  private var weight = 0

  /// The versions of the state at a few of the numbers messages carried, ascending, spaced
  /// wider going back: a peer that acknowledged one of them, or a later number, holds at least
  /// that state (ADR 0042). Shared by every session of the replica.
  private var sentVersions: [(sequence: UInt64, version: HouseholdVersion)] = []
  /// The most versions kept in `sentVersions`.
  package var maximumSentVersions = 8

  /// The most entries kept: beyond it the two neighbours lightest together are joined.
  package var maximumEntries = 32
  /// The fewest keys the log may keep, however small the state (tests lower it, to reach the
  /// fallbacks with small households).
  package var minimumBudget = defaultMinimumBudget
  /// ``minimumBudget`` unless lowered: what the simulator names beside its own.
  package static let defaultMinimumBudget = 1_024

  package init() {}

  /// How many keys the log keeps for a state of `recordCount` records: a quarter of them, at
  /// least ``minimumBudget``.
  private func budget(for recordCount: Int) -> Int { max(minimumBudget, recordCount / 4) }

  /// Notes a local write, the delta `part` of one map (or register) of the state.
  mutating func noteWrite<Part: Mergeable>(
    _ part: Part, in slot: WritableKeyPath<HouseholdState, Part>, of state: HouseholdState
  ) {
    if pending == nil { pending = HouseholdState(emptyDeltaLike: state) }
    pending![keyPath: slot].merge(part)
    sequence += 1
    holdPendingToBudget(adding: 1, in: state)
  }

  /// Notes local writes made together, joined in `delta`, of `state`.
  mutating func noteWrites(_ delta: HouseholdState, of state: HouseholdState) {
    if pending == nil { pending = delta } else { pending!.merge(delta) }
    sequence += 1
    holdPendingToBudget(adding: delta.changeWeight, in: state)
  }

  /// Counts `writes` more pending writes, and seals them when they pass the budget.
  ///
  /// Writes no message has sealed yet (a device offline for long) are held to the budget too:
  /// past it they are sealed, and so dropped, as a message would. The budget is read once
  /// they pass the least one, not at every write.
  private mutating func holdPendingToBudget(adding writes: Int, in state: HouseholdState) {
    pendingWrites += writes
    guard pendingWrites > minimumBudget else { return }
    let limit = pendingLimit ?? budget(for: state.recordCount)
    pendingLimit = limit
    if pendingWrites > limit { seal(recordCount: state.recordCount) }
  }

  /// Notes a merge that changed `state`: `remote` is what was merged, as it was merged, and
  /// `changes` what it changed. A keyed delta is kept as it came; of anything else, the delta
  /// of what the merge changed, built only when the log can keep it (within its budget).
  mutating func noteMerge(
    of remote: HouseholdState, changing changes: MergeDelta, from origin: ReplicaID?,
    in state: HouseholdState
  ) {
    let recordCount = state.recordCount
    seal(recordCount: recordCount)
    sequence += 1
    let budget = budget(for: recordCount)
    let entry: (delta: HouseholdState, weight: Int)? =
      remote.isKeyedDelta
      ? (remote, remote.changeWeight)
      : changes.weight <= budget ? (changes.delta(of: state), changes.weight) : nil
    append(
      Entry(through: sequence, origin: origin, delta: entry?.delta, weight: entry?.weight ?? 0),
      budget: budget)
  }

  /// Notes that a message carries the changes up to ``sequence``: keeps the version of
  /// `state`, the replica's state at that number, for ``version(acknowledgedBy:)``. Past
  /// ``maximumSentVersions`` the version whose neighbours are nearest goes, so that the kept
  /// numbers reach back far with few versions.
  ///
  /// - Returns: The version kept, which messages that announce it carry: each map's version
  ///   that did not change since the last one kept shares its storage, and so does every
  ///   copy a peer keeps (at 50 devices, the versions sessions and logs hold were a sixth of
  ///   the simulator's memory).
  /// - Complexity: O(maps × replicas) the first time for a number, O(1) after.
  @discardableResult
  package mutating func noteSent(_ state: HouseholdState) -> HouseholdVersion {
    if let last = sentVersions.last, last.sequence == sequence { return last.version }
    var version = state.version
    if let last = sentVersions.last { version.shareStorage(with: last.version) }
    sentVersions.append((sequence, version))
    defer { dropNearestSentVersion() }
    return version
  }

  /// Past ``maximumSentVersions``, drops the kept version whose neighbours are nearest.
  private mutating func dropNearestSentVersion() {
    guard sentVersions.count > max(maximumSentVersions, 2) else { return }
    let nearest = (1..<sentVersions.count - 1).min {
      sentVersions[$0 + 1].sequence - sentVersions[$0 - 1].sequence
        < sentVersions[$1 + 1].sequence - sentVersions[$1 - 1].sequence
    }!
    sentVersions.remove(at: nearest)
  }

  /// The version of the state at the greatest number a message carried that is no greater
  /// than `acknowledged`: what a peer that acknowledged `acknowledged` holds at least (the
  /// state at a number only grows). `nil` when none is kept.
  ///
  /// - Complexity: O(``maximumSentVersions``).
  package func version(acknowledgedBy acknowledged: UInt64) -> HouseholdVersion? {
    sentVersions.last { $0.sequence <= acknowledged }?.version
  }

  /// Makes the local writes not yet in an entry one, so that a later delta that starts after
  /// them leaves them out.
  ///
  /// - Parameter recordCount: The state's, which bounds the log.
  package mutating func seal(recordCount: Int) {
    guard let pending else { return }
    self.pending = nil
    pendingWrites = 0
    pendingLimit = nil
    append(
      Entry(through: sequence, origin: nil, delta: pending, weight: pending.changeWeight),
      budget: budget(for: recordCount))
  }

  /// Gives up the changes held: the state changed by more than a keyed delta (a full state
  /// merged, a journal replayed under it), so every peer is sent the whole state next.
  mutating func forgetChanges() {
    sequence += 1
    floor = sequence
    entries = []
    pending = nil
    pendingWrites = 0
    pendingLimit = nil
    weight = 0
  }

  /// The unsealed local writes the log holds past the budget read for them, named; `nil`
  /// when every path that noted them held them to it. (Tests check it after every step; a
  /// test that lowers ``minimumBudget`` seals first.)
  package var budgetViolation: String? {
    let limit = pendingLimit ?? minimumBudget
    guard pendingWrites > limit else { return nil }
    return "\(pendingWrites) unsealed writes, past the budget of \(limit)"
  }

  /// The join of the changes after `start`, leaving out entries `recipient` brought, as a
  /// delta of `state`'s household: empty when there are none. `nil` when the log no longer
  /// holds every change after `start` that `recipient` lacks, or `start` is past the last.
  ///
  /// - Complexity: O(size of the entries after `start`).
  package func delta(
    after start: UInt64, for recipient: ReplicaID?, of state: HouseholdState
  ) -> HouseholdState? {
    guard start >= floor, start <= sequence else { return nil }
    var delta = HouseholdState(emptyDeltaLike: state)
    for entry in entries.reversed() {
      guard entry.through > start else { break }
      if recipient != nil && entry.origin == recipient { continue }
      guard let changes = entry.delta else { return nil }
      delta.merge(changes)
    }
    if let pending, start < sequence { delta.merge(pending) }
    return delta
  }

  private mutating func append(_ entry: Entry, budget: Int) {
    entries.append(entry)
    weight += entry.weight
    while weight > budget, let oldest = entries.first {
      entries.removeFirst()
      weight -= oldest.weight
      floor = oldest.through
    }
    guard entries.count > maximumEntries else { return }
    // Joining the lightest neighbours costs least and keeps the rest of the history as fine as
    // it was.
    let lightest = entries.indices.dropLast().min {
      entries[$0].weight + entries[$0 + 1].weight < entries[$1].weight + entries[$1 + 1].weight
    }!
    let earlier = entries.remove(at: lightest)
    if let changes = earlier.delta, entries[lightest].delta != nil {
      entries[lightest].delta!.merge(changes)
    } else {
      entries[lightest].delta = nil
    }
    entries[lightest].weight += earlier.weight
    if entries[lightest].origin != earlier.origin { entries[lightest].origin = nil }
  }
}

extension HouseholdState {
  /// Whether every map of this state is a delta that names the keys it retires (see
  /// ``HouseholdReplica/takeLocalDelta()``): a join of writes, which any replica may merge.
  package var isKeyedDelta: Bool {
    struct Keyed: HouseholdMapVisitor {
      let state: HouseholdState
      var all = true
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        all = all && state[keyPath: map.records].kernel.isKeyedDelta
      }
    }
    var keyed = Keyed(state: self)
    Self.forEachMap(&keyed, carrying: carriedMapNames)
    return keyed.all && categoryMoves?.kernel.isKeyedDelta != false
  }

  /// The keys this state holds or, as a delta, names as retired, in every map: what keeping,
  /// sending and merging it costs.
  var changeWeight: Int {
    struct Weigh: HouseholdMapVisitor {
      let state: HouseholdState
      var total = 0
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        let kernel = state[keyPath: map.records].kernel
        total += kernel.entries.count + (kernel.retiredKeys?.count ?? 0)
      }
    }
    var weigh = Weigh(state: self)
    Self.forEachMap(&weigh, carrying: carriedMapNames)
    return weigh.total + (categoryMoves?.count ?? 0)
  }
}
