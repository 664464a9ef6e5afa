import SemanticCRDT
import Testing

/// The guarantees a user relies on, each shown on replicas that merge in every order.
@Suite("Semantics")
struct SemanticsTests {
  /// All orders in which `states` can be merged into an empty start, one after another.
  func everyOrder<State: Mergeable>(_ states: [State], from start: State) -> [State] {
    func permutations(_ items: [State]) -> [[State]] {
      guard items.count > 1 else { return [items] }
      return items.indices.flatMap { index -> [[State]] in
        var rest = items
        let first = rest.remove(at: index)
        return permutations(rest).map { [first] + $0 }
      }
    }
    return permutations(states).map { order in
      order.reduce(into: start) { $0.merge($1) }
    }
  }

  @Test func concurrentAddAndRemoveLeavesTheElementPresent() {
    var phone = ORSet<String>()
    phone.insert("produce", by: "phone")
    var tablet = phone
    tablet.remove("produce")  // removes the add it has seen
    phone.insert("produce", by: "phone")  // a concurrent re-add the tablet has not seen
    for merged in everyOrder([phone, tablet], from: ORSet()) {
      #expect(merged.contains("produce"))
    }
  }

  @Test func removeOfAnObservedAddWins() {
    var phone = ORSet<String>()
    phone.insert("produce", by: "phone")
    var tablet = phone
    tablet.remove("produce")
    for merged in everyOrder([phone, tablet], from: ORSet()) {
      #expect(!merged.contains("produce"))
    }
  }

  @Test func lastWriterWinsIndependentOfArrivalOrder() {
    let early = HybridTimestamp(wallMilliseconds: 100, replica: "tablet")
    let late = HybridTimestamp(wallMilliseconds: 200, replica: "phone")
    var first = LWWMap<String, String>()
    first.set("name", to: "Produce", at: late)
    var second = LWWMap<String, String>()
    second.set("name", to: "Fruit & Veg", at: early)
    var third = LWWMap<String, String>()
    third.remove("name", at: HybridTimestamp(wallMilliseconds: 150, replica: "watch"))
    let outcomes = everyOrder([first, second, third], from: LWWMap())
    #expect(outcomes.count == 6)
    for merged in outcomes {
      #expect(merged["name"] == "Produce")
      #expect(merged == outcomes[0])
    }
  }

  @Test func tiesAreBrokenByReplicaID() {
    let fromA = HybridTimestamp(wallMilliseconds: 100, logical: 3, replica: "a")
    let fromB = HybridTimestamp(wallMilliseconds: 100, logical: 3, replica: "b")
    #expect(fromA < fromB)
    for merged in everyOrder(
      [LWWRegister("from a", at: fromA), LWWRegister("from b", at: fromB)],
      from: LWWRegister("initial", at: HybridTimestamp(wallMilliseconds: 0, replica: "a")))
    {
      #expect(merged.value == "from b")
    }
  }

  @Test func countersSumConcurrentIncrements() {
    var phone = GCounter()
    var tablet = GCounter()
    phone.increment(by: 2, replica: "phone")
    tablet.increment(by: 3, replica: "tablet")
    tablet.increment(replica: "tablet")
    for merged in everyOrder([phone, tablet, phone], from: GCounter()) {
      #expect(merged.value == 6)
    }
    var balance = PNCounter()
    balance.increment(by: 5, replica: "phone")
    var other = PNCounter()
    other.decrement(by: 2, replica: "tablet")
    #expect(balance.merging(other).value == 3)
    #expect(other.merging(balance).value == 3)
  }

  @Test func concurrentUpdatesOfOneMapKeyBothCount() {
    var phone = ORMap<String, GCounter>()
    var tablet = ORMap<String, GCounter>()
    phone.update("cilantro", by: "phone", default: GCounter()) { $0.increment(replica: "phone") }
    tablet.update("cilantro", by: "tablet", default: GCounter()) { $0.increment(replica: "tablet") }
    for merged in everyOrder([phone, tablet], from: ORMap()) {
      #expect(merged["cilantro"]?.value == 2)
      #expect(merged.values.map(\.value) == [2])  // one value per key, the merge of both writes
      #expect(merged.writeCount(of: "cilantro") == 2)
    }
    var merged = phone.merging(tablet)
    merged.update("cilantro", by: "phone", default: GCounter()) { $0.increment(replica: "phone") }
    #expect(merged["cilantro"]?.value == 3)
    #expect(merged.writeCount(of: "cilantro") == 1)
  }

  @Test func concurrentUpdateSurvivesARemoveOfTheMapKey() {
    var phone = ORMap<String, GCounter>()
    phone.update("basil", by: "phone", default: GCounter()) { $0.increment(replica: "phone") }
    var tablet = phone
    tablet.remove("basil")
    phone.update("basil", by: "phone", default: GCounter()) { $0.increment(replica: "phone") }
    for merged in everyOrder([phone, tablet], from: ORMap()) {
      #expect(merged["basil"]?.value == 2)
    }
  }

  /// Whichever sibling holds it, in whatever order the merges came, the greatest timestamp is
  /// the latest surviving write's; a write that has seen them all leaves only its own.
  @Test func multiValueRegistersGreatestTimestampIsTheLatestSurvivingWrite() {
    let replicas: [ReplicaID] = ["phone", "tablet", "laptop"]
    for latest in replicas.indices {
      let registers = replicas.enumerated().map { index, replica in
        var register = MVRegister<Int>()
        register.write(
          index,
          at: HybridTimestamp(wallMilliseconds: index == latest ? 500 : 100, replica: replica))
        return register
      }
      for var merged in everyOrder(registers, from: MVRegister()) {
        #expect(merged.greatestTimestamp?.wallMilliseconds == 500, "latest \(latest)")
        #expect(merged.greatestTimestamp == merged.writes.map(\.timestamp).max())
        merged.write(9, at: HybridTimestamp(wallMilliseconds: 600, replica: "phone"))
        #expect(merged.greatestTimestamp?.wallMilliseconds == 600)
      }
    }
    #expect(MVRegister<Int>().greatestTimestamp == nil)
  }

  @Test func multiValueRegisterKeepsConcurrentWritesUntilOneHasSeenThemAll() {
    var phone = MVRegister<String>()
    var tablet = MVRegister<String>()
    phone.write("Pancakes", at: HybridTimestamp(wallMilliseconds: 100, replica: "phone"))
    tablet.write("Waffles", at: HybridTimestamp(wallMilliseconds: 100, replica: "tablet"))
    for merged in everyOrder([phone, tablet], from: MVRegister()) {
      #expect(merged.winner == "Waffles")  // equal wall time: the greater replica id wins
      #expect(merged.conflicts == ["Pancakes"])
      #expect(merged.isConflicted)
    }
    var resolved = phone.merging(tablet)
    resolved.write("Pancakes", at: HybridTimestamp(wallMilliseconds: 101, replica: "phone"))
    #expect(resolved.winner == "Pancakes")
    #expect(resolved.conflicts.isEmpty)
    #expect(tablet.merging(resolved) == resolved)
  }

  @Test func laterSetRevivesARemovedKeyAndCompactionKeepsItRemoved() {
    var phoneClock = HybridClock(replica: "phone", wallClock: .fixed(1_000))
    var phone = LWWMap<String, Int>()
    phone.set("eggs", to: 12, at: phoneClock.tick())
    var tablet = phone  // the tablet has the set, not yet the removal
    phone.remove("eggs", at: phoneClock.tick())
    #expect(phone["eggs"] == nil)
    #expect(phone.tombstoneCount == 1)

    // Not stable: the tablet has not seen the removal, so the horizon excludes it.
    var horizon = VersionVector.meet([phone.version, tablet.version])
    #expect(phone.compactTombstones(stableAt: horizon) == 0)

    tablet.merge(phone)
    horizon = VersionVector.meet([phone.version, tablet.version])
    #expect(phone.compactTombstones(stableAt: horizon) == 1)
    #expect(tablet.compactTombstones(stableAt: horizon) == 1)
    #expect(phone == tablet)
    #expect(phone.merging(tablet)["eggs"] == nil)

    phone.set("eggs", to: 6, at: phoneClock.tick())
    #expect(tablet.merging(phone)["eggs"] == 6)
  }

  @Test func skewedRemoteTimestampIsRefusedAndNothingChanges() throws {
    let now: UInt64 = 1_733_788_800_000
    var clock = HybridClock(
      replica: "phone", wallClock: .fixed(now), maximumSkewMilliseconds: 60_000)
    var local = LWWMap<String, String>()
    local.set("name", to: "Produce", at: clock.tick())
    let before = local
    let clockBefore = clock.latest!
    var remote = LWWMap<String, String>()
    remote.set(
      "name", to: "From the future",
      at: HybridTimestamp(wallMilliseconds: now + 3_600_000, replica: "tablet"))

    #expect(throws: ClockSkewError.self) { try clock.receive(remote, into: &local) }
    do {
      try clock.receive(remote, into: &local)
    } catch {
      #expect(error.replica == "tablet")
      #expect(error.skewMilliseconds == 3_600_000)
      #expect(
        error.description
          == "Timestamp \(now + 3_600_000).0@tablet from replica tablet is 3600000 ms ahead of the local clock; at most 60000 ms is accepted"
      )
    }
    #expect(local == before)
    #expect(clock.latest! == clockBefore)

    var near = LWWMap<String, String>()
    near.set(
      "name", to: "Fresh Produce",
      at: HybridTimestamp(wallMilliseconds: now + 30_000, replica: "tablet"))
    try clock.receive(near, into: &local)
    #expect(local["name"] == "Fresh Produce")
    #expect(clock.tick() > HybridTimestamp(wallMilliseconds: now + 30_000, replica: "tablet"))
  }

  /// A Swift CRDT library in use today copies the peer's actor id on merge, so the merged
  /// replica's later writes look like the peer's and are skipped by delta sync.
  @Test func afterMergingAReplicaStillWritesUnderItsOwnIDAndDeltasCarryIt() throws {
    var a = ORSet<String>()
    var b = ORSet<String>()
    b.insert("basil", by: "b")
    b.insert("thyme", by: "b")
    a.merge(b)
    a.insert("sage", by: "a")
    let delta = try #require(a.delta(since: b.version))
    #expect(delta.elements == ["sage"])
    #expect(delta.context.dots == [Dot("a", 1)])
    b.merge(delta)
    #expect(b == a)

    var clock = HybridClock(replica: "a", wallClock: .fixed(10))
    var mapA = LWWMap<String, Int>()
    var mapB = LWWMap<String, Int>()
    mapB.set("x", to: 1, at: HybridTimestamp(wallMilliseconds: 50, replica: "b"))
    try clock.receive(mapB, into: &mapA)
    let stamp = clock.tick()
    #expect(stamp.replica == "a")
    #expect(stamp > HybridTimestamp(wallMilliseconds: 50, replica: "b"))
    mapA.set("y", to: 2, at: stamp)
    mapB.merge(try #require(mapA.delta(since: mapB.version)))
    #expect(mapB == mapA)
  }

  @Test func deltaSyncAndFullStateSyncReachTheSameState() throws {
    var phone = ORMap<String, GCounter>()
    var tablet = ORMap<String, GCounter>()
    for index in 0..<50 {
      phone.update("item\(index)", by: "phone", default: GCounter()) {
        $0.increment(replica: "phone")
      }
    }
    tablet.merge(phone)
    for index in stride(from: 0, to: 50, by: 7) { phone.remove("item\(index)") }
    phone.update("item1", by: "phone", default: GCounter()) {
      $0.increment(by: 4, replica: "phone")
    }
    tablet.update("item2", by: "tablet", default: GCounter()) { $0.increment(replica: "tablet") }

    let delta = try #require(phone.delta(since: tablet.version))
    #expect(delta.count == 1)  // only item1 changed; the removals travel in the context
    #expect(tablet.merging(delta) == tablet.merging(phone))
    #expect(tablet.merging(delta).count == 50 - 8)
  }
}
