import SemanticCRDT
import Testing

@Suite("Hybrid clock")
struct ClockTests {
  /// Stamps with equal clocks order by their replica ids' scalars; a stamp is never before
  /// itself, nor before an equal one whose id is another string with the same text (long ids
  /// are not stored inline, so equal ones need not share their bits).
  @Test func equalClocksOrderByReplicaAndEqualStampsByNothing() {
    let ids: [ReplicaID] = ["a", "b", "tablet", "é-phone", "a-replica-id-of-thirty-bytes-1"]
    func stamp(_ id: ReplicaID) -> HybridTimestamp {
      HybridTimestamp(wallMilliseconds: 7, logical: 3, replica: id)
    }
    for first in ids {
      let copy = ReplicaID(String(first.rawValue.unicodeScalars))
      #expect(!(stamp(first) < stamp(copy)) && !(stamp(copy) < stamp(first)), "\(first)")
      for second in ids where second != first {
        let scalarsFirst = first.rawValue.unicodeScalars.lexicographicallyPrecedes(
          second.rawValue.unicodeScalars
        ) { $0.value < $1.value }
        #expect((stamp(first) < stamp(second)) == scalarsFirst, "\(first), \(second)")
      }
    }
  }

  @Test func ticksWithinOneMillisecondAreDistinctAndOrdered() {
    var clock = HybridClock(replica: "phone", wallClock: .fixed(500))
    let stamps = (0..<1_000).map { _ in clock.tick() }
    #expect(Set(stamps).count == 1_000)
    #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 })
    #expect(stamps.last == HybridTimestamp(wallMilliseconds: 500, logical: 999, replica: "phone"))
  }

  @Test func wallTimeGoingBackwardsStillAdvances() {
    var clock = HybridClock(replica: "phone")
    let first = clock.tick(wallMilliseconds: 1_000)
    let second = clock.tick(wallMilliseconds: 400)
    #expect(second > first)
    #expect(second.wallMilliseconds == 1_000)
    let third = clock.tick(wallMilliseconds: 2_000)
    #expect(third == HybridTimestamp(wallMilliseconds: 2_000, logical: 0, replica: "phone"))
  }

  @Test func tickExceedsEveryObservedTimestampEvenFromAGreaterReplica() throws {
    var clock = HybridClock(replica: "a", wallClock: .fixed(100))
    let remote = HybridTimestamp(wallMilliseconds: 100, logical: 7, replica: "z")
    try clock.observe(remote)
    let next = clock.tick()
    #expect(next > remote)
    #expect(next == HybridTimestamp(wallMilliseconds: 100, logical: 8, replica: "a"))
  }

  @Test func logicalOverflowCarriesIntoWallTime() {
    var clock = HybridClock(replica: "a", latest: (wallMilliseconds: 10, logical: .max))
    let next = clock.tick(wallMilliseconds: 10)
    #expect(next == HybridTimestamp(wallMilliseconds: 11, logical: 0, replica: "a"))
  }

  @Test func observingWithinTheBoundIsAccepted() throws {
    var clock = HybridClock(replica: "a", wallClock: .fixed(1_000), maximumSkewMilliseconds: 100)
    try clock.observe(HybridTimestamp(wallMilliseconds: 1_100, replica: "b"))
    #expect(throws: ClockSkewError.self) {
      try clock.observe(HybridTimestamp(wallMilliseconds: 1_101, replica: "b"))
    }
    #expect(clock.latest! == (1_100, 0))
  }

  @Test func timestampsOrderByWallThenLogicalThenReplica() {
    let ordered = [
      HybridTimestamp(wallMilliseconds: 1, logical: 9, replica: "z"),
      HybridTimestamp(wallMilliseconds: 2, logical: 0, replica: "z"),
      HybridTimestamp(wallMilliseconds: 2, logical: 1, replica: "a"),
      HybridTimestamp(wallMilliseconds: 2, logical: 1, replica: "b"),
    ]
    #expect(ordered.shuffled().sorted() == ordered)
  }

  @Test func replicaIDsOrderByUnicodeScalars() {
    #expect(ReplicaID("B") < ReplicaID("a"))
    #expect(ReplicaID("é") > ReplicaID("z"))
    #expect(ReplicaID("phone") < ReplicaID("phone2"))
  }
}
