import CRDTTestSupport
import SemanticCRDT
import SharedSupport

/// A grow-only counter whose merge adds the other side's counts instead of taking the maximum:
/// not idempotent, so the kit must reject it.
struct SummingCounter: DeltaMergeable, Equatable, Codable {
  var counts: [String: UInt64] = [:]
  var value: UInt64 { counts.values.reduce(0, +) }

  mutating func merge(_ other: SummingCounter) {
    counts.merge(other.counts, uniquingKeysWith: +)
  }

  var version: VersionVector { VersionVector() }
  func delta(since version: VersionVector) -> SummingCounter? { self }
}

enum SummingCounterModel: CRDTModel {
  struct Operation: CustomStringConvertible, Sendable {
    var description: String { "increment" }
  }
  static let name = "SummingCounter"
  static func makeInitial() -> SummingCounter { SummingCounter() }
  static func randomOperation(using random: inout SplitMix64) -> Operation { Operation() }
  static func apply(
    _ operation: Operation, to state: inout SummingCounter, replica: ReplicaID,
    timestamp: HybridTimestamp
  ) -> SummingCounter? {
    state.counts[replica.rawValue, default: 0] += 1
    return nil
  }
  static func observe(_ state: SummingCounter) -> UInt64 { state.value }
  static func specification(of events: [Event<Operation>]) -> UInt64 { UInt64(events.count) }
  static func isLessThanOrEqual(_ a: SummingCounter, _ b: SummingCounter) -> Bool {
    a.counts.allSatisfy { $0.value <= b.counts[$0.key] ?? 0 }
  }
}

/// A last-writer-wins register that compares wall time and logical counter but, on a tie,
/// keeps its own value instead of breaking the tie by replica id.
struct LeftBiasedRegister: DeltaMergeable, Equatable, Codable {
  var value = 0
  var timestamp = HybridTimestamp(wallMilliseconds: 0, replica: "initial")

  mutating func merge(_ other: LeftBiasedRegister) {
    let mine = (timestamp.wallMilliseconds, timestamp.logical)
    let theirs = (other.timestamp.wallMilliseconds, other.timestamp.logical)
    if theirs > mine { self = other }
  }

  var version: HybridTimestamp { timestamp }
  func delta(since version: HybridTimestamp) -> LeftBiasedRegister? { self }
}

enum LeftBiasedRegisterModel: CRDTModel {
  struct Operation: CustomStringConvertible, Sendable {
    let value: Int
    var description: String { "assign \(value)" }
  }
  static let name = "LeftBiasedRegister"
  static func makeInitial() -> LeftBiasedRegister { LeftBiasedRegister() }
  static func randomOperation(using random: inout SplitMix64) -> Operation {
    Operation(value: random.int(in: 0...3))
  }
  static func apply(
    _ operation: Operation, to state: inout LeftBiasedRegister, replica: ReplicaID,
    timestamp: HybridTimestamp
  ) -> LeftBiasedRegister? {
    let write = LeftBiasedRegister(value: operation.value, timestamp: timestamp)
    state.merge(write)
    return write
  }
  static func observe(_ state: LeftBiasedRegister) -> Int { state.value }
  static func specification(of events: [Event<Operation>]) -> Int {
    events.max { $0.timestamp < $1.timestamp }?.operation.value ?? 0
  }
  static func isLessThanOrEqual(_ a: LeftBiasedRegister, _ b: LeftBiasedRegister) -> Bool {
    (a.timestamp.wallMilliseconds, a.timestamp.logical) <= (
      b.timestamp.wallMilliseconds, b.timestamp.logical
    )
  }
}
