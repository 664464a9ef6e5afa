import SemanticCRDT
import SharedSupport
import Testing

/// A multi-value register's winner and its comparison of what two registers show, against
/// their definitions through ``MVRegister/writes``: each reads the siblings without building
/// that array where it can, and must answer what the array answers.
@Suite struct MultiValueShownTests {
  /// Registers of none, one or several concurrent writes of two values, compared pairwise.
  @Test func winnerAndShownValuesMatchTheSortedWrites() {
    var random = SplitMix64(seed: 7)
    var registers: [MVRegister<Int>] = [MVRegister()]
    var wall: UInt64 = 0
    for _ in 0..<150 {
      wall += UInt64(random.int(in: 1...3))
      var register = registers[random.int(in: 0..<registers.count)]
      // Each write by a replica of its own: branches that wrote under one replica id would
      // mint the same dot for different writes.
      let replica = ReplicaID("r\(registers.count)")
      register.write(
        random.int(in: 0...1),
        at: HybridTimestamp(
          wallMilliseconds: wall, logical: UInt32(random.int(in: 0...1)), replica: replica)
      )
      if random.chance(0.6) { register.merge(registers[random.int(in: 0..<registers.count)]) }
      registers.append(register)
    }
    // Registers whose concurrent writes hold different values, so that which of them wins
    // changes the winner.
    let conflicted = registers.filter { Set($0.writes.map { $0.value }).count > 1 }
    #expect(conflicted.count > 5, "\(conflicted.count) registers of different concurrent values")
    var (same, different) = (0, 0)
    for left in registers {
      #expect(left.winner == left.writes.first?.value, "\(left.writes)")
      for right in registers {
        let expected = left.writes.map { $0.value } == right.writes.map { $0.value }
        #expect(left.showsSame(as: right) == expected, "\(left.writes) and \(right.writes)")
        if expected { same += 1 } else { different += 1 }
      }
    }
    #expect(same > registers.count && different > 0, "same \(same), different \(different)")
  }
}
