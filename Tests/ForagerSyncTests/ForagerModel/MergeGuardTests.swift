import ForagerSync
import ForagerTestSupport
import Foundation
import SemanticCRDT
import Testing

@testable import ForagerPersistence

/// A state from outside is checked before anything of it is applied: a forged one that
/// removes the household, claims this replica's writes or leaves it unsound is refused, and
/// the device is unchanged.
@Suite("Merge guards")
struct MergeGuardTests {
  let home = HouseholdID()
  let ana = MemberID()

  func devices() throws -> (phone: HouseholdReplica, tablet: HouseholdReplica) {
    var phone = HouseholdReplica.create(
      household: home, owner: ana, ownerName: "Ana", replica: "phone", wallClock: .fixed(1_000))
    try phone.seedDefaultCategories()
    try phone.addMember(MemberID(), name: "Sam")
    try phone.recordUse(ofIngredient: "salt")
    var tablet = HouseholdReplica(
      joining: home, member: ana, replica: "tablet", wallClock: .fixed(2_000))
    try tablet.merge(phone.state)
    return (phone, tablet)
  }

  /// The forged file of the red-team pass: contexts that have seen every record, entries that
  /// hold none. Merged, it would empty every device, owner and members included.
  func wiped(_ state: HouseholdState) -> HouseholdState {
    var forged = state
    for key in forged.members.keys { forged.members.remove(key) }
    for key in forged.categories.keys { forged.categories.remove(key) }
    for key in forged.ingredients.keys { forged.ingredients.remove(key) }
    return forged
  }

  /// A refused merge leaves `state` as it was `before`: equal, and still sound, which equality
  /// alone does not show (it ignores the replica's index of live writes, which an undone merge
  /// must put back too).
  func expectUnchanged(
    _ state: HouseholdState, from before: HouseholdState,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(state == before, sourceLocation: sourceLocation)
    #expect(state.invariantViolations() == [], sourceLocation: sourceLocation)
  }

  @Test func aStateThatRemovesTheOwnerIsRefused() throws {
    var (phone, tablet) = try devices()
    let before = tablet.state
    #expect(throws: HouseholdError.removesOwnerOrEveryMember) {
      try tablet.merge(wiped(phone.state))
    }
    expectUnchanged(tablet.state, from: before)
    // A person who means it can allow it.
    try tablet.merge(wiped(phone.state), policy: .allowingAnyRemoval)
    #expect(tablet.categories().isEmpty)
    _ = try phone.getOrCreateCategory(displayName: "Spices")
  }

  @Test func aStateThatRemovesMostRecordsIsRefused() throws {
    let (phone, tablet) = try devices()
    var forged = phone.state
    for key in forged.categories.keys { forged.categories.remove(key) }
    var device = tablet
    let before = device.state
    #expect(throws: HouseholdError.massRemoval(removed: 7, live: 10)) {
      try device.merge(forged)
    }
    expectUnchanged(device.state, from: before)
    // Removing a few is a merge like any other.
    var few = phone.state
    few.categories.remove(CategoryKey(normalizing: "Bakery"))
    try device.merge(few)
    #expect(device.categories().count == 6)
  }

  /// A kept removal holds a record whose commit leaves it as it is (a recipe) in the box the
  /// state held it in, so that the two share its storage (at 50 devices the copies were a
  /// tenth of the kept removals' memory); one that holds dots of its map (a planned meal) is
  /// committed anew on the archive's. Both come back whole.
  @Test func aKeptRecordSharesTheStoredOneWhereItCan() throws {
    var (phone, tablet) = try devices()
    let recipe = try phone.addRecipe(title: "Chili", ingredientLines: ["beans"]).recipe.id
    try tablet.merge(phone.state)
    let stored = try #require(tablet.state.recipes.kernel.entries[recipe]?.value)
    try phone.deleteRecipe(recipe)
    try tablet.merge(phone.state)
    let removal = try #require(tablet.recentlyRemoved.first)
    let kept = try #require(removal.records.recipes.kernel.entries[recipe]?.value)
    #expect(kept === stored)
    #expect(Recipe.blank.commitsUnchanged && !PlannedMeal.blank.commitsUnchanged)
    try tablet.restore(removal.id)
    #expect(tablet.recipes().map(\.id) == [recipe])
    #expect(tablet.recipes().first?.ingredientLines == ["beans"])
  }

  /// A member deleting the week's list removes the list and its 20 items: one removal a
  /// person made, not 21, though the household holds only 10 other records.
  @Test func aDeletedListCountsAsOneRemovalWithItsItems() throws {
    var (phone, tablet) = try devices()
    let list = try phone.createWeeklyList(name: "Week 48")
    for index in 0..<20 { try phone.addItem("item \(index)", to: list.id) }
    try tablet.merge(phone.state)
    try phone.deleteWeeklyList(list.id)
    try tablet.merge(phone.state)
    #expect(tablet.weeklyLists().isEmpty)
    #expect(tablet.recentlyRemoved.first?.recordCount == 21)
  }

  /// A forged state claims one write of the tablet beyond those it made. The phone merges it
  /// first, as a peer would. The tablet finds the claim forged (only it mints its dots): it
  /// moves to a fresh incarnation and writes its records again before merging, so its next
  /// write and its earlier ones reach the phone, which would otherwise drop them as seen.
  /// (On df69d73 the tablet refused the state, and every later state of the phone, for good.)
  @Test func aStateClaimingThisReplicasUnmadeWritesLosesItNothing() throws {
    var (phone, tablet) = try devices()
    _ = try tablet.getOrCreateCategory(displayName: "Snacks")
    // The tablet's own writes, as a forged file claims them: one more than it made.
    var claim = tablet
    _ = try claim.getOrCreateCategory(displayName: "Spices")
    var forged = phone.state
    forged.merge(claim.state)
    forged.categories.remove(CategoryKey(normalizing: "Spices"))
    forged.categories.remove(CategoryKey(normalizing: "Snacks"))
    try phone.merge(forged, policy: .allowingAnyRemoval)
    let report = try tablet.merge(phone.state)
    #expect(report.forgedClaims == ["tablet"] && report.reissuedRecords >= 1)
    #expect(tablet.replicaID != "tablet" && tablet.pastIncarnations == ["tablet"])
    #expect(tablet.category(named: "Snacks") != nil, "the forged removal did not apply")
    // Its next write would otherwise have taken the claimed dot and vanished on the phone.
    _ = try tablet.getOrCreateCategory(displayName: "Spices")
    try phone.merge(tablet.state)
    #expect(phone.category(named: "spices") != nil && phone.category(named: "snacks") != nil)
    // The claim merged too, harmless now, so the two converge.
    try tablet.merge(phone.state)
    #expect(tablet.state == phone.state)
  }

  /// A claim past what any device writes is refused by every replica, not only by the device
  /// it names. The simulator's hostile peer found why (seed 2, 2,500 steps, `--hostile 0.03`,
  /// before the claims on owners were aimed at them): a tablet merged a state claiming the
  /// phone's writes up to 2⁴⁰, so it dropped "Butter", which the phone wrote next, as already
  /// seen; the phone, restored from a backup older than "Butter" before it saw the claim, had
  /// nothing to write again, and "Butter" was gone from every device.
  @Test func aClaimPastWhatAnyDeviceWritesIsRefusedByEveryReplica() throws {
    var (phone, tablet) = try devices()
    var forged = tablet.state
    let claim = CausalContext(replicas: [phone.replicaID: CounterSet([1...Dot.maximumCounter])])
    forged.categories.merge(ORMap(kernel: DotKernel(entries: [:], context: claim)))
    let refused = Result { () throws(HouseholdError) in try tablet.merge(forged) }
    guard case .failure(.implausibleClaim(phone.replicaID, claimed: Dot.maximumCounter)) = refused
    else {
      Issue.record("the forged claim was not refused: \(refused)")
      return
    }
    _ = try phone.getOrCreateCategory(displayName: "Butter")
    try tablet.merge(phone.state)
    #expect(tablet.category(named: "butter") != nil)
    // A state that carries the claim already (an earlier build merged it) still merges it,
    // so that a household such a build reached does not part.
    var carried = tablet.state
    carried.categories.merge(ORMap(kernel: DotKernel(entries: [:], context: claim)))
    var laptop = HouseholdReplica(
      state: carried, member: ana, clock: HybridClock(replica: "laptop", wallClock: .fixed(3_000)))
    #expect(throws: Never.self) { try laptop.merge(forged) }
  }

  /// The phone's state with an item naming a template no one has: what a buggy build writes.
  func unsoundState() throws -> HouseholdState {
    var (phone, _) = try devices()
    let list = try phone.createWeeklyList(name: "This Week")
    try phone.addItem("salt", to: list.id)
    var unsound = phone.state
    for key in unsound.ingredients.keys { unsound.ingredients.remove(key) }
    return unsound
  }

  @Test func aStateThatWouldLeaveTheHouseholdUnsoundIsRefused() throws {
    let forged = try unsoundState()
    var fresh = HouseholdReplica(
      joining: home, member: ana, replica: "laptop", wallClock: .fixed(3_000))
    do {
      try fresh.merge(forged)
      Issue.record("an unsound state was merged")
    } catch {
      guard case .unsoundMerge(let problems) = error else {
        Issue.record("refused with \(error)")
        return
      }
      #expect(problems.contains { $0.contains("salt") })
    }
    expectUnchanged(fresh.state, from: HouseholdState(householdID: home))
  }

  @Test func aFileHoldingAnUnsoundHouseholdIsRefused() throws {
    let device = HouseholdReplica(
      state: try unsoundState(), member: ana, clock: HybridClock(replica: "phone"))
    let bytes = ReplicaFileFormat.encode(ReplicaFileContents(device))
    let file = URL(fileURLWithPath: "/unsound.forager.json")
    #expect {
      try ReplicaFileFormat.decode(bytes, file: file)
    } throws: { error in
      guard let error = error as? StoreError, case .unsound(let problems) = error.problem else {
        return false
      }
      return !problems.isEmpty && "\(error)".contains("unsound household")
    }
  }

  /// A peer could add a million replica ids (6 KB became 19 MB and every later sync took
  /// 4.5 s): past the bound, the state is refused.
  @Test func aStateWithMoreReplicaIDsThanTheBoundIsRefused() throws {
    var (phone, tablet) = try devices()
    var forged = phone.state
    let sam = forged.members.keys.first { $0 != ana }!
    let member = forged.members[sam]!
    for index in 0..<HouseholdState.maximumReplicas {
      forged.members.set(sam, to: member, by: ReplicaID("forged-\(index)"))
    }
    let before = tablet.state
    #expect(throws: HouseholdError.tooManyReplicas(100_001, maximum: 100_000)) {
      try tablet.merge(forged)
    }
    expectUnchanged(tablet.state, from: before)
    try phone.merge(tablet.state)
  }

  /// The bound counts each replica id once, however many maps name it; the ids are gathered
  /// only when the maps' own counts add up past the bound, and may then still be within it.
  @Test func replicaIDsAreCountedOnceAcrossTheMaps() throws {
    let (phone, _) = try devices()
    var state = HouseholdState(emptyDeltaLike: phone.state)
    func context(_ replicas: [ReplicaID]) -> CausalContext {
      CausalContext(
        replicas: Dictionary(uniqueKeysWithValues: replicas.map { ($0, CounterSet([1...3])) }))
    }
    state.categories = ORMap(kernel: DotKernel(entries: [:], context: context(["a", "b"])))
    state.ingredients = ORMap(kernel: DotKernel(entries: [:], context: context(["b", "c"])))
    let named = Set(state.claimingContexts.flatMap { Array($0.replicaIDs) })
    #expect(named == ["a", "b", "c"])
    // The maps' counts add up to 4: past bounds 0 to 3, where only 0 to 2 are passed.
    for bound in 0...5 {
      #expect(state.replicaCount(ifAbove: bound) == (bound < 3 ? 3 : nil), "bound \(bound)")
    }
  }

  /// Forged states whose contexts split one replica's writes into many intervals: each alone
  /// under the bound, interleaved past it. Merging the second is refused, typed, with nothing
  /// changed, so no saved file holds more than a reader accepts; a file or message past the
  /// bound is refused as it is read.
  @Test func contextsSplitIntoTooManyIntervalsAreRefused() throws {
    var (phone, _) = try devices()
    let half = CausalContext.maximumIntervalsPerReplica / 2 + 1
    func forged(offset: UInt64) -> HouseholdState {
      var state = HouseholdState(emptyDeltaLike: phone.state)
      // Every fourth dot of a replica, so that two such contexts interleave.
      let ranges = (0..<UInt64(half)).map { 10 + $0 * 4 + offset }.map { $0...$0 }
      state.categories = ORMap(
        kernel: DotKernel(
          entries: [:], context: CausalContext(replicas: ["shredder": CounterSet(ranges)])))
      return state
    }
    try phone.merge(forged(offset: 0))
    let before = phone.state
    #expect(
      throws: HouseholdError.tooManyIntervals(
        "shredder", count: 2 * half, maximum: CausalContext.maximumIntervalsPerReplica)
    ) {
      try phone.merge(forged(offset: 2))
    }
    expectUnchanged(phone.state, from: before)

    var file = ReplicaFileContents(phone, carrying: [:])
    file.state = forged(offset: 0)
    file.state.merge(forged(offset: 2))
    let bytes = ReplicaFileFormat.encode(file)
    #expect {
      _ = try ReplicaFileFormat.decode(bytes, file: URL(fileURLWithPath: "/forged.json"))
    } throws: { error in
      "\(error)".contains("replica shredder has more than 65536 intervals")
    }
  }
}

/// A device's file keeps its earlier incarnations, so that after a restart it still knows its
/// own writes: the issue's case, where the restarted app removed its own 73 edits under the
/// mass-removal bound after a peer merged a claim on its earlier writes.
@Suite struct EarlierIncarnationTests {
  @Test func aRestartedDeviceKeepsItsRecordsAgainstAClaimOnItsEarlierWrites() throws {
    let folder = TemporaryFolder()
    let file = folder.file("phone.json")
    let household = HouseholdID()
    let member = MemberID()
    var store = ReplicaStore(fileURL: file)
    var phone = try store.open(household: household, member: member, incarnation: "phone-1")
    for name in ["Produce", "Dairy", "Bakery", "Spices"] {
      _ = try phone.getOrCreateCategory(displayName: name)
    }
    try store.save(phone)
    // A forged state that claims the phone's first incarnation far ahead, and holds none of
    // its categories: a peer refuses it.
    var peer = HouseholdReplica(joining: household, member: member, replica: "peer")
    try peer.merge(phone.state)
    var forged = peer.state
    for key in forged.categories.keys { forged.categories.remove(key) }
    forged.categories.merge(
      ORMap(
        kernel: DotKernel(
          entries: [:],
          context: CausalContext(replicas: ["phone-1": CounterSet([1...Dot.maximumCounter])]))))
    #expect(throws: HouseholdError.implausibleClaim("phone-1", claimed: Dot.maximumCounter)) {
      try peer.merge(forged, policy: .allowingAnyRemoval)
    }
    #expect(peer.categories().count == 4)

    // The phone restarts: a new incarnation, which knows the first from its file, and refuses
    // the claim too, from a peer of an earlier build that merged it.
    var reopened = ReplicaStore(fileURL: file)
    var restarted = try reopened.open(
      household: household, member: member, incarnation: "phone-2")
    #expect(restarted.pastIncarnations == ["phone-1"])
    #expect(throws: HouseholdError.implausibleClaim("phone-1", claimed: Dot.maximumCounter)) {
      try restarted.merge(forged, policy: .allowingAnyRemoval)
    }
    #expect(restarted.categories().count == 4, "the restarted phone kept its categories")
    try peer.merge(restarted.state)
    #expect(peer.categories().count == 4)
    // Saved, the file names both incarnations.
    try reopened.save(restarted)
    #expect(try reopened.read()?.incarnations == ["phone-1"])
    var third = ReplicaStore(fileURL: file)
    #expect(
      try third.open(household: household, member: member, incarnation: "phone-3")
        .pastIncarnations == ["phone-1", "phone-2"])
  }
}
