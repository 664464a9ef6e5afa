import ForagerModel
import Foundation

/// An app in the background holds no lock (ADR 0034).
///
/// iOS kills a suspended app that holds a file lock in a container it shares with an extension
/// or a widget (an App Group; termination reason `0xdead10cc`). A store holds its file's lock
/// while it runs, so an app calls ``suspend()`` when it leaves the foreground and ``resume()``
/// when it returns:
///
/// ```swift
/// .onChange(of: scenePhase) { _, phase in
///   Task {
///     if phase == .background { try? await store.suspend() }
///     if phase == .active { try? await store.resume() }
///   }
/// }
/// ```
///
/// While suspended, another process (the widget) may open the file, change it and close it; the
/// store takes in what it wrote when it resumes, so nothing either saved is lost. One writer at a
/// time still holds: a store cannot resume while another holds the file.
extension HouseholdStore {
  /// Saves every change made so far, then releases the file's lock. Until ``resume()`` the
  /// store saves nothing: edits and merges still apply and are announced, and are saved after
  /// it resumes; ``flush()`` throws ``StoreError/Problem/suspended`` when there is something
  /// to save.
  ///
  /// - Throws: The ``StoreError`` of a save that failed; the store then stays resumed, holding
  ///   its lock, and the changes stay in memory.
  public func suspend() async throws(StoreError) {
    guard !isSuspended else { return }
    // Each flush waits for the saves of what came before it; edits made meanwhile need another.
    while hasUnsavedChanges { try await flush() }
    filesAtSuspension = file.filesIdentity()
    isSuspended = true
    lock = nil
  }

  /// Takes the file's lock again, merges what another process saved in the file while the
  /// store was suspended (announced as a peer's change), and saves what changed meanwhile.
  ///
  /// - Throws: ``StoreError/Problem/locked`` while another process holds the file (the store
  ///   stays suspended: try again later), or the ``StoreError`` of reading the file another
  ///   process left, which is then left as it is.
  public func resume() throws(StoreError) {
    guard isSuspended else { return }
    let lock = try file.lock()
    if file.filesIdentity() != filesAtSuspension { try takeInWhatOthersSaved() }
    filesAtSuspension = nil
    isSuspended = false
    self.lock = lock
    saveIfIdle()
  }

  /// Reads the file as another process left it and merges it: it holds what this store saved
  /// before suspending, joined with what the other wrote. Its writer was this device's app, so
  /// its removals are taken as a person's, as an open takes them.
  private func takeInWhatOthersSaved() throws(StoreError) {
    var reader = ReplicaStore(
      fileURL: fileURL, maximumFileSize: file.maximumFileSize, compaction: file.compaction)
    let onDisk = try reader.open(
      household: householdID, member: member, wallClock: replica.clock.wallClock,
      incarnation: ReplicaStore.mintReplicaID())
    do {
      try merge(onDisk.state, policy: Self.ownFilePolicy)
    } catch {
      throw StoreError(file: fileURL, problem: .unsound(["\(error)"]))
    }
    reader.faults = file.faults
    file = reader
  }

  /// A merge that takes every removal: the file is this device's own.
  static let ownFilePolicy = MergePolicy(
    maximumRemovedShare: 1, removalsAlwaysAllowed: .max, allowsRemovingEveryoneOrTheOwner: true)
}
