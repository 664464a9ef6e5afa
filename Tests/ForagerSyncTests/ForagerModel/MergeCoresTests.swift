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
  /// `replica`'s state with the category named `name` removed and stored under eight other
  /// keys instead, "copy 0" to "copy 7": each names the key none holds.
  static func copiedEightTimes(_ name: String, in replica: HouseholdReplica) throws
    -> HouseholdState
  {
    var forged = replica.state
    let category = try #require(replica.category(named: name))
    forged.categories.remove(category.key)
    for copy in 0..<8 {
      _ = forged.categories.set(CategoryKey(rawValue: "copy \(copy)"), to: category, by: "forger")
    }
    return forged
  }

  /// The model check of a whole household on two cores (opening a file) finds what one core
  /// finds, a semantic key named by categories in both halves included.
  @Test func twoCoresFindTheSameProblemsAsOne() throws {
    var replica = try Self.large(40)
    let forged = try Self.copiedEightTimes("Category 7", in: replica)
    replica = HouseholdReplica(state: forged, member: replica.member, clock: replica.clock)
    let one = replica.state.modelViolations()
    let two = replica.state.modelViolations(cores: .two, recordsInHalvesAbove: 2)
    #expect(one.count == 15, "8 records stored under other keys, 7 collisions: \(one)")
    #expect(two.count == one.count)
    #expect(
      Set(two.filter { $0.contains("stored under") })
        == Set(one.filter { $0.contains("stored under") }))
    #expect(two.filter { $0.contains("both have the semantic key category 7") }.count == 7)
  }
}

extension MergeCoresTests {
  /// Each kind of record is checked in halves on two cores: templates under keys that are not
  /// their canonical names and items naming templates that do not exist are found wherever
  /// they sit in the maps' storage, as one core finds them.
  @Test func twoCoresCheckEveryKindOfRecordInHalves() throws {
    var replica = try Self.large(0)
    let list = try replica.createWeeklyList(name: "Week").id
    // Names without digits, which the pipeline drops: "herb qaax", "herb qbax", …
    let letter = { (index: Int) in Character(UnicodeScalar(UInt8(97 + index % 26))) }
    let names = (0..<40).map { "herb q\(letter($0))\(letter($0 / 26))x" }
    for name in names { _ = try replica.addItem(name, to: list) }
    var forged = replica.state
    // Ten templates whose keys are not canonical, and the items of ten others left dangling.
    for index in 0..<10 {
      let template = try #require(
        forged.ingredients[IngredientKey(normalizing: names[index])])
      _ = forged.ingredients.set(
        IngredientKey(rawValue: "2 cups \(names[index])"), to: template, by: "forger")
      forged.ingredients.remove(IngredientKey(normalizing: names[index + 10]))
    }
    replica = HouseholdReplica(state: forged, member: replica.member, clock: replica.clock)
    let one = replica.state.modelViolations()
    let two = replica.state.modelViolations(cores: .two, recordsInHalvesAbove: 2)
    #expect(one.filter { $0.contains("is not its own canonical name") }.count == 10)
    #expect(one.filter { $0.contains("which does not exist") }.count == 10)
    #expect(one.count == 30, "and 10 templates stored under other keys: \(one)")
    #expect(Set(two) == Set(one))
    #expect(two.count == one.count)
  }
}

extension MergeCoresTests {
  /// A merge that changes many records checks them on two cores as the policy allows, and
  /// refuses a forged record as a merge on one core does, leaving the state as it was.
  @Test(arguments: [Cores.one, .two])
  func aMergeOfManyRecordsRefusesAForgedOneOnEitherCount(cores: Cores) throws {
    var receiver = try Self.large(0)
    var tablet = HouseholdReplica(
      state: receiver.state, member: receiver.member,
      clock: HybridClock(replica: "tablet", wallClock: .fixed(Self.now)))
    for index in 0..<20_000 { try tablet.getOrCreateCategory(displayName: "Category \(index)") }
    var forged = tablet.state
    let produce = try #require(forged.categories[CategoryKey(normalizing: "Category 7")])
    _ = forged.categories.set(CategoryKey(rawValue: "not its key"), to: produce, by: "tablet")
    let before = receiver.state
    #expect {
      try receiver.merge(forged, policy: MergePolicy(checkingCores: cores))
    } throws: { error in
      guard case .unsoundMerge(let problems) = error as? HouseholdError else { return false }
      return Set(problems) == [
        "category category 7 stored under not its key",
        "categories category 7 and not its key both have the semantic key category 7",
      ]
    }
    #expect(receiver.state == before)
  }
}
