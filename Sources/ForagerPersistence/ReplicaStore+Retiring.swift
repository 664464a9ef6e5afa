import Foundation

/// What a replica file and its journal were when looked at: another writer since changes one
/// of them (``FileIO/Identity``).
package struct ReplicaFilesIdentity: Sendable, Equatable {
  var snapshot: FileIO.Identity?
  var journal: FileIO.Identity?

  /// Whether a regular file of one name stood at the replica file's name.
  package var fileExists: Bool { snapshot != nil }
}

extension ReplicaStore {
  /// What the file and its journal are now; the snapshot's is `nil` when no regular file of
  /// one name stands there.
  package func filesIdentity() -> ReplicaFilesIdentity {
    ReplicaFilesIdentity(
      snapshot: FileIO.identity(of: fileURL.path), journal: FileIO.identity(of: journalURL.path))
  }

  /// Removes the file and its journal if both are still what `identity` says, so that a file
  /// another writer changed since it was read is never removed; the journal goes first, as a
  /// shared folder's snapshot replacement removes it (ADR 0028).
  ///
  /// - Returns: Whether the file was removed.
  package func remove(ifStill identity: ReplicaFilesIdentity) throws(StoreError) -> Bool {
    guard identity.fileExists, filesIdentity() == identity else { return false }
    var faults = self.faults
    do {
      if identity.journal != nil {
        try FileIO.empty(journalURL.path, removing: true, faults: &faults)
      }
      try FileIO.empty(fileURL.path, removing: true, faults: &faults)
    } catch {
      throw StoreError(file: fileURL, problem: .writeFailed(error.reason))
    }
    return true
  }
}
