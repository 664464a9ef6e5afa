import Testing

@testable import ForagerSimulation

/// The log of acknowledged writes keeps every element in order across its chunks.
@Suite struct ChunkedLogTests {
  @Test(arguments: [0, 1, 4_095, 4_096, 4_097, 10_000])
  func holdsWhatWasAppendedInOrder(count: Int) {
    var log = ChunkedLog<Int>()
    for value in 0..<count { log.append(value * 3) }
    #expect(log.count == count)
    #expect(Array(log) == (0..<count).map { $0 * 3 })
    #expect(log.indices == 0..<count)
    if count > 0 { #expect(log[count - 1] == (count - 1) * 3) }
    #expect(Array(ChunkedLog(log)) == Array(log))
  }

  /// A copy is a value: appending to one leaves the other as it was.
  @Test func copiesAreIndependent() {
    var log = ChunkedLog(0..<4_100)
    let copy = log
    log.append(-1)
    #expect(copy.count == 4_100 && log.count == 4_101)
    #expect(copy.last == 4_099 && log.last == -1)
  }
}
