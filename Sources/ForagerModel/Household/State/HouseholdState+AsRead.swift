import SemanticCRDT

extension HouseholdState {
  /// A household state as read from bytes, with the greatest timestamp its reader found as it
  /// read each record.
  ///
  /// A merge checks an incoming state's greatest timestamp against the clock's skew bound. A
  /// ``HouseholdState`` made in memory is scanned for it, a pass over every record; a state
  /// merged as read is not, since its reader found the stamp while each record was in cache.
  /// Read one with `JSONReader.decode(HouseholdState.AsRead.self, from:cores:)` and merge it
  /// with the `merge` of ``HouseholdReplica`` or `HouseholdStore` that takes one. Only this
  /// library makes one, from the stamp its reader found (or, for a file of the first draft
  /// format, which kept none, from a scan), so its stamp is always its state's.
  public struct AsRead: Equatable, Sendable {
    /// The state read.
    public let state: HouseholdState
    /// The state's ``HouseholdState/greatestTimestamp``, found while reading it; `nil` for a
    /// state without stamps.
    public let greatestTimestamp: HybridTimestamp?

    /// A state and its greatest timestamp, which the caller found while reading the state.
    package init(state: HouseholdState, greatestTimestamp: HybridTimestamp?) {
      self.state = state
      self.greatestTimestamp = greatestTimestamp
    }
  }
}
