import ForagerModel
import Observation

/// The face of a ``HouseholdStore`` that SwiftUI views read: the replica on the main actor,
/// replaced after every change the store announces, so that a view reading it redraws.
///
/// Edits go to the store (``HouseholdStore/edit(_:)``); this object only follows it. It follows
/// for as long as it lives.
///
/// ```swift
/// @State var household = await ObservedHousehold(store)
/// …
/// ForEach(household.replica.itemsByCategory(in: list)) { section in … }
/// ```
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
@MainActor @Observable
public final class ObservedHousehold {
  /// The store followed.
  public let store: HouseholdStore
  /// The replica as of the last change announced.
  public private(set) var replica: HouseholdReplica
  /// The last change announced, to tell what moved.
  public private(set) var lastChange: HouseholdChange?

  @ObservationIgnored nonisolated(unsafe) private var following: Task<Void, Never>?

  /// Starts following `store` from its replica as it is now.
  public init(_ store: HouseholdStore) async {
    self.store = store
    let changes = await store.changes()
    replica = await store.replica
    following = Task { [weak self] in
      for await change in changes {
        guard let self else { return }
        await self.update(after: change)
      }
    }
  }

  private func update(after change: HouseholdChange) async {
    replica = await store.replica
    lastChange = change
  }

  deinit { following?.cancel() }
}
