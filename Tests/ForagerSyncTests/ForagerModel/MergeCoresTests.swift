import ForagerSync
import Testing

/// A merge's checks on two cores (`MergePolicy.checkingCores`) find what one core finds: the
/// greatest timestamp of a large state, wherever its record sits, and so the same skew refusals.
@Suite("Merge checks on two cores")
struct MergeCoresTests {
  static let now: UInt64 = 1_733_788_800_000
  static let day: UInt64 = 24 * 60 * 60 * 1000

  /// A household of `count` categories, made at `now`.
  static func large(_ count: Int) throws -> HouseholdReplica {
    var replica = HouseholdReplica.create(
      household: HouseholdID(), owner: MemberID(), ownerName: "Ana", replica: "phone",
      wallClock: .fixed(now))
    for index in 0..<count { try replica.getOrCreateCategory(displayName: "Category \(index)") }
    return replica
  }

  @Test func twoCoresFindTheGreatestTimestampWhereverItIs() throws {
    var replica = try Self.large(20_000)
    #expect(replica.state.recordCount >= 20_000)
    #expect(replica.state.greatestTimestamp(cores: .two) == replica.state.greatestTimestamp)
    // Eight records in turn, at random places in the maps' storage, take the greatest stamp.
    for step in 1...8 {
      var later = HouseholdReplica(
        state: replica.state, member: replica.member,
        clock: HybridClock(replica: "tablet", wallClock: .fixed(Self.now + UInt64(step))))
      let index = (step * 2_654_435_761) % 20_000
      try later.renameCategory(
        CategoryKey(normalizing: "Category \(index)"), to: "CATEGORY \(index)")
      replica = later
      let greatest = replica.state.greatestTimestamp
      #expect(greatest?.wallMilliseconds == Self.now + UInt64(step))
      #expect(replica.state.greatestTimestamp(cores: .two) == greatest)
    }
  }

  @Test(arguments: [Cores.one, .two])
  func aRecordStampedTooFarAheadIsRefusedOnEitherCount(cores: Cores) throws {
    let local = try Self.large(20_000)
    var ahead = HouseholdReplica(
      state: local.state, member: local.member,
      clock: HybridClock(replica: "ahead", wallClock: .fixed(Self.now + 3 * Self.day)))
    try ahead.renameCategory(CategoryKey(normalizing: "Category 12345"), to: "category 12345")
    var receiver = local
    #expect {
      try receiver.merge(ahead.state, policy: MergePolicy(checkingCores: cores))
    } throws: { error in
      if case .clockSkew = error as? HouseholdError { true } else { false }
    }
    #expect(receiver.state == local.state)
  }
}

extension MergeCoresTests {
  /// The model check of a whole household on two cores (opening a file) finds what one core
  /// finds, a semantic key named by categories in both halves included.
  @Test func twoCoresFindTheSameProblemsAsOne() throws {
    var replica = try Self.large(40)
    var forged = replica.state
    let produce = try #require(replica.category(named: "Category 7"))
    forged.categories.remove(produce.key)
    // The same record under eight other keys: each names the key none holds.
    for copy in 0..<8 {
      _ = forged.categories.set(CategoryKey(rawValue: "copy \(copy)"), to: produce, by: "forger")
    }
    replica = HouseholdReplica(state: forged, member: replica.member, clock: replica.clock)
    let one = replica.state.modelViolations()
    let two = replica.state.modelViolations(cores: .two, categoriesInHalvesAbove: 2)
    #expect(one.count == 15, "8 records stored under other keys, 7 collisions: \(one)")
    #expect(two.count == one.count)
    #expect(
      Set(two.filter { $0.contains("stored under") })
        == Set(one.filter { $0.contains("stored under") }))
    #expect(two.filter { $0.contains("both have the semantic key category 7") }.count == 7)
  }
}
