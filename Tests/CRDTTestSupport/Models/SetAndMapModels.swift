import SemanticCRDT
import SharedSupport

private let keyPool = ["a", "b", "c", "d"]

/// `ORSet<String>` against the add-wins specification: an element is present exactly when some
/// add of it has not been observed by a remove of it.
public enum ORSetModel: CRDTModel {
  public enum Operation: CustomStringConvertible, Sendable {
    case add(String)
    case remove(String)
    public var description: String {
      switch self {
      case .add(let element): "add \(element)"
      case .remove(let element): "remove \(element)"
      }
    }
    var element: String {
      switch self {
      case .add(let element), .remove(let element): element
      }
    }
  }

  public static let name = "ORSet"
  public static func makeInitial() -> ORSet<String> { ORSet() }

  public static func randomOperation(using random: inout SplitMix64) -> Operation {
    random.chance(0.6) ? .add(random.pick(keyPool)) : .remove(random.pick(keyPool))
  }

  public static func apply(
    _ operation: Operation, to state: inout ORSet<String>, replica: ReplicaID,
    timestamp: HybridTimestamp
  ) -> ORSet<String>? {
    switch operation {
    case .add(let element): state.insert(element, by: replica)
    case .remove(let element): state.remove(element)
    }
  }

  public static func observe(_ state: ORSet<String>) -> Set<String> { state.elements }

  public static func stateForm(of delta: ORSet<String>) -> ORSet<String> { delta.stateForm }

  public static func specification(of events: [Event<Operation>]) -> Set<String> {
    let removes = events.filter { if case .remove = $0.operation { true } else { false } }
    return Set(
      events.compactMap { event -> String? in
        guard case .add(let element) = event.operation else { return nil }
        let removed = removes.contains {
          $0.operation.element == element && event.isObserved(by: $0)
        }
        return removed ? nil : element
      })
  }

  public static func isLessThanOrEqual(_ a: ORSet<String>, _ b: ORSet<String>) -> Bool {
    a.isLessThanOrEqual(to: b)
  }

  public static func invariantViolations(of state: ORSet<String>) -> [String] {
    state.invariantViolations()
  }
}

/// `ORMap<String, GCounter>` against a recursive specification: a key is present when some
/// update of it has been observed by no later event on it; its value is the join of what those
/// updates wrote, and an update wrote the specification of its own causal past plus its
/// increment.
public enum ORMapModel: CRDTModel {
  public enum Operation: CustomStringConvertible, Sendable {
    case increment(String, by: UInt64)
    case remove(String)
    public var description: String {
      switch self {
      case .increment(let key, let amount): "increment \(key) by \(amount)"
      case .remove(let key): "remove \(key)"
      }
    }
    var key: String {
      switch self {
      case .increment(let key, _), .remove(let key): key
      }
    }
  }

  public static let name = "ORMap"
  public static func makeInitial() -> ORMap<String, GCounter> { ORMap() }

  public static func randomOperation(using random: inout SplitMix64) -> Operation {
    random.chance(0.7)
      ? .increment(random.pick(keyPool), by: UInt64(random.int(in: 1...3)))
      : .remove(random.pick(keyPool))
  }

  public static func apply(
    _ operation: Operation, to state: inout ORMap<String, GCounter>, replica: ReplicaID,
    timestamp: HybridTimestamp
  ) -> ORMap<String, GCounter>? {
    switch operation {
    case .increment(let key, let amount):
      state.update(key, by: replica, default: GCounter()) {
        $0.increment(by: amount, replica: replica)
      }
    case .remove(let key):
      state.remove(key)
    }
  }

  public static func stateForm(of delta: ORMap<String, GCounter>) -> ORMap<String, GCounter> {
    delta.stateForm
  }

  public static func observe(_ state: ORMap<String, GCounter>) -> [String: UInt64] {
    Dictionary(uniqueKeysWithValues: state.keys.map { ($0, state[$0]!.value) })
  }

  public static func specification(of events: [Event<Operation>]) -> [String: UInt64] {
    let byID = Dictionary(uniqueKeysWithValues: events.map { ($0.id, $0) })
    var written: [Int: [ReplicaID: UInt64]] = [:]

    func value(of key: String, in seen: [Event<Operation>]) -> [ReplicaID: UInt64]? {
      let onKey = seen.filter { $0.operation.key == key }
      let live = onKey.maximal().filter {
        if case .increment = $0.operation { true } else { false }
      }
      guard !live.isEmpty else { return nil }
      return live.reduce(into: [:]) { joined, update in
        joined.merge(write(of: update)) { max($0, $1) }
      }
    }

    func write(of update: Event<Operation>) -> [ReplicaID: UInt64] {
      if let known = written[update.id] { return known }
      guard case .increment(let key, let amount) = update.operation else { return [:] }
      let past = update.observed.sorted().map { byID[$0]! }
      var counts = value(of: key, in: past) ?? [:]
      counts[update.replica, default: 0] += amount
      written[update.id] = counts
      return counts
    }

    var result: [String: UInt64] = [:]
    for key in Set(events.map(\.operation.key)) {
      if let counts = value(of: key, in: events) { result[key] = counts.values.reduce(0, +) }
    }
    return result
  }

  public static func isLessThanOrEqual(
    _ a: ORMap<String, GCounter>, _ b: ORMap<String, GCounter>
  ) -> Bool {
    a.isLessThanOrEqual(to: b)
  }

  public static func invariantViolations(of state: ORMap<String, GCounter>) -> [String] {
    state.invariantViolations()
  }
}

/// `LWWMap<String, Int>` against its specification: per key, the event with the greatest
/// timestamp decides; a remove hides the key.
public enum LWWMapModel: CRDTModel {
  public enum Operation: CustomStringConvertible, Sendable {
    case set(String, Int)
    case remove(String)
    public var description: String {
      switch self {
      case .set(let key, let value): "set \(key) = \(value)"
      case .remove(let key): "remove \(key)"
      }
    }
    var key: String {
      switch self {
      case .set(let key, _), .remove(let key): key
      }
    }
  }

  public static let name = "LWWMap"
  public static func makeInitial() -> LWWMap<String, Int> { LWWMap() }

  public static func randomOperation(using random: inout SplitMix64) -> Operation {
    random.chance(0.7)
      ? .set(random.pick(keyPool), random.int(in: 0...2)) : .remove(random.pick(keyPool))
  }

  public static func apply(
    _ operation: Operation, to state: inout LWWMap<String, Int>, replica: ReplicaID,
    timestamp: HybridTimestamp
  ) -> LWWMap<String, Int>? {
    switch operation {
    case .set(let key, let value): state.set(key, to: value, at: timestamp)
    case .remove(let key): state.remove(key, at: timestamp)
    }
  }

  public static func observe(_ state: LWWMap<String, Int>) -> [String: Int] {
    Dictionary(uniqueKeysWithValues: state.keys.map { ($0, state[$0]!) })
  }

  public static func specification(of events: [Event<Operation>]) -> [String: Int] {
    var latest: [String: Event<Operation>] = [:]
    for event in events
    where latest[event.operation.key].map({ event.timestamp > $0.timestamp }) ?? true {
      latest[event.operation.key] = event
    }
    return latest.compactMapValues {
      if case .set(_, let value) = $0.operation { value } else { nil }
    }
  }

  public static func isLessThanOrEqual(_ a: LWWMap<String, Int>, _ b: LWWMap<String, Int>) -> Bool {
    a.isLessThanOrEqual(to: b)
  }

  public static func invariantViolations(of state: LWWMap<String, Int>) -> [String] {
    state.invariantViolations()
  }
}
