import ForagerSync
import Foundation

/// A replica file as read from disk, for the tool's commands.
struct ReplicaFile {
  let url: URL
  let contents: ReplicaFileContents
  let size: Int

  /// Reads and checks the file (format, checksum, shape) without changing it; removes
  /// temporary files of its saves that were abandoned an hour or more ago.
  ///
  /// - Throws: ``ToolError`` naming the file and the problem, also when there is no file.
  static func read(_ url: URL) throws(ToolError) -> ReplicaFile {
    let store = ReplicaStore(fileURL: url)
    // A reader that does not own the file removes only what no save can still be writing.
    store.removeAbandonedLeftovers()
    let contents: ReplicaFileContents?
    do {
      contents = try store.read()
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
