import SemanticCRDT
import SemanticCRDTJSON

/// What a merge may remove before it is taken for a forged or damaged state and refused.
///
/// A file written by anyone with access to a sync folder can claim to have seen, and removed,
/// every record of a household. Such a state merges like any other: a join cannot tell a
/// forged removal from a real one. So a merge that would remove much is refused unless the
/// caller allows it: more than ``maximumRemovedShare`` of this replica's live records (and more
/// than ``removalsAlwaysAllowed``), the owner, or every member. A list or meal plan removed with
/// its items or meals counts as one removal: deleting the week's list is one thing a person
/// did, however long the list. Whatever a merge removes stays recoverable for
/// ``keepsRemovedRecordsFor`` (see ``RemovedRecords``).
public struct MergePolicy: Hashable, Sendable {
  /// The share of this replica's live records one merge may remove, from 0 to 1.
  public var maximumRemovedShare: Double
  /// Removals up to this many are always allowed, however small the household.
  public var removalsAlwaysAllowed: Int
  /// Whether a merge may remove the owner or every member.
  public var allowsRemovingEveryoneOrTheOwner: Bool
  /// How long the records a merge removes stay recoverable on this device (see
  /// ``RemovedRecords``); zero keeps none. Removals older than this are forgotten at the next
  /// merge.
  public var keepsRemovedRecordsFor: Duration
  /// How many cores the merge's checks may use. With `Cores.two` (the default) the scan of a
  /// remote state of 20,000 records or more for its greatest timestamp (the clock-skew check)
  /// runs in two halves, one on another thread. Give `Cores.one` where no core is free, such
  /// as a process merging many households at once. This is the one place a merge decides.
  public var checkingCores: Cores

  public init(
    maximumRemovedShare: Double = 0.5, removalsAlwaysAllowed: Int = 3,
    allowsRemovingEveryoneOrTheOwner: Bool = false,
    keepsRemovedRecordsFor: Duration = MergePolicy.defaultKeepingTime,
    checkingCores: Cores = .two
  ) {
    self.maximumRemovedShare = maximumRemovedShare
    self.removalsAlwaysAllowed = removalsAlwaysAllowed
    self.allowsRemovingEveryoneOrTheOwner = allowsRemovingEveryoneOrTheOwner
    self.keepsRemovedRecordsFor = keepsRemovedRecordsFor
    self.checkingCores = checkingCores
  }

  /// At most half the live records, never the owner or every member; removed records kept for
  /// 30 days.
  public static let `default` = MergePolicy()

  /// 30 days: long enough to notice a week's shopping list gone after a holiday.
  public static let defaultKeepingTime = Duration.seconds(30 * 24 * 60 * 60)

  /// ``keepsRemovedRecordsFor`` in whole milliseconds, 0 for a negative time.
  var keptMilliseconds: UInt64 {
    let (seconds, attoseconds) = keepsRemovedRecordsFor.components
    guard seconds >= 0 else { return 0 }
    let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1000)
    return overflow ? .max : whole + UInt64(attoseconds / 1_000_000_000_000_000)
  }

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
  /// What the checks read of a state before a merge changes it in place.
  struct Before {
    let owner: MemberID?
    let members: ORMap<MemberID, Member>
    let recordCount: Int
    /// How many replica ids the state named, where more than the bound allows; `nil` otherwise.
    let replicasAboveMaximum: Int?

    init(_ state: HouseholdState) {
      owner = state.owner.value
      members = state.members
      recordCount = state.recordCount
      replicasAboveMaximum = state.replicaCount(ifAbove: HouseholdState.maximumReplicas)
    }
  }

  /// Throws when a merge that turns the state `before` described into `after`, removing
  /// `removed` records, goes beyond the policy, or past the bound on replica ids.
  func check(removing removed: Int, from before: Before, leaving after: HouseholdState)
    throws(HouseholdError)
  {
    if !allowsRemovingEveryoneOrTheOwner {
      let ownerRemoved = before.owner.map {
        before.members.contains($0) && !after.members.contains($0)
      }
      if ownerRemoved == true || (!before.members.isEmpty && after.members.isEmpty) {
        throw .removesOwnerOrEveryMember
      }
    }
    if !allows(removing: removed, of: before.recordCount) {
      throw .massRemoval(removed: removed, live: before.recordCount)
    }
    // Read once for the two checks below (each map's context comes through its key path).
    let contexts = after.claimingContexts
    // Past the bound, and more than before: a state already past it may still merge what
    // adds no id.
    if let replicas = HouseholdState.replicaCount(
      of: contexts, ifAbove: HouseholdState.maximumReplicas),
      replicas > before.replicasAboveMaximum ?? 0
    {
      throw .tooManyReplicas(replicas, maximum: HouseholdState.maximumReplicas)
    }
    for context in contexts {
      if let (replica, count) = context.mostIntervalsOfOneReplica,
        count > CausalContext.maximumIntervalsPerReplica
      {
        throw .tooManyIntervals(
          replica, count: count, maximum: CausalContext.maximumIntervalsPerReplica)
      }
    }
  }
}

extension HouseholdState {
  /// The most replica ids a household may hold across its maps: ``CausalContext/maximumReplicas``.
  /// Each open of a replica is a new id, so a household gains ids as it is used; a state past
  /// this bound comes from a peer that forged them, and is refused.
  package static let maximumReplicas = CausalContext.maximumReplicas

  /// The number of replica ids the maps' contexts name together, where it is more than
  /// `bound`; `nil` where it is not. The ids are gathered only when the maps' own counts add up
  /// to more than `bound` (a union holds no more than that), so that a household of a few
  /// devices, checked after every merge and every journal line, hashes none.
  ///
  /// - Complexity: O(1) per map when the maps' counts add up to `bound` or less; O(*r*) per map
  ///   for *r* replicas otherwise.
  package func replicaCount(ifAbove bound: Int) -> Int? {
    Self.replicaCount(of: claimingContexts, ifAbove: bound)
  }

  /// ``replicaCount(ifAbove:)`` of `contexts`, a state's ``claimingContexts``, for a caller that
  /// reads them for more than the count.
  static func replicaCount(of contexts: [CausalContext], ifAbove bound: Int) -> Int? {
    guard contexts.reduce(0, { $0 + $1.replicas.count }) > bound else { return nil }
    var replicas = Set<ReplicaID>()
    for context in contexts { replicas.formUnion(context.replicaIDs) }
    return replicas.count > bound ? replicas.count : nil
  }

  /// The causal context of every map of records, in the model's order, the carried ones last.
  package var contexts: [CausalContext] { contexts(carrying: carriedMapNames) }

  /// The causal context of every map of records, the carried maps named in `carried` last (an
  /// empty context for one this state does not hold), so that two states' lists align.
  package func contexts(carrying carried: [String]) -> [CausalContext] {
    struct Contexts: HouseholdMapVisitor {
      let state: HouseholdState
      var contexts: [CausalContext] = []
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        contexts.append(state[keyPath: map.records].context)
      }
    }
    var gather = Contexts(state: self)
    Self.forEachMap(&gather, carrying: carried)
    return gather.contexts
  }

  /// The contexts of every map of records and of the category moves: all this state says it
  /// has seen, in the model's order.
  package var claimingContexts: [CausalContext] { claimingContexts(carrying: carriedMapNames) }

  /// ``claimingContexts`` with the carried maps named in `carried`, so that two states' lists
  /// align.
  func claimingContexts(carrying carried: [String]) -> [CausalContext] {
    contexts(carrying: carried) + [moves.context]
  }

  /// Whether this state claims a write of `replica` that `local` (that replica's own state)
  /// has not made: a greater counter of it in any map's causal context.
  ///
  /// - Complexity: O(1) per map.
  package func claimsMoreWrites(of replica: ReplicaID, than local: HouseholdState) -> Bool {
    let carried = carriedMapNames(with: local)
    return zip(claimingContexts(carrying: carried), local.claimingContexts(carrying: carried))
      .contains { $0.maximum(of: replica) > $1.maximum(of: replica) }
  }
}

extension HouseholdState {
  /// How many keys this delta retires across its maps (an upper bound on the records merging
  /// it removes), or `nil` when it does not name them (a full state, an unkeyed delta).
  ///
  /// - Complexity: O(1) per map.
  package var retiredKeyCount: Int? {
    struct Retired: HouseholdMapVisitor {
      let state: HouseholdState
      var count: Int? = 0
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        let retired = state[keyPath: map.records].kernel.retiredKeys
        count = retired.flatMap { keys in count.map { $0 + keys.count } }
      }
    }
    var retired = Retired(state: self)
    Self.forEachMap(&retired, carrying: carriedMapNames)
    return retired.count
  }

  /// Whether this delta, a line for the device's own journal, might remove more records than
  /// `policy` lets a merge remove from the state it was made on, which holds `remaining` live
  /// records after it. At worst it removed every key it retires and added every record it
  /// holds, so the state before held `remaining` less those plus these; a delta that does not
  /// name the keys it retires is taken to. Replaying such a line would be refused
  /// (``HouseholdReplica/replay(_:clockReading:policy:)``), so its store writes a snapshot
  /// instead.
  ///
  /// - Complexity: O(1) per map.
  package func removesBeyond(_ policy: MergePolicy, leaving remaining: Int) -> Bool {
    guard let count = retiredKeyCount else { return true }
    return !policy.allows(removing: count, of: max(0, remaining - recordCount) + count)
  }

  /// Whether merging this delta into a state of `live` records surely stays within `policy`:
  /// it names the keys it retires, few enough for the policy, and no member among them.
  /// Replaying such a journal line needs no removal count.
  ///
  /// - Complexity: O(1) per map.
  package func removesWithin(_ policy: MergePolicy, of live: Int) -> Bool {
    guard let count = retiredKeyCount, members.kernel.retiredKeys?.isEmpty ?? false else {
      return false
    }
    return policy.allows(removing: count, of: live)
  }
}
