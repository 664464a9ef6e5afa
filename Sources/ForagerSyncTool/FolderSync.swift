import ForagerSync
import Foundation

/// The folder transport: a folder that a file-sync service (iCloud Drive, Dropbox, Syncthing, a
/// network share) keeps the same on every device. Each device writes only its own file there,
/// reads everyone else's and merges them; merging is a join, so the order, timing and
/// repetition of what the service delivers do not matter, and no transactions are needed.
enum FolderSync {
  /// What one sync did.
  struct Outcome {
    /// The files merged into this replica.
    var merged: [String] = []
    /// Files skipped, each with why: not downloaded yet, partial, damaged, newer, another
    /// household's. Skipping loses nothing: the next sync reads them again.
    var warnings: [String] = []
    /// This device's file in the folder.
    var wrote = ""
  }

  /// Merges every readable replica file of the household in `folder` into the replica at
  /// `replicaFile`, saves it, and writes its state into the folder as `<name>.forager.json`.
  ///
  /// Several devices may run this on one folder at the same time: each replaces only its own
  /// file, atomically, and a file being replaced is read whole, old or new. One process at a
  /// time may use a given replica file.
  ///
  /// - Parameter name: This device's name in the folder; by default the replica file's name
  ///   without `.json` and `.forager`.
  static func sync(folder: URL, replicaFile: URL, name: String? = nil) throws(ToolError) -> Outcome
  {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder),
      isFolder.boolValue
    else { throw .refused("\(folder.path) is not a folder") }
    if let name, !isPlainName(name) {
      throw .usage(
        "--name \(name.debugDescription) must be a plain file name: no / or \\, not . or .., not starting with ."
      )
    }
    // Held to the end: another process syncing this replica now would overwrite what this one
    // saves, or this one what it saved.
    let lock: ReplicaFileLock
    do {
      lock = try ReplicaStore(fileURL: replicaFile).lock()
    } catch {
      throw .refused(error.description)
    }
    defer { withExtendedLifetime(lock) {} }
    let own = try ReplicaFile.read(replicaFile)
    let (store, opened) = try own.open(savingTo: replicaFile)
    var replica = opened
    let household = replica.householdID
    let ownName = (name ?? deviceName(of: replicaFile)) + ".forager.json"
    let folderCopy = store.relocated(to: folder.appendingPathComponent(ownName))
    // Temporary files of this device's saves that were killed midway.
    store.removeLeftovers()
    folderCopy.removeLeftovers()
    var outcome = Outcome()
    let entries =
      ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    for entry in entries where entry != ownName && entry.contains(".forager") {
      if let reason = skipReason(entry) {
        if !reason.isEmpty { outcome.warnings.append("\(entry): \(reason) (skipped)") }
        continue
      }
      let url = folder.appendingPathComponent(entry)
      let file: ReplicaFile
      do {
        file = try ReplicaFile.read(url)
      } catch {
        outcome.warnings.append("\(error.message) (skipped)")
        continue
      }
      guard file.contents.state.householdID == household else {
        outcome.warnings.append(
          "\(entry): a replica of household \(file.contents.state.householdID), not \(household) (skipped)"
        )
        continue
      }
      do {
        try replica.merge(file.contents.state)
      } catch {
        outcome.warnings.append("\(entry): \(error) (skipped)")
        continue
      }
      outcome.merged.append(entry)
      if entry.lowercased().contains("conflict") {
        outcome.warnings.append(
          "\(entry): a sync service's conflicted copy, merged (safe: merging is a join)")
      }
    }
    do {
      try store.save(replica)
      try folderCopy.save(replica)
    } catch {
      throw .refused(error.description)
    }
    outcome.wrote = ownName
    return outcome
  }

  /// Whether `name` names a file in the folder and nothing else: a name with a path component
  /// would write outside it.
  static func isPlainName(_ name: String) -> Bool {
    !name.isEmpty && !name.hasPrefix(".") && !name.contains("/") && !name.contains("\\")
      && !name.contains("\0")
  }

  /// `phone.forager.json` → `phone`.
  static func deviceName(of file: URL) -> String {
    var name = file.lastPathComponent
    for suffix in [".json", ".forager"] where name.hasSuffix(suffix) {
      name.removeLast(suffix.count)
    }
    return name
  }

  /// Why a folder entry is not a replica file to read now, or `nil` to read it. An empty
  /// reason skips silently (our own temporary files and those of the sync service).
  static func skipReason(_ entry: String) -> String? {
    if entry.hasPrefix(".") {
      if entry.hasSuffix(".icloud") { return "a placeholder of a file not downloaded yet" }
      return ""  // a temporary file of a save in progress, ours or the sync service's
    }
    for partial in [".part", ".partial", ".crdownload", ".download", ".tmp", "~"]
    where entry.hasSuffix(partial) {
      return "a partial download"
    }
    guard entry.hasSuffix(".json") else { return "not a replica file (.json)" }
    return nil
  }
}
