import ForagerSync
import Foundation

/// `forager-sync merge`: the join of replica files of one household, saved atomically as a new
/// replica file.
enum Merging {
  /// Reads every input first; refuses, writing nothing, when one is damaged, of another
  /// household, keyed by a newer normalizer or carries a timestamp too far ahead.
  ///
  /// - Returns: The merged replica, saved at `output` under a fresh incarnation, with the
  ///   first input's member.
  @discardableResult
  static func merge(_ inputs: [URL], into output: URL) throws(ToolError) -> HouseholdReplica {
    var files: [ReplicaFile] = []
    for url in inputs { files.append(try ReplicaFile.read(url)) }
    let household = files[0].contents.state.householdID
    for file in files.dropFirst() where file.contents.state.householdID != household {
      throw .refused(
        "\(file.url.path) belongs to household \(file.contents.state.householdID), not \(household) like \(files[0].url.path); nothing written"
      )
    }
    var (store, opened) = try files[0].open(savingTo: output)
    var replica = opened
    for file in files.dropFirst() {
      do {
        try replica.merge(
          file.contents.state, from: nil, greatestTimestamp: file.contents.greatestTimestampRead)
      } catch {
        throw .refused("\(file.url.path): \(error); nothing written")
      }
    }
    do {
      let lock = try store.lock()
      defer { withExtendedLifetime(lock) {} }
      store.removeLeftovers()
      try store.save(replica)
    } catch {
      throw .refused(error.description)
    }
    return replica
  }
}
