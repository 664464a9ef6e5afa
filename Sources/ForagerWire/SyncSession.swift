import ForagerModel
import SemanticCRDT

/// One peer as this replica syncs with it by messages: which of the peer's changes this
/// replica has merged, and which of this replica's the peer has, so that each message carries
/// what the peer lacks and costs what changed (docs/decisions/0024).
///
/// Each replica numbers its changes (its change log). A message says the number of the
/// sender's last change (``SyncMessage/through``) and acknowledges the receiver's
/// (``SyncMessage/acknowledged``). Once the peer has acknowledged a number, the next message
/// is a delta: the changes after it, leaving out those the peer itself sent. Between replicas
/// that have merged each other's changes it is empty.
///
/// A delta is a join of writes (the change log holds nothing else), so merging it loses nothing
/// anywhere. But it is complete only for a receiver that has merged the sender's changes up to
/// where it starts, and a receiver that took an incomplete one as complete would acknowledge
/// changes it never got, which no one would send again. A delta starts at a number the
/// receiver's incarnation acknowledged, whose state only grows, so for that incarnation it is
/// complete. For any other it may not be (docs/decisions/0007: a device restored from an old
/// backup comes back as a new incarnation that has seen less), so a delta is addressed to the
/// incarnation that acknowledged its start, and a receiving session discards a delta addressed
/// to another. A new incarnation has acknowledged nothing: it is sent what it lacks beside the
/// full state it sent (that incarnation holds at least that state), a delta that starts at the
/// sender's first change (`since` 0; docs/decisions/0041), or the full state while it has sent
/// none. A peer whose acknowledgment the change log no longer reaches is sent what this replica
/// holds beyond its state when it sent that number, as a delta that starts there
/// (docs/decisions/0042).
///
/// A session that announces (``init(announcingVersions:)``) opens with its replica's version
/// instead of its whole state (an announcement), and a peer answers with what this replica
/// lacks beside it; to a peer that announces too, the version goes with each message until the
/// peer acknowledges one. Two such sessions exchange no full state at all
/// (docs/decisions/0043). Builds before format 4 refuse such messages: announce only in a
/// household whose devices all run a build that reads format 4.
///
/// An announcement to a peer not heard from is compact (format 5, ``SyncMessage/isCompact``);
/// so is every message to a peer that wrote one, and no other (docs/decisions/0044). A peer
/// that reads format 4 at most refuses that first announcement, is answered in format 4 once
/// it speaks, and is announced to in format 4 from then on; two peers of this build write
/// compactly to each other from the first answer.
///
/// ```swift
/// var session = SyncSession()                   // one per peer, for as long as the link lasts
/// send(session.message(from: &replica).encoded())
/// // … on bytes from that peer:
/// try session.receive(SyncMessage(decoding: bytes), into: &replica)
/// ```
///
/// Messages may be lost, repeated and reordered: merging is a join, a delta starts at what the
/// receiver acknowledged, so a lost one is sent again in the next, and what the session learns
/// only grows.
public struct SyncSession: Sendable {
  /// The peer's incarnation last heard from, and the changes each side has merged.
  public private(set) var peer: PeerProgress?
  /// The incarnation of this replica that the peer's acknowledgments are about.
  private var local: ReplicaID?
  /// How many acknowledgments this session ignored because they named a change this session
  /// never sent the peer (a forged acknowledgment, or one that answers a forged `through`):
  /// each would have made the next deltas skip changes for good.
  public private(set) var ignoredAcknowledgments = 0
  /// The greatest ``SyncMessage/through`` this session put in a message: no peer can have
  /// merged more of this replica's changes through it.
  private var sentThrough: UInt64 = 0
  /// What the peer's incarnation held when it sent the last full state this replica merged: it
  /// holds at least that still (an incarnation's state only grows), so what this replica has
  /// beyond it is all that incarnation lacks. `nil` until a full state of `peer` is merged or
  /// a version of it learned.
  private var peerHeld: HouseholdVersion?
  /// Whether the next message must be the whole state: an acknowledgment was ignored, and only
  /// a full state sets back what the peer holds of this replica (a version it announces since
  /// does not).
  private var owesFullState = false
  /// Whether the peer's incarnation answered this replica's incarnation without its version:
  /// it does not announce, and only a full state gives it what this replica holds.
  private var answeredWithoutVersion = false
  /// Whether the peer's incarnation sent a version (format 4): it reads format 4, so this
  /// replica's version may go with what it is sent. A peer that opened with its whole state may
  /// be a build before format 4, and is sent format 3.
  private var peerAnnounces = false
  /// Whether the peer's incarnation sent a compact message (format 5): it reads format 5, so
  /// every message to it is compact (docs/decisions/0044).
  private var peerReadsCompact = false

  /// Whether the session opens with its replica's version rather than its whole state, and
  /// sends that version while the peer has acknowledged nothing (format 4 messages).
  public let announcesVersions: Bool
  /// How many versions of the peer's this session ignored because they claimed writes of this
  /// replica's incarnation that it never made, or more writes of a replica than any device
  /// makes (a forged version): each would have left those writes out of what the peer is sent.
  public private(set) var ignoredVersions = 0

  /// A session with a peer not heard from yet.
  ///
  /// - Parameter announcingVersions: Whether the first message is the replica's version (an
  ///   announcement, format 4) rather than its whole state (format 3), and messages carry the
  ///   version while the peer has acknowledged nothing. A build before format 4 refuses such a
  ///   message (``SyncMessageError/newerFormat(found:supported:)``), losing nothing but
  ///   receiving nothing: turn it on once every device of the household runs a build that reads
  ///   format 4. A session that does not announce still reads and answers announcements.
  public init(announcingVersions: Bool = false) {
    announcesVersions = announcingVersions
  }

  /// What to send the peer now: a delta of the changes after the last one it acknowledged,
  /// addressed to its incarnation. When the change log no longer reaches that one, a delta that
  /// starts there of what this replica holds beyond its state when it sent that number (or an
  /// earlier one), if it knows that state. While the peer has acknowledged none, the delta of
  /// what this replica holds beyond the last full state or version of that incarnation's it
  /// learned, starting at change 0, with this replica's version when the session announces.
  /// Otherwise the full state, or, to a peer not heard from, this replica's version when the
  /// session announces (``SyncMessage/isAnnouncement``). To a peer that wrote format 5 it is
  /// compact (``SyncMessage/isCompact``), and so is an announcement to a peer not heard from.
  /// Making it marks the local writes it carries, so that the next delta after them leaves them
  /// out, and notes the last change it carries, past which no acknowledgment is taken, and in
  /// the change log the version of the state it carries; the state does not change.
  ///
  /// - Complexity: O(size of the changes the peer lacks) for a delta from the log; a delta
  ///   beside what the peer held also visits the blocks of 64 writes it held
  ///   (``HouseholdReplica/delta(since:)``); O(size of the state) for a full state. Reading the
  ///   state's version, once per change number, is O(maps × replicas).
  public mutating func message(from replica: inout HouseholdReplica) -> SyncMessage {
    replica.changes.log.seal(recordCount: replica.state.recordCount)
    let through = replica.changes.log.sequence
    sentThrough = max(sentThrough, through)
    let version = replica.changes.log.noteSent(replica.state)
    func full() -> SyncMessage {
      owesFullState = false
      return SyncMessage(
        household: replica.householdID, sender: replica.replicaID, through: through, since: nil,
        recipient: peer?.replica, acknowledged: peer?.merged, state: replica.state,
        compact: peerReadsCompact)
    }
    // Compact to a peer not heard from, so that it learns this replica reads format 5; to one
    // heard from, only if it wrote format 5 (it may be a build that reads format 4 at most).
    func announcement() -> SyncMessage {
      SyncMessage(
        household: replica.householdID, sender: replica.replicaID, through: through, since: nil,
        recipient: peer?.replica, acknowledged: peer?.merged, state: nil,
        senderVersion: version, compact: peer == nil || peerReadsCompact)
    }
    guard let peer else { return announcesVersions ? announcement() : full() }
    func delta(
      _ delta: HouseholdState?, since start: UInt64, senderVersion: HouseholdVersion? = nil
    ) -> SyncMessage {
      let empty = delta.map { $0 == HouseholdState(emptyDeltaLike: replica.state) } ?? true
      return SyncMessage(
        household: replica.householdID, sender: replica.replicaID, through: through,
        since: start, recipient: peer.replica, acknowledged: peer.merged,
        state: empty ? nil : delta, senderVersion: senderVersion, compact: peerReadsCompact)
    }
    if local == replica.replicaID, let start = peer.acknowledged {
      if let changes = replica.changes.log.delta(
        after: start, for: peer.replica, of: replica.state)
      {
        return delta(changes, since: start)
      }
      // The log no longer reaches `start`, but the peer holds at least this replica's state
      // when it sent a number up to `start` (ADR 0042): what this replica has beyond that. It
      // still starts at `start`, so that a peer told a forged acknowledgment refuses it as it
      // refuses any delta that starts past what it merged.
      if var held = replica.changes.log.version(acknowledgedBy: start) {
        if let peerHeld { held.merge(peerHeld) }
        return delta(replica.delta(since: held), since: start)
      }
    }
    // After an ignored acknowledgment only the whole state sets back what the peer holds of
    // this replica, whatever version it sent since.
    if owesFullState { return full() }
    // A peer heard from whose version is not known (it sent none yet, or one this session
    // ignored) is told this replica's, until it answers without its own (it does not announce):
    // then the whole state goes.
    guard let peerHeld else {
      return announcesVersions && !answeredWithoutVersion ? announcement() : full()
    }
    return delta(
      replica.delta(since: peerHeld), since: 0,
      senderVersion: announcesVersions && peerAnnounces ? version : nil)
  }

  /// Merges a message from the peer into `replica` and learns what each side has merged, and
  /// the version the peer's incarnation holds at least (its full state's, or the one it
  /// announced: ``SyncMessage/senderVersion``). An announcement merges nothing. A version that
  /// claims writes of this replica's incarnation it never made, or more writes of a replica
  /// than any device makes, is ignored (``ignoredVersions``).
  ///
  /// - Returns: What the merge did, or `nil` when the message was a delta addressed to another
  ///   incarnation of this replica (an earlier one, before a restart) and was discarded.
  /// - Throws: What ``HouseholdReplica/merge(_:policy:)-(HouseholdState,_)`` throws,
  ///   ``HouseholdError/differentHousehold(local:remote:)`` for another household's message,
  ///   and ``HouseholdError/deltaSkipsChanges(since:merged:)`` for a delta that starts after
  ///   the last change of the peer's this replica merged (this replica's next message
  ///   acknowledges that one, and the peer sends from there; of such a delta only the
  ///   sender's incarnation is learned). Nothing else is applied or learned when it throws.
  @discardableResult
  public mutating func receive(
    _ message: SyncMessage, into replica: inout HouseholdReplica, policy: MergePolicy = .default
  ) throws(HouseholdError) -> MergeReport? {
    guard message.household == replica.householdID else {
      throw .differentHousehold(local: replica.householdID, remote: message.household)
    }
    // A message of another incarnation than the one known starts afresh: a restarted peer
    // may have seen less than its earlier self.
    let samePeer = peer?.replica == message.sender
    var progress = samePeer ? peer! : PeerProgress(replica: message.sender)
    if local != replica.replicaID { progress.acknowledged = nil }
    // A delta starts at a change this incarnation acknowledged, so it holds everything this
    // replica lacks; one for another incarnation may not.
    let mayMerge = !message.isDelta || message.recipient == replica.replicaID
    // One that starts after the last change merged would leave the ones between missing for
    // good, once acknowledged: the sender was told a forged acknowledgment. Refused; this
    // replica's next message acknowledges what it merged, and the sender starts there.
    if mayMerge, let since = message.since, since > (progress.merged ?? 0) {
      // Learned: the sender's incarnation, so that the next message is addressed to it.
      peer = progress
      hear(message, samePeer: samePeer)
      local = replica.replicaID
      throw .deltaSkipsChanges(since: since, merged: progress.merged ?? 0)
    }
    var report: MergeReport?
    if mayMerge {
      report =
        try message.state.map { state throws(HouseholdError) in
          try replica.merge(
            state, policy: policy, from: message.sender,
            greatestTimestamp: message.greatestTimestampRead)
        } ?? MergeReport()
      // A full state holds every change up to its `through` and promises nothing past it: a
      // number above it, learned from a forged `through`, goes, so that this replica stops
      // acknowledging changes the sender never sent (which it ignores) and deltas resume. An
      // announcement holds none of them.
      if message.isDelta {
        progress.merged = max(progress.merged ?? 0, message.through)
      } else if !message.isAnnouncement {
        progress.merged = message.through
      }
    }
    hear(message, samePeer: samePeer)
    if local != replica.replicaID { answeredWithoutVersion = false }
    if mayMerge, !message.isDelta, let state = message.state { peerHeld = state.version }
    if message.isDelta, message.recipient == replica.replicaID, message.senderVersion == nil {
      answeredWithoutVersion = true
    }
    if let version = message.senderVersion {
      // The sender's incarnation held that version when it sent it, and holds at least as much
      // now: joined with what was known.
      if version.claimsMoreWrites(of: replica.replicaID, than: replica.state) {
        ignoredVersions += 1
      } else {
        peerHeld = peerHeld.map { $0.merging(version) } ?? version
        peerAnnounces = true
      }
    }
    if message.recipient == replica.replicaID {
      // No peer can have merged a change this session never sent it: such an acknowledgment is
      // forged, or answers a forged `through` (one just ahead that this replica's changes then
      // overtook), and obeying it would start every later delta after changes the peer never
      // got, which no one would send again. Any other is the peer's word as it last said it,
      // lower ones and none included: a lower one only has changes sent again (none: the whole
      // state), and it is how a peer that refused a delta starting past what it merged gets
      // the changes between.
      if let acknowledged = message.acknowledged,
        acknowledged > min(sentThrough, replica.changes.log.sequence)
      {
        // The next message is the whole state, which sets what the peer holds of this replica
        // back to what it was sent, so that its acknowledgments count again (a delta, even
        // one from change 0, would not: a receiver keeps the greater number).
        ignoredAcknowledgments += 1
        progress.acknowledged = nil
        peerHeld = nil
        owesFullState = true
      } else {
        progress.acknowledged = message.acknowledged
      }
    }
    peer = progress
    local = replica.replicaID
    return report
  }

  /// Learns from `message` the format its sender reads, after forgetting what the session
  /// learned of the peer's incarnation if another one speaks: a restarted peer may have seen
  /// less than its earlier self (ADR 0007), and may run another build.
  private mutating func hear(_ message: SyncMessage, samePeer: Bool) {
    if !samePeer {
      peerHeld = nil
      peerAnnounces = false
      answeredWithoutVersion = false
      peerReadsCompact = false
    }
    if message.isCompact { peerReadsCompact = true }
  }
}

/// One incarnation of a peer, and how far each side has merged the other's changes.
public struct PeerProgress: Equatable, Sendable {
  /// The incarnation.
  public let replica: ReplicaID
  /// The number of its last change this replica has merged; `nil` when none.
  public var merged: UInt64?
  /// The number of this replica's last change it has merged, as it acknowledged; `nil` when
  /// it has acknowledged none.
  public var acknowledged: UInt64?

  public init(replica: ReplicaID, merged: UInt64? = nil, acknowledged: UInt64? = nil) {
    self.replica = replica
    self.merged = merged
    self.acknowledged = acknowledged
  }
}
