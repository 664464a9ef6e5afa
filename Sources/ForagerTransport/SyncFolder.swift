import ForagerModel
import ForagerPersistence
import Foundation

/// The folder transport: a folder that a file-sync service (iCloud Drive, Dropbox, Syncthing, a
/// network share) keeps the same on every device. Each device writes only its own file there,
/// `<deviceName>.forager.json`, reads everyone else's and merges them. Merging is a join, so
/// the order, timing and repetition of what the service delivers do not matter, and the files
/// are full states, which any incarnation may merge (docs/decisions/0007).
///
/// Every entry of the folder is from outside: a file not downloaded yet, a partial download, a
/// temporary file, a service's conflicted copy, a damaged file, a newer build's, another
/// household's. Each is skipped with a ``Skip`` saying why, or merged when it is a replica
/// of the household; nothing is trapped on and nothing local changes for a skipped file.
///
/// ```swift
/// let folder = try SyncFolder(
///   url: iCloudDocuments.appending(path: "Household"), deviceName: "Sam's iPhone")
/// let outcome = try await store.sync(through: folder)
/// ```
public struct SyncFolder: Sendable {
  /// The shared folder.
  public let url: URL
  /// This device's name in the folder: its file is `<deviceName>.forager.json`.
  public let deviceName: String
  /// How files are read and written while a service may be changing them.
  public let coordination: any FileCoordinating
  /// The largest peer file read (``ReplicaStore/maximumFileSize``).
  public var maximumFileSize = ReplicaStore.defaultMaximumFileSize

  /// - Parameters:
  ///   - deviceName: A plain file name (no `/`, `\`, NUL, not starting with `.`), unique among
  ///     the household's devices.
  ///   - coordination: ``FileCoordination/system`` by default: `NSFileCoordinator` on Apple
  ///     platforms.
  /// - Throws: ``SyncFolderError/notAPlainName(_:)``.
  public init(
    url: URL, deviceName: String, coordination: any FileCoordinating = FileCoordination.system
  ) throws(SyncFolderError) {
    guard Self.isPlainName(deviceName) else { throw .notAPlainName(deviceName) }
    self.url = url
    self.deviceName = deviceName
    self.coordination = coordination
  }

  /// This device's file in the folder.
  public var ownFileName: String { deviceName + Self.fileSuffix }

  /// What every device's file in the folder ends with.
  public static let fileSuffix = ".forager.json"
}

// MARK: - Syncing

/// What one sync through a folder did.
public struct FolderSyncOutcome: Equatable, Sendable {
  /// The peer files merged, by name.
  public var merged: [String] = []
  /// The entries not merged, each with why. Skipping loses nothing: the next sync reads them
  /// again.
  public var skipped: [SyncFolder.Skip] = []
  /// Merged files that a sync service made as conflicted copies: safe, since merging is a
  /// join, and worth telling because a service that makes them may be misconfigured.
  public var conflictedCopies: [String] = []
  /// This device's file in the folder, written at the end.
  public var wrote = ""

  public init() {}
}

extension SyncFolder {
  /// Merges every readable replica file of `household` in the folder with `merge`, in name
  /// order, skipping this device's own file and every entry that is not one to merge now.
  ///
  /// - Throws: ``SyncFolderError/notAFolder(_:)`` when the folder is missing or a file.
  public func mergePeerFiles(
    of household: HouseholdID, with merge: (HouseholdState) throws(HouseholdError) -> Void
  ) throws(SyncFolderError) -> FolderSyncOutcome {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder),
      isFolder.boolValue
    else { throw .notAFolder(url) }
    var outcome = FolderSyncOutcome()
    let entries = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    for entry in entries where entry != ownFileName && entry.contains(".forager") {
      // A save or download in progress, ours or the service's: not a skip worth telling.
      if Self.isTemporary(entry) { continue }
      if let reason = Skip.Reason(entry: entry) {
        outcome.skipped.append(Skip(entry: entry, reason: reason))
        continue
      }
      let contents: ReplicaFileContents
      do {
        contents = try read(entry)
      } catch {
        outcome.skipped.append(Skip(entry: entry, reason: .unreadable(error)))
        continue
      }
      guard contents.state.householdID == household else {
        outcome.skipped.append(
          Skip(entry: entry, reason: .otherHousehold(contents.state.householdID)))
        continue
      }
      do {
        try merge(contents.state)
      } catch {
        outcome.skipped.append(Skip(entry: entry, reason: .refused(error)))
        continue
      }
      outcome.merged.append(entry)
      if entry.lowercased().contains("conflict") { outcome.conflictedCopies.append(entry) }
    }
    return outcome
  }

  /// Reads a peer's file through the coordination.
  private func read(_ entry: String) throws(StoreError) -> ReplicaFileContents {
    let file = url.appendingPathComponent(entry)
    let contents: ReplicaFileContents?
    do {
      contents = try coordination.coordinateReading(file) { coordinated in
        var store = ReplicaStore(fileURL: coordinated)
        store.maximumFileSize = maximumFileSize
        // Not this device's file: only temporary files no save can still be writing go.
        store.removeAbandonedLeftovers()
        return try store.read()
      }
    } catch let error as StoreError {
      throw error
    } catch {
      throw StoreError(file: file, problem: .unreadable(error.localizedDescription))
    }
    guard let contents else {
      throw StoreError(file: file, problem: .unreadable("it was removed while the folder was read"))
    }
    return contents
  }

  /// Writes `replica` as this device's file in the folder, atomically, through the
  /// coordination.
  ///
  /// - Throws: ``StoreError`` naming the folder's file; the previous file stays.
  public func publish(_ replica: HouseholdReplica) throws(StoreError) {
    try publish(replica, like: ReplicaStore(fileURL: url.appendingPathComponent(ownFileName)))
  }

  /// ``publish(_:)`` writing the envelope fields `store` carries (those of a file a newer
  /// build wrote) beside the replica.
  package func publish(_ replica: HouseholdReplica, like store: ReplicaStore) throws(StoreError) {
    let file = url.appendingPathComponent(ownFileName)
    do {
      try coordination.coordinateWriting(file) { coordinated in
        var target = store.relocated(to: coordinated)
        // Temporary files of this device's saves that were killed midway.
        target.removeLeftovers()
        try target.save(replica)
      }
    } catch let error as StoreError {
      throw error
    } catch {
      throw StoreError(file: file, problem: .writeFailed(error.localizedDescription))
    }
  }

  /// Merges the folder's peer files into `replica`, then publishes it.
  public func sync(_ replica: inout HouseholdReplica) throws(SyncFolderError) -> FolderSyncOutcome {
    try sync(household: replica.householdID) { state throws(HouseholdError) in
      try replica.merge(state)
    } merged: {
      replica
    }
  }

  /// One sync: merges the peer files of `household` with `merge`, then publishes what `merged`
  /// gives.
  func sync(
    household: HouseholdID, merge: (HouseholdState) throws(HouseholdError) -> Void,
    merged: () -> HouseholdReplica
  ) throws(SyncFolderError) -> FolderSyncOutcome {
    var outcome = try mergePeerFiles(of: household, with: merge)
    do {
      try publish(merged())
    } catch {
      throw .publishFailed(error)
    }
    outcome.wrote = ownFileName
    return outcome
  }
}

extension HouseholdStore {
  /// Merges the folder's peer files into this store's replica (each merge announced and saved
  /// as ``merge(_:policy:)`` does), then publishes the replica as this device's file there.
  /// Runs on the store, one sync or edit at a time.
  public func sync(through folder: SyncFolder) throws(SyncFolderError) -> FolderSyncOutcome {
    try folder.sync(household: householdID) { state throws(HouseholdError) in
      try merge(state)
    } merged: {
      replica
    }
  }
}

// MARK: - Entries

extension SyncFolder {
  /// An entry of the folder that a sync did not merge, and why.
  public struct Skip: Equatable, Sendable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
      /// An iCloud placeholder (`.name.icloud`): the file is not downloaded yet.
      case notDownloaded
      /// A partial download (`.part`, `.partial`, `.crdownload`, `.download`, `.tmp`, `~`).
      case partialDownload
      /// A name with `.forager` that is not a replica file (`.json`).
      case notAReplicaFile
      /// The file cannot be read as a replica file: damaged, newer, too large, unsound.
      case unreadable(StoreError)
      /// A replica of another household.
      case otherHousehold(HouseholdID)
      /// The merge refused it (a forged or skewed state, a mass removal).
      case refused(HouseholdError)

      /// Why an entry that is not a temporary file is not to be read, judged by its name
      /// alone; `nil` to read it. The hidden files left are iCloud placeholders.
      init?(entry: String) {
        if entry.hasPrefix(".") {
          self = .notDownloaded
          return
        }
        for partial in [".part", ".partial", ".crdownload", ".download", ".tmp", "~"]
        where entry.hasSuffix(partial) {
          self = .partialDownload
          return
        }
        guard entry.hasSuffix(".json") else {
          self = .notAReplicaFile
          return
        }
        return nil
      }
    }

    /// The entry's name in the folder.
    public let entry: String
    public let reason: Reason

    public var description: String {
      switch reason {
      case .notDownloaded: "\(entry): a placeholder of a file not downloaded yet (skipped)"
      case .partialDownload: "\(entry): a partial download (skipped)"
      case .notAReplicaFile: "\(entry): not a replica file (.json) (skipped)"
      case .unreadable(let error): "\(error.description) (skipped)"
      case .otherHousehold(let household):
        "\(entry): a replica of household \(household), not this one (skipped)"
      case .refused(let error): "\(entry): \(error) (skipped)"
      }
    }
  }

  /// Whether `entry` is a hidden file other than an iCloud placeholder: a temporary file of a
  /// save or download in progress, ours or the service's.
  static func isTemporary(_ entry: String) -> Bool {
    entry.hasPrefix(".") && !entry.hasSuffix(".icloud")
  }

  /// Whether `name` names a file in the folder and nothing else: a name with a path component
  /// would write outside it.
  public static func isPlainName(_ name: String) -> Bool {
    !name.isEmpty && !name.hasPrefix(".") && !name.contains("/") && !name.contains("\\")
      && !name.contains("\0")
  }
}

/// Why a sync through a folder stopped. What it merged before stays merged.
public enum SyncFolderError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The device name is not a plain file name.
  case notAPlainName(String)
  /// The folder is missing, or a file.
  case notAFolder(URL)
  /// This device's file could not be written into the folder.
  case publishFailed(StoreError)

  public var description: String {
    switch self {
    case .notAPlainName(let name):
      "\(name.debugDescription) must be a plain file name: no / or \\, not . or .., not starting with ."
    case .notAFolder(let url): "\(url.path) is not a folder"
    case .publishFailed(let error): error.description
    }
  }
}
