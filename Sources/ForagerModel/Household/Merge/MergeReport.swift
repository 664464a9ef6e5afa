import SemanticCRDT

/// What a merge did.
public struct MergeReport: Hashable, Sendable {
  /// Records that arrived under keys this replica did not have.
  public var recordsAdded = 0
  /// Records that arrived under keys this replica already had, and merged into them (for
  /// example the same category created offline on two devices).
  public var recordsMerged = 0
  /// Records removed by removals this replica had not seen.
  public var recordsRemoved = 0
  /// Slots that hold concurrent recipe assignments after the merge and did not before.
  public var newConflicts: [SlotKey] = []
  /// Which records the merge added, updated and removed: what a view showing them refreshes.
  public var changes = HouseholdChange(origin: .peer)
  /// This device's incarnations whose writes the state claimed beyond what they made: it was
  /// forged, or relayed a forgery (docs/decisions/0029).
  public var forgedClaims: [ReplicaID] = []
  /// Records (and category moves) written again because they held writes of ``forgedClaims``,
  /// so that peers that took the claims receive them again.
  public var reissuedRecords = 0

  public init() {}
}

extension MergeReport {
  /// Counts one key whose writes a merge changed. A key whose value changed counts as merged
  /// only when the remote holds it: a key only this replica holds can lose a concurrent write
  /// the remote saw overwritten, which is not a record arriving. Values are read (and compared)
  /// only for such keys.
  mutating func count<Key, Value: Equatable>(_ change: ORMap<Key, Value>.Change) {
    if change.wasAbsent {
      if !change.isAbsent { recordsAdded += 1 }
    } else if change.isAbsent {
      recordsRemoved += 1
    } else if change.otherHoldsKey && change.before != change.after {
      recordsMerged += 1
    }
  }
}
