import SemanticCRDT

/// What a merge may remove before it is taken for a forged or damaged state and refused.
///
/// A file written by anyone with access to a sync folder can claim to have seen, and removed,
/// every record of a household. Such a state merges like any other: a join cannot tell a
/// forged removal from a real one. So a merge that would remove much is refused unless the
/// caller allows it: more than ``maximumRemovedShare`` of this replica's live records (and more
/// than ``removalsAlwaysAllowed``), the owner, or every member.
public struct MergePolicy: Hashable, Sendable {
  /// The share of this replica's live records one merge may remove, from 0 to 1.
  public var maximumRemovedShare: Double
  /// Removals up to this many are always allowed, however small the household.
  public var removalsAlwaysAllowed: Int
  /// Whether a merge may remove the owner or every member.
  public var allowsRemovingEveryoneOrTheOwner: Bool

  public init(
    maximumRemovedShare: Double = 0.5, removalsAlwaysAllowed: Int = 3,
    allowsRemovingEveryoneOrTheOwner: Bool = false
  ) {
    self.maximumRemovedShare = maximumRemovedShare
    self.removalsAlwaysAllowed = removalsAlwaysAllowed
    self.allowsRemovingEveryoneOrTheOwner = allowsRemovingEveryoneOrTheOwner
  }

  /// At most half the live records, never the owner or every member.
  public static let `default` = MergePolicy()

  /// Any removal: for a person who confirmed it (for example after a restore from a backup
  /// that had cleared the household on purpose).
  public static let allowingAnyRemoval = MergePolicy(
    maximumRemovedShare: 1, removalsAlwaysAllowed: .max, allowsRemovingEveryoneOrTheOwner: true)

  /// Whether removing `removed` of `live` records is within the policy.
  func allows(removing removed: Int, of live: Int) -> Bool {
    removed <= removalsAlwaysAllowed || Double(removed) <= maximumRemovedShare * Double(live)
  }
}

extension MergePolicy {
  /// Throws when a merge that turns `before` into `after`, removing `removed` records, goes
  /// beyond the policy.
  func check(removing removed: Int, from before: HouseholdState, leaving after: HouseholdState)
    throws(HouseholdError)
  {
    if !allowsRemovingEveryoneOrTheOwner {
      let owner = before.owner.value
      let ownerRemoved = owner.map { before.members.contains($0) && !after.members.contains($0) }
      if ownerRemoved == true || (!before.members.isEmpty && after.members.isEmpty) {
        throw .removesOwnerOrEveryMember
      }
    }
    if !allows(removing: removed, of: before.recordCount) {
      throw .massRemoval(removed: removed, live: before.recordCount)
    }
  }
}

extension HouseholdState {
  /// The most replica ids a household may hold across its maps: ``CausalContext/maximumReplicas``.
  /// Each open of a replica is a new id, so a household gains ids as it is used; a state past
  /// this bound comes from a peer that forged them, and is refused.
  package static let maximumReplicas = CausalContext.maximumReplicas

  /// The number of replica ids the maps' contexts name, together.
  ///
  /// - Complexity: O(*r*) per map for *r* replicas.
  package var replicaCount: Int {
    var replicas = Set(members.context.replicaIDs)
    for context in [
      categories.context, ingredients.context, recipes.context, lists.context, items.context,
      plans.context, meals.context, moves.context,
    ] {
      replicas.formUnion(context.replicaIDs)
    }
    return replicas.count
  }

  /// Whether this state claims a write of `replica` that `local` (that replica's own state)
  /// has not made: a greater counter of it in any map's causal context.
  ///
  /// - Complexity: O(1) per map.
  func claimsMoreWrites(of replica: ReplicaID, than local: HouseholdState) -> Bool {
    func claims<Key, Value>(_ map: KeyPath<HouseholdState, ORMap<Key, Value>>) -> Bool {
      self[keyPath: map].context.maximum(of: replica)
        > local[keyPath: map].context.maximum(of: replica)
    }
    return claims(\.members) || claims(\.categories) || claims(\.ingredients)
      || claims(\.recipes) || claims(\.lists) || claims(\.items) || claims(\.plans)
      || claims(\.meals) || claims(\.moves)
  }
}
