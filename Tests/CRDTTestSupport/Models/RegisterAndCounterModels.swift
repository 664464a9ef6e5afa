import SemanticCRDT
import SharedSupport

/// `LWWRegister<Int>` against its specification: the event with the greatest timestamp decides.
public enum LWWRegisterModel: CRDTModel {
  public struct Operation: CustomStringConvertible, Sendable {
    let value: Int
    public var description: String { "assign \(value)" }
  }

  public static let name = "LWWRegister"
  /// Every replica starts from the same initial write, older than any real one.
  public static func makeInitial() -> LWWRegister<Int> {
    LWWRegister(0, at: HybridTimestamp(wallMilliseconds: 0, replica: "initial"))
  }

  public static func randomOperation(using random: inout SplitMix64) -> Operation {
    Operation(value: random.int(in: 0...3))
  }

  public static func apply(
    _ operation: Operation, to state: inout LWWRegister<Int>, replica: ReplicaID,
    timestamp: HybridTimestamp
  ) -> LWWRegister<Int>? {
    state.assign(operation.value, at: timestamp)
  }

  public static func observe(_ state: LWWRegister<Int>) -> Int { state.value }

  public static func specification(of events: [Event<Operation>]) -> Int {
    events.max { $0.timestamp < $1.timestamp }?.operation.value ?? 0
  }

  public static func isLessThanOrEqual(_ a: LWWRegister<Int>, _ b: LWWRegister<Int>) -> Bool {
    a.isLessThanOrEqual(to: b)
  }
}

/// `MVRegister<Int>` against its specification: the writes no other event has observed
/// survive, and the one with the greatest timestamp is the winner.
public enum MVRegisterModel: CRDTModel {
  public enum Operation: CustomStringConvertible, Sendable {
    case write(Int)
    case clear
    public var description: String {
      switch self {
      case .write(let value): "write \(value)"
      case .clear: "clear"
      }
    }
  }

  public struct Observation: Equatable, CustomStringConvertible {
    let writes: [MVRegister<Int>.Write]
    let winner: Int?
    public var description: String {
      "winner \(winner.map(String.init) ?? "none"), writes \(writes.map { "\($0.value)@\($0.timestamp)" })"
    }
  }

  public static let name = "MVRegister"
  public static func makeInitial() -> MVRegister<Int> { MVRegister() }

  public static func randomOperation(using random: inout SplitMix64) -> Operation {
    random.chance(0.85) ? .write(random.int(in: 0...3)) : .clear
  }

  public static func apply(
    _ operation: Operation, to state: inout MVRegister<Int>, replica: ReplicaID,
    timestamp: HybridTimestamp
  ) -> MVRegister<Int>? {
    switch operation {
    case .write(let value): state.write(value, at: timestamp)
    case .clear: state.clear()
    }
  }

  public static func observe(_ state: MVRegister<Int>) -> Observation {
    Observation(writes: state.writes, winner: state.winner)
  }

  public static func specification(of events: [Event<Operation>]) -> Observation {
    let surviving = events.maximal().compactMap { event -> MVRegister<Int>.Write? in
      guard case .write(let value) = event.operation else { return nil }
      return MVRegister.Write(value: value, timestamp: event.timestamp)
    }.sorted { $0.timestamp > $1.timestamp }
    return Observation(writes: surviving, winner: surviving.first?.value)
  }

  public static func isLessThanOrEqual(_ a: MVRegister<Int>, _ b: MVRegister<Int>) -> Bool {
    a.isLessThanOrEqual(to: b)
  }

  public static func invariantViolations(of state: MVRegister<Int>) -> [String] {
    state.invariantViolations()
  }
}

/// `GCounter` against its specification: the sum of the increments seen.
public enum GCounterModel: CRDTModel {
  public struct Operation: CustomStringConvertible, Sendable {
    let amount: UInt64
    public var description: String { "increment by \(amount)" }
  }

  public static let name = "GCounter"
  public static func makeInitial() -> GCounter { GCounter() }

  public static func randomOperation(using random: inout SplitMix64) -> Operation {
    Operation(amount: UInt64(random.int(in: 0...3)))
  }

  public static func apply(
    _ operation: Operation, to state: inout GCounter, replica: ReplicaID,
    timestamp: HybridTimestamp
  ) -> GCounter? {
    state.increment(by: operation.amount, replica: replica)
  }

  public static func observe(_ state: GCounter) -> UInt64 { state.value }

  public static func specification(of events: [Event<Operation>]) -> UInt64 {
    events.reduce(0) { $0 + $1.operation.amount }
  }

  public static func isLessThanOrEqual(_ a: GCounter, _ b: GCounter) -> Bool {
    a.isLessThanOrEqual(to: b)
  }
}

/// `MaxRegister` against its specification: the greatest value any seen write raised it to.
public enum MaxRegisterModel: CRDTModel {
  public struct Operation: CustomStringConvertible, Sendable {
    let value: Int64
    public var description: String { "raise to \(value)" }
  }

  public static let name = "MaxRegister"
  public static func makeInitial() -> MaxRegister<Int64> { MaxRegister(0) }

  public static func randomOperation(using random: inout SplitMix64) -> Operation {
    Operation(value: random.draw(in: 0...20))
  }

  public static func apply(
    _ operation: Operation, to state: inout MaxRegister<Int64>, replica: ReplicaID,
    timestamp: HybridTimestamp
  ) -> MaxRegister<Int64>? {
    state.raise(to: operation.value)
  }

  public static func observe(_ state: MaxRegister<Int64>) -> Int64 { state.value }

  public static func specification(of events: [Event<Operation>]) -> Int64 {
    events.map(\.operation.value).max() ?? 0
  }

  public static func isLessThanOrEqual(_ a: MaxRegister<Int64>, _ b: MaxRegister<Int64>) -> Bool {
    a.isLessThanOrEqual(to: b)
  }
}

/// `PNCounter` against its specification: increments seen minus decrements seen.
public enum PNCounterModel: CRDTModel {
  public struct Operation: CustomStringConvertible, Sendable {
    let amount: Int
    public var description: String {
      amount >= 0 ? "increment by \(amount)" : "decrement by \(-amount)"
    }
  }

  public static let name = "PNCounter"
  public static func makeInitial() -> PNCounter { PNCounter() }

  public static func randomOperation(using random: inout SplitMix64) -> Operation {
    Operation(amount: random.int(in: -3...3))
  }

  public static func apply(
    _ operation: Operation, to state: inout PNCounter, replica: ReplicaID,
    timestamp: HybridTimestamp
  ) -> PNCounter? {
    operation.amount >= 0
      ? state.increment(by: UInt64(operation.amount), replica: replica)
      : state.decrement(by: UInt64(-operation.amount), replica: replica)
  }

  public static func observe(_ state: PNCounter) -> Int64 { state.value }

  public static func specification(of events: [Event<Operation>]) -> Int64 {
    events.reduce(0) { $0 + Int64($1.operation.amount) }
  }

  public static func isLessThanOrEqual(_ a: PNCounter, _ b: PNCounter) -> Bool {
    a.isLessThanOrEqual(to: b)
  }
}

/// `VersionVector` against its specification: per replica, the number of its events seen.
public enum VersionVectorModel: CRDTModel {
  public struct Operation: CustomStringConvertible, Sendable {
    public var description: String { "record an event" }
  }

  public static let name = "VersionVector"
  public static func makeInitial() -> VersionVector { VersionVector() }

  public static func randomOperation(using random: inout SplitMix64) -> Operation { Operation() }

  public static func apply(
    _ operation: Operation, to state: inout VersionVector, replica: ReplicaID,
    timestamp: HybridTimestamp
  ) -> VersionVector? {
    state[replica] += 1
    return VersionVector([replica: state[replica]])
  }

  public static func observe(_ state: VersionVector) -> VersionVector { state }

  public static func specification(of events: [Event<Operation>]) -> VersionVector {
    var counts = VersionVector()
    for event in events { counts[event.replica] += 1 }
    return counts
  }

  public static func isLessThanOrEqual(_ a: VersionVector, _ b: VersionVector) -> Bool {
    b.dominates(a)
  }
}
