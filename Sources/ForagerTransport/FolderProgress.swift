import ForagerModel
import ForagerPersistence
import SemanticCRDT

/// Where one replica stands in a shared folder: what it last published there, and how far it
/// has read each peer's files. With it, a sync appends to this device's journal only what
/// changed since it last published, and reads of each peer's journal only the lines it has not
/// read (docs/decisions/0024). Without it (a new ``FolderProgress``) a sync publishes and
/// reads whole states, as the first sync of every launch does.
///
/// A `HouseholdStore` keeps one per folder for its life; an app that syncs a
/// `HouseholdReplica` itself through the folder transport keeps one beside it.
public struct FolderProgress: Sendable {
  /// This device's files in the folder as last written.
  package struct Publication: Sendable {
    /// The replica incarnation that wrote them: a new one starts with a snapshot.
    package var incarnation: ReplicaID
    /// The number of the replica's last change they hold (its change log's).
    package var through: UInt64
    /// The store of this device's file in the folder, which knows its journal's length and
    /// last sequence.
    package var store: ReplicaStore

    package init(incarnation: ReplicaID, through: UInt64, store: ReplicaStore) {
      self.incarnation = incarnation
      self.through = through
      self.store = store
    }
  }

  /// A peer's files as last read.
  package struct PeerCursor: Sendable, Equatable {
    /// The incarnation that wrote the snapshot merged, and the last journal sequence it holds.
    /// A journal whose first line follows it belongs to that snapshot.
    package var snapshotReplica: ReplicaID
    package var snapshotSequence: UInt64
    /// Where the next unread line of its journal starts.
    package var journalOffset: Int

    package init(snapshotReplica: ReplicaID, snapshotSequence: UInt64, journalOffset: Int) {
      self.snapshotReplica = snapshotReplica
      self.snapshotSequence = snapshotSequence
      self.journalOffset = journalOffset
    }
  }

  package var publication: Publication?
  /// The greatest journal sequence this device's publications reached in the folder, even
  /// those that failed part-way; `nil` before the first. A publication that starts over with
  /// a snapshot numbers it past this one, so that no reader takes it for a snapshot it read.
  package var publishedSequence: UInt64?
  /// Failures the next publications meet on this device's disk (tests and the simulator);
  /// none in an app.
  package var faults = FileFaults()
  /// By the peer's file name.
  package var peers: [String: PeerCursor] = [:]

  /// A replica that has published nothing and read nothing in the folder.
  public init() {}
}
