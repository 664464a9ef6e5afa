import ForagerSync
import Foundation

/// A replica file as read from disk, for the tool's commands.
struct ReplicaFile {
  let url: URL
  let contents: ReplicaFileContents
  let size: Int

  /// Reads and checks the file (format, checksum, shape) and the journal beside it without
  /// changing either; removes temporary files of its saves that were abandoned an hour or more
  /// ago. The contents hold the household with the journal's entries replayed: what the app
  /// that owns the file sees.
  ///
  /// - Throws: ``ToolError`` naming the file and the problem, also when there is no file.
  static func read(_ url: URL) throws(ToolError) -> ReplicaFile {
    let store = ReplicaStore(fileURL: url)
    // A reader that does not own the file removes only what no save can still be writing.
    store.removeAbandonedLeftovers()
    var contents: ReplicaFileContents?
    do {
      contents = try store.read()
      if let read = contents, let journal = try store.readJournal(),
        let last = journal.entries.last, last.sequence > read.journalSequence
      {
        var reader = store
        let replica = try reader.open(
          read, journal: journal, file: url, household: read.state.householdID,
          member: read.member, wallClock: .system, incarnation: ReplicaStore.mintReplicaID())
        contents?.state = replica.state
        contents?.journalSequence = last.sequence
      }
    } catch {
      throw .refused(error.description)
    }
    guard let contents else { throw .refused("\(url.path): no such file") }
    let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    return ReplicaFile(url: url, contents: contents, size: size)
  }

  /// The replica of this file, opened as the store opens it, under a fresh incarnation, and a
  /// store that saves it to `destination` with the envelope fields of this file that this build
  /// does not know written back.
  func open(savingTo destination: URL) throws(ToolError) -> (ReplicaStore, HouseholdReplica) {
    var store = ReplicaStore(fileURL: destination)
    do {
      let replica = try store.open(
        contents, file: url, household: contents.state.householdID, member: contents.member,
        wallClock: .system, incarnation: ReplicaStore.mintReplicaID())
      return (store, replica)
    } catch {
      throw .refused(error.description)
    }
  }
}
