import SemanticCRDT

/// One peer as this replica syncs with it by messages: what the peer's current incarnation is
/// known to have seen, so that each message carries only what it lacks.
///
/// A delta is computed for one incarnation of its receiver and is discarded by any other
/// (docs/decisions/0007): a device restored from an old backup comes back as a new
/// incarnation that may have seen less, and a delta computed for its old self could tell it
/// that writes were superseded without carrying the writes that superseded them. The session
/// keeps that rule by construction: it sends a delta only to the incarnation whose version it
/// heard, addresses it there, and a full state to a peer it has not heard from; a receiving
/// session discards a delta addressed to another incarnation.
///
/// ```swift
/// var session = SyncSession()                   // one per peer, for as long as the link lasts
/// send(session.message(from: replica).encoded())
/// // … on bytes from that peer:
/// try session.receive(SyncMessage(decoding: bytes), into: &replica)
/// ```
///
/// Messages may be lost, repeated and reordered: merging is a join, and what the session
/// learns only grows.
public struct SyncSession: Sendable {
  /// The peer's incarnation last heard from, and what its state had seen: the join of the
  /// versions its messages carried.
  public private(set) var peer: PeerVersion?

  /// A session with a peer not heard from yet: its first message is a full state.
  public init() {}

  /// What to send the peer now: a delta since what its current incarnation has seen,
  /// addressed to that incarnation, or the full state while no incarnation has been heard
  /// from. A delta with nothing in it (``SyncMessage/carriesChanges`` is `false`) still tells
  /// the peer this replica's version.
  ///
  /// - Complexity: O(size of the state) for a full state; a delta visits every key.
  public func message(from replica: HouseholdReplica) -> SyncMessage {
    let version = replica.state.version
    guard let peer else {
      return SyncMessage(
        sender: replica.replicaID, senderVersion: version, recipient: nil, state: replica.state)
    }
    return SyncMessage(
      sender: replica.replicaID, senderVersion: version, recipient: peer.replica,
      state: replica.delta(since: peer.version) ?? HouseholdState(emptyLike: replica.state))
  }

  /// Merges a message from the peer into `replica` and learns what the peer has seen.
  ///
  /// - Returns: What the merge did, or `nil` when the message was a delta addressed to another
  ///   incarnation of this replica (an earlier one, before a restart) and was discarded.
  /// - Throws: What ``HouseholdReplica/merge(_:policy:)`` throws, another household's message
  ///   included. Nothing is applied or learned when it throws.
  @discardableResult
  public mutating func receive(
    _ message: SyncMessage, into replica: inout HouseholdReplica, policy: MergePolicy = .default
  ) throws(HouseholdError) -> MergeReport? {
    guard message.state.householdID == replica.householdID else {
      throw .differentHousehold(local: replica.householdID, remote: message.state.householdID)
    }
    var report: MergeReport?
    if message.recipient == nil || message.recipient == replica.replicaID {
      report = try replica.merge(message.state, policy: policy)
    }
    learn(message)
    return report
  }

  /// Takes in what the sender had seen. A message of another incarnation than the one known
  /// replaces the knowledge: a restarted peer may have seen less than its earlier self.
  mutating func learn(_ message: SyncMessage) {
    if var known = peer, known.replica == message.sender {
      known.version.merge(message.senderVersion)
      peer = known
    } else {
      peer = PeerVersion(replica: message.sender, version: message.senderVersion)
    }
  }
}

/// What one incarnation of a peer is known to have seen.
public struct PeerVersion: Equatable, Sendable {
  /// The incarnation.
  public let replica: ReplicaID
  /// The join of the versions its messages carried.
  public var version: HouseholdVersion

  public init(replica: ReplicaID, version: HouseholdVersion) {
    self.replica = replica
    self.version = version
  }
}
