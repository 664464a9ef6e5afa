import SemanticCRDT

/// What a replica's own writes and its merges changed: noted here once per write and once per
/// merge, and read by three consumers, each at its own pace.
///
/// - An app's views read ``shown``: which records the local edits changed, as a
///   ``HouseholdChange`` (a merge reports its own in ``MergeReport/changes``).
/// - The journal reads ``delta``: the join of the local writes' deltas, appended as one line.
/// - Sync sessions and shared folders read ``log``: every change numbered, local writes and
///   merges alike, from which each takes what its peer has not acknowledged.
///
/// ``take()`` gives the first two together, as one ``LocalEdit``: what a store announces and
/// saves after an edit. Each view keeps a join of its own because each is emptied at another
/// moment (views after an edit, the journal after a save, the log when a peer is sent its
/// changes), and a join cannot be split back into the writes it joined.
package struct ChangeRecord: Sendable {
  /// The records the local writes changed since ``take()`` or ``takeShown()``.
  package private(set) var shown = HouseholdChange(origin: .local)
  /// The join of the local writes' deltas since ``take()`` or ``takeDelta()``; `nil` when
  /// there are none.
  package private(set) var delta: HouseholdState?
  /// Every change since the replica opened, numbered.
  package var log = ChangeLog()

  package init() {}

  /// What a local write changed that a view shows.
  enum Shown {
    /// Nothing a view shows: the value shown is the one it had, or the record is of a kind
    /// this build does not show.
    case nothing
    /// The household's own registers.
    case household
    /// The record `key` names, which existed (or not) before the write and exists (or not)
    /// after it.
    case record(RecordKey?, existed: Bool, exists: Bool)
  }

  /// Notes one local write: `part`, its delta of the map (or register) `slot` of `state`, and
  /// what it changed that a view shows.
  mutating func noteWrite<Part: Mergeable>(
    _ part: Part, in slot: WritableKeyPath<HouseholdState, Part>, of state: HouseholdState,
    showing shown: Shown
  ) {
    if delta == nil { delta = HouseholdState(emptyDeltaLike: state) }
    delta![keyPath: slot].merge(part)
    log.noteWrite(part, in: slot, of: state)
    switch shown {
    case .nothing: break
    case .household: self.shown.householdChanged = true
    case .record(let key, let existed, let exists):
      self.shown.note(key, existed: existed, exists: exists)
    }
  }

  /// Notes local writes made together: `writes`, their joined delta of `state`, and `shown`,
  /// what they changed that a view shows.
  mutating func noteWrites(
    _ writes: HouseholdState, of state: HouseholdState, showing shown: HouseholdChange
  ) {
    if delta == nil { delta = writes } else { delta!.merge(writes) }
    log.noteWrites(writes, of: state)
    self.shown.formUnion(shown)
  }

  /// Makes the journal's delta carry the map `map` of `state` (ADR 0037) as a delta that names
  /// the keys it retires, as the maps of this build are, before its first write there.
  mutating func carryKeyed(_ map: String, of state: HouseholdState) {
    if delta == nil { delta = HouseholdState(emptyDeltaLike: state) }
    if delta![carried: map].holdsNothing { delta![carried: map] = .emptyDelta }
  }

  /// Notes a merge that changed the state
  /// (``ChangeLog/noteMerge(of:changing:from:in:)``).
  mutating func noteMerge(
    of remote: HouseholdState, changing changes: MergeDelta, from origin: ReplicaID?,
    in state: HouseholdState
  ) {
    log.noteMerge(of: remote, changing: changes, from: origin, in: state)
  }

  /// Returns what the local writes changed since the last take, and starts afresh.
  mutating func take() -> LocalEdit {
    LocalEdit(change: takeShown(), delta: takeDelta())
  }

  /// Returns ``shown`` and starts it afresh.
  mutating func takeShown() -> HouseholdChange {
    defer { shown = HouseholdChange(origin: .local) }
    return shown
  }

  /// Returns ``delta`` and starts it afresh.
  mutating func takeDelta() -> HouseholdState? {
    defer { delta = nil }
    return delta
  }
}

/// What one edit (or batch of edits) of a replica changed, taken once
/// (``HouseholdReplica/takeLocalEdit()``): the views' event and the journal's line come from
/// it, and the change log numbered the same writes as they were made.
package struct LocalEdit: Sendable {
  /// The records the edit changed, for the views.
  package var change: HouseholdChange
  /// The join of its writes' deltas, for the journal; `nil` when it wrote nothing.
  package var delta: HouseholdState?
}
