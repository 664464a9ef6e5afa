import Foundation
import SemanticCRDT
import SemanticCRDTJSON

// How a replica takes in a state from outside: checked, re-keyed, claims answered, merged in
// place, and what it did reported.

extension HouseholdReplica {
  /// Merges a state received from another replica of this household.
  ///
  /// A state keyed by an older normalizer version is re-keyed to this replica's version first,
  /// so records whose keys now collide merge. Every state from outside is checked before
  /// anything is applied: the result must be sound, and it must not remove more than `policy`
  /// allows.
  ///
  /// A state that claims writes of this device's incarnations it never made (``replicaID`` or
  /// an earlier one) is forged, or relays a forgery: the claim makes every replica that merged
  /// it drop this device's later writes as already seen, or remove its records. Before the
  /// merge, the records holding those incarnations' writes are written again
  /// (``MergeReport/reissuedRecords``), under a fresh incarnation when this one's future was
  /// claimed, so that the claim names none of their dots and they reach every peer again; then
  /// the state merges, claim included, which now harms nothing (``MergeReport/forgedClaims``,
  /// docs/decisions/0029).
  ///
  /// - Parameters:
  ///   - remote: A full state or a delta.
  ///   - policy: What the merge may remove; ``MergePolicy/default`` refuses removing more than
  ///     half the live records, the owner or every member.
  /// - Returns: What the merge added, merged and surfaced. The records it removed are kept
  ///   for ``MergePolicy/keepsRemovedRecordsFor`` (see ``recentlyRemoved``).
  /// - Throws: ``HouseholdError/differentHousehold(local:remote:)`` for another household's
  ///   state, ``HouseholdError/newerNormalizer(found:supported:)`` for a state keyed by rules
  ///   this build does not know, ``HouseholdError/clockSkew(_:)`` for a timestamp too far
  ///   ahead, ``HouseholdError/unsoundMerge(_:)``,
  ///   ``HouseholdError/massRemoval(removed:live:)``,
  ///   ``HouseholdError/removesOwnerOrEveryMember`` and
  ///   ``HouseholdError/tooManyReplicas(_:maximum:)``. Nothing is applied when it throws.
  /// - Complexity: O(*m*) hash lookups over the records of `remote` when it is a delta that
  ///   names the keys it removes (see ``takeLocalDelta()``), O(*n* + *m*) over both states'
  ///   records otherwise; then the model's invariants on the records it changed (and on every
  ///   reference when it removed a referenced record or changed a move). The merge is made in
  ///   place and undone when refused.
  @discardableResult
  public mutating func merge(_ remote: HouseholdState, policy: MergePolicy = .default)
    throws(HouseholdError) -> MergeReport
  {
    try merge(remote, policy: policy, from: nil)
  }

  /// ``merge(_:policy:)-(HouseholdState,_)`` of a state as read from bytes: its greatest
  /// timestamp, found while reading it, is checked against the skew bound without a second
  /// pass over its records.
  @discardableResult
  public mutating func merge(_ remote: HouseholdState.AsRead, policy: MergePolicy = .default)
    throws(HouseholdError) -> MergeReport
  {
    try merge(
      remote.state, policy: policy, from: nil, greatestTimestamp: .some(remote.greatestTimestamp))
  }

  /// ``merge(_:policy:)-(HouseholdState,_)`` of a state the incarnation `origin` sent, which
  /// has it already: the change log leaves it out of what it gives that incarnation.
  ///
  /// - Parameter greatestTimestamp: `remote`'s greatest timestamp when the code that decoded it
  ///   found it while reading (`.some(nil)` for a state without stamps), so that the state is
  ///   not scanned for it again (ADR 0027); `nil` when it is not known.
  @discardableResult
  package mutating func merge(
    _ remote: HouseholdState, policy: MergePolicy = .default, from origin: ReplicaID?,
    greatestTimestamp: HybridTimestamp?? = nil
  ) throws(HouseholdError) -> MergeReport {
    try requireMergeable(remote)
    let implausible = checksClaims ? remote.implausibleClaims : []
    // A claim past what any device writes is forged, whoever it names: refused by every
    // replica, so that none relays it and none drops a device's writes as already seen, which
    // the device could not write again had it lost them to a restore from a backup. Unless
    // this state carries it already (an earlier build merged it): that one is answered below.
    if let (replica, claimed) = implausible.first(where: { claim in
      state.greatestClaim(of: claim.replica) < claim.claimed
    }) {
      throw .implausibleClaim(replica, claimed: claimed)
    }
    let (claimed, reissued) = answerClaims(in: remote, implausible: implausible)
    let remote = remote.rekeyed(to: state.normalizerVersion)
    let observed = try clockObserving(
      remote, greatestTimestamp: greatestTimestamp, cores: policy.checkingCores)
    var merge = try mergeInPlace(remote, policy: policy)
    let problems = state.modelViolations(after: merge.recheck, cores: policy.checkingCores)
    if !problems.isEmpty {
      merge.undo.apply(to: &state)
      // A state saved by an older build may carry problems of its own: only those the merge
      // brings refuse it. Then the merge is made again, to keep.
      let brought = problemsBrought(problems)
      if !brought.isEmpty { throw .unsoundMerge(Array(brought.prefix(3))) }
      merge = try mergeInPlace(remote, policy: policy)
    }
    clock = observed
    keep(merge.removed.records, policy: policy)
    var report = merge.report
    report.forgedClaims = claimed
    report.reissuedRecords = reissued
    if merge.undo.changedState {
      changes.noteMerge(of: remote, changing: merge.changes, from: origin, in: state)
    }
    return report
  }

  /// Refuses a state neither a merge nor a replay can take: another household's, or one keyed
  /// by a normalizer this build does not know.
  private func requireMergeable(_ remote: HouseholdState) throws(HouseholdError) {
    guard remote.householdID == householdID else {
      throw .differentHousehold(local: householdID, remote: remote.householdID)
    }
    guard remote.normalizerVersion <= NormalizerVersion.current else {
      throw .newerNormalizer(found: remote.normalizerVersion, supported: .current)
    }
  }

  /// Answers `remote`'s claims on this device's own incarnations (`implausible` being its
  /// claims past what any device writes). This device made every write of its incarnations: a
  /// claim beyond them is forged, and whoever merged it drops those writes as seen or removes
  /// them. So before merging, the records holding their writes are written again under an
  /// incarnation no claim names (this one, or a fresh one when this one's future was
  /// claimed). The claim itself then harms nothing and merges like the rest, so that every
  /// device converges (docs/decisions/0029).
  ///
  /// - Returns: The incarnations claimed, and how many records were written again.
  private mutating func answerClaims(
    in remote: HouseholdState, implausible: [(replica: ReplicaID, claimed: UInt64)]
  ) -> (claimed: [ReplicaID], reissued: Int) {
    guard checksClaims else { return ([], 0) }
    let claimed = claimedIncarnations(by: remote, implausible: implausible)
    return (claimed, answer(claimed: Set(claimed)))
  }

  /// Writes again the records holding live writes of the `claimed` incarnations, under a fresh
  /// incarnation when this one's is claimed.
  ///
  /// - Returns: How many records were written again.
  private mutating func answer(claimed: Set<ReplicaID>) -> Int {
    guard !claimed.isEmpty else { return 0 }
    if claimed.contains(replicaID) { moveToFreshIncarnation() }
    return reissueWrites(of: claimed)
  }

  /// Answers, once and after the last line, the claims on this device's incarnations that
  /// replaying its journal found (``replay(_:clockReading:policy:claimed:)``): the records
  /// holding their live writes are written again, as new local changes that the next save
  /// keeps and sessions send. Answered line by line, every open wrote the same records again
  /// (a later line holds the writes an earlier open made, and the claim is still in the
  /// journal), so two opens of the same files gave two households.
  package mutating func answerReplayedClaims(_ claimed: Set<ReplicaID>) {
    _ = answer(claimed: claimed)
  }

  /// A merge made in place: what it reports, what the invariants recheck, what it removed, how
  /// to undo it, and what it changed as a delta.
  private struct InPlaceMerge {
    var report = MergeReport()
    var recheck = RecordsToRecheck()
    var removed: RemovalCollector
    var undo = MergeUndo()
    var changes = MergeDelta()
  }

  /// Merges `remote` (re-keyed already) into the state in place, so that it costs what it
  /// changes (a copy would copy every map it writes), counting what it removes; what the
  /// policy reads of the state before it is taken first, and a merge the policy refuses is
  /// undone before it throws.
  private mutating func mergeInPlace(_ remote: HouseholdState, policy: MergePolicy)
    throws(HouseholdError) -> InPlaceMerge
  {
    let before = MergePolicy.Before(state)
    var merge = InPlaceMerge(removed: RemovalCollector(household: householdID))
    state.merge(
      remote, reporting: &merge.report, recheck: &merge.recheck, removed: &merge.removed,
      undo: &merge.undo, changes: &merge.changes)
    do {
      try policy.check(removing: merge.removed.removalsMade, from: before, leaving: state)
    } catch {
      merge.undo.apply(to: &state)
      throw error
    }
    return merge
  }

  /// Merges a change this device's own store kept for the replica (an entry of its journal),
  /// as opening reads the replica's file, through the checks a peer's state meets: refused for
  /// another household or a newer normalizer, its stamps (and `clockReading`, the writer's
  /// clock) within the skew bound, claims on this device's own writes added to `claimed` (the
  /// caller answers them after the last entry, ``answerReplayedClaims(_:)``; ADR 0029), its
  /// removals within `policy` (a store of this build
  /// writes a snapshot instead of a line that would remove more, see
  /// ``HouseholdState/removesBeyond(_:leaving:)``), and re-keyed to this replica's
  /// normalizer. A line is bytes on a disk that other programs can write too. The model's
  /// invariants are the caller's to check, once, after the last entry.
  ///
  /// - Parameter greatestTimestamp: `delta`'s greatest timestamp as its reader found it
  ///   (``merge(_:policy:from:greatestTimestamp:)``); `nil` when it is not known.
  /// - Complexity: O(size of `delta`) for a delta of edits (see ``takeLocalDelta()``), plus
  ///   the policy's check of the contexts' intervals.
  package mutating func replay(
    _ delta: HouseholdState, clockReading: (wallMilliseconds: UInt64, logical: UInt32)?,
    greatestTimestamp: HybridTimestamp?? = nil, policy: MergePolicy = .default,
    claimed: inout Set<ReplicaID>
  ) throws(HouseholdError) {
    try requireMergeable(delta)
    var observed = try clockObserving(delta, greatestTimestamp: greatestTimestamp)
    if let clockReading {
      do {
        try observed.observe(
          HybridTimestamp(
            wallMilliseconds: clockReading.wallMilliseconds, logical: clockReading.logical,
            replica: replicaID))
      } catch {
        throw .clockSkew(error)
      }
    }
    if checksClaims {
      claimed.formUnion(claimedIncarnations(by: delta, implausible: delta.implausibleClaims))
    }
    let delta = delta.rekeyed(to: state.normalizerVersion)
    // A line of this build's edits names the few keys it removes: merged as it is, then
    // checked for the replica and interval bounds. Any other is counted and checked as a
    // peer's state is, and undone when refused.
    if delta.removesWithin(policy, of: state.recordCount) {
      let before = MergePolicy.Before(state)
      state.merge(delta)
      try policy.check(removing: 0, from: before, leaving: state)
    } else {
      _ = try mergeInPlace(delta, policy: policy)
    }
    clock = observed
    changes.log.forgetChanges()
  }

  /// This replica's clock after observing the greatest timestamp in `incoming`, a state from
  /// outside (a peer's, or records kept in the file): refused past the skew bound. The
  /// greatest timestamp is `known` when the state's reader found it; otherwise `incoming` is
  /// scanned for it.
  func clockObserving(
    _ incoming: HouseholdState, greatestTimestamp known: HybridTimestamp?? = nil,
    cores: Cores = .one
  ) throws(HouseholdError) -> HybridClock {
    var observed = clock
    if let greatest = known ?? incoming.greatestTimestamp(cores: cores) {
      do {
        try observed.observe(greatest)
      } catch {
        throw .clockSkew(error)
      }
    }
    return observed
  }

  /// Of `problems`, found in a state this replica would change to, those its current state
  /// does not have already: a state saved by an older build may carry its own. The current
  /// state is checked only when there is something to compare.
  func problemsBrought(_ problems: [String]) -> [String] {
    guard !problems.isEmpty else { return [] }
    let known = Set(state.modelViolations())
    return problems.filter { !known.contains($0) }
  }

  /// The part of this replica's state that a peer whose state has seen `version` lacks: the
  /// writes it has not seen, and the writes within `version` that are gone here, as intervals
  /// (ADR 0002). Merging it into such a peer gives what merging the whole state gives.
  ///
  /// - Complexity: O(*c* + *b*) for *c* records with writes the peer has not seen and *b*
  ///   blocks of 64 events within `version` (the replica indexes its writes, ADR 0026), plus
  ///   one interval per run of removed writes within `version`. A `SyncSession` sends less:
  ///   nothing between equal replicas.
  public func delta(since version: HouseholdVersion) -> HouseholdState? {
    state.delta(since: version)
  }
}
