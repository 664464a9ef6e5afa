import SemanticCRDT
import SharedSupport

// Reference models of ORMaps whose values are dot stores themselves. Keys and inner keys are
// drawn from two names each, and a third of the operations remove something, so that keys
// and inner keys are removed and created again concurrently with edits at every level.

private let outerKeys = ["k", "m"]
private let innerKeys = ["x", "y"]

/// The items of a dot store as the specification sees them: each live item named by the event
/// that created it, and the events the store has seen.
public struct CausalItems<Payload>: CustomStringConvertible {
  public var live: [Int: Payload]
  public var seen: Set<Int>

  /// A store that holds `live` and has seen `seen`.
  public init(live: [Int: Payload] = [:], seen: Set<Int> = []) {
    self.live = live
    self.seen = seen
  }

  /// The join of stores: an item survives unless a store has seen it and dropped it.
  public static func join(_ stores: [CausalItems]) -> CausalItems {
    var result = CausalItems()
    for store in stores {
      result.seen.formUnion(store.seen)
      for (id, payload) in store.live
      where stores.allSatisfy({ $0.live[id] != nil || !$0.seen.contains(id) }) {
        result.live[id] = payload
      }
    }
    return result
  }

  public var description: String { "live \(live.keys.sorted()), seen \(seen.sorted())" }
}

/// The specification of an `ORMap` whose values share its causal context (ADR 0011).
///
/// A key is present when some write of it is observed by no later event on it, and its value
/// is the join of what those writes wrote. A write wrote the value the key had in its own
/// causal past (`nil` where absent there), changed by its operation; and it has seen every
/// event of that past, so the items it drops stay dropped wherever it survives.
///
/// - Parameters:
///   - events: The events on the map; events of other objects may be left out, and the
///     observed sets may name them.
///   - key: The map key an operation touches.
///   - isRemoval: Whether an operation removes the key rather than writing it.
///   - write: The store a write leaves, from the write and the key's value in its past, or
///     `nil` for an operation that, given that past, changed nothing (and so supersedes
///     nothing).
public func sharedContextMapSpecification<Operation, Payload>(
  of events: [Event<Operation>], key: (Operation) -> String,
  isRemoval: (Operation) -> Bool,
  write: (Event<Operation>, CausalItems<Payload>?) -> CausalItems<Payload>?
) -> [String: CausalItems<Payload>] {
  let byID = Dictionary(uniqueKeysWithValues: events.map { ($0.id, $0) })
  var written: [Int: CausalItems<Payload>?] = [:]

  func value(of name: String, in seen: [Event<Operation>]) -> CausalItems<Payload>? {
    let effective = seen.filter {
      key($0.operation) == name && (isRemoval($0.operation) || store(writtenBy: $0) != nil)
    }
    let live = effective.maximal().compactMap { store(writtenBy: $0) }
    guard !live.isEmpty else { return nil }
    return CausalItems.join(live)
  }

  func store(writtenBy event: Event<Operation>) -> CausalItems<Payload>? {
    guard !isRemoval(event.operation) else { return nil }
    if let known = written[event.id] { return known }
    let past = event.observed.sorted().compactMap { byID[$0] }
    var result = write(event, value(of: key(event.operation), in: past))
    result?.seen.formUnion(event.observed)
    written[event.id] = result
    return result
  }

  var result: [String: CausalItems<Payload>] = [:]
  for name in Set(events.map { key($0.operation) }) {
    result[name] = value(of: name, in: events)
  }
  return result
}

/// The broken invariants of a map and of each value in it, each value's prefixed by its key.
func nestedInvariantViolations<Key, Value>(
  of map: ORMap<Key, Value>, value: (Value) -> [String]
) -> [String] {
  map.invariantViolations()
    + map.keys.flatMap { key in value(map[key]!).map { "\(key): \($0)" } }
}

extension CausalItems {
  /// The store after an event adds one item, replacing the live items `replaces` selects.
  public func replacing(where replaces: (Payload) -> Bool, with payload: Payload, by event: Int)
    -> CausalItems
  {
    var result = dropping(where: replaces)
    result.live[event] = payload
    result.seen.insert(event)
    return result
  }

  /// The store without the live items `drops` selects.
  public func dropping(where drops: (Payload) -> Bool) -> CausalItems {
    CausalItems(live: live.filter { !drops($0.value) }, seen: seen)
  }
}

/// `ORMap<String, MVRegister<Int>>`: assignments, clears that keep the key, writes that change
/// nothing, and removals of the key; every assignment no later event observed survives, as the
/// winner or a conflict.
public enum MapOfRegistersModel: CRDTModel {
  public enum Operation: CustomStringConvertible, Sendable {
    case assign(String, Int)
    case clear(String)
    case touch(String)
    case remove(String)
    public var description: String {
      switch self {
      case .assign(let key, let value): "assign \(key) = \(value)"
      case .clear(let key): "clear \(key)"
      case .touch(let key): "touch \(key)"
      case .remove(let key): "remove \(key)"
      }
    }
    var key: String {
      switch self {
      case .assign(let key, _), .clear(let key), .touch(let key), .remove(let key): key
      }
    }
  }

  public typealias State = ORMap<String, MVRegister<Int>>
  public static let name = "ORMap of MVRegister"
  public static func makeInitial() -> State { ORMap() }

  public static func randomOperation(using random: inout SplitMix64) -> Operation {
    let key = random.pick(outerKeys)
    switch random.int(in: 0..<10) {
    case 0..<5: return .assign(key, random.int(in: 0...3))
    case 5: return .clear(key)
    case 6: return .touch(key)
    default: return .remove(key)
    }
  }

  public static func apply(
    _ operation: Operation, to state: inout State, replica: ReplicaID, timestamp: HybridTimestamp
  ) -> State? {
    switch operation {
    case .assign(let key, let value):
      state.update(key, by: replica, default: MVRegister()) { $0.write(value, at: timestamp) }
    case .clear(let key):
      state.update(key, by: replica, default: MVRegister()) { $0.clear() }
    case .touch(let key):
      state.update(key, by: replica, default: MVRegister()) { _ in }
    case .remove(let key):
      state.remove(key)
    }
  }

  /// Per key, the surviving values, greatest timestamp (the winner) first.
  public static func stateForm(of delta: State) -> State { delta.stateForm }

  public static func observe(_ state: State) -> [String: [Int]] {
    Dictionary(uniqueKeysWithValues: state.keys.map { ($0, state[$0]!.writes.map(\.value)) })
  }

  public static func specification(of events: [Event<Operation>]) -> [String: [Int]] {
    sharedContextMapSpecification(
      of: events, key: \.key, isRemoval: { if case .remove = $0 { true } else { false } },
      write: { event, past -> CausalItems<(Int, HybridTimestamp)> in
        let past = past ?? CausalItems()
        switch event.operation {
        case .assign(_, let value):
          return past.replacing(where: { _ in true }, with: (value, event.timestamp), by: event.id)
        case .clear: return past.dropping { _ in true }
        case .touch, .remove: return past
        }
      }
    ).mapValues { store in store.live.values.sorted { $0.1 > $1.1 }.map(\.0) }
  }

  public static func isLessThanOrEqual(_ a: State, _ b: State) -> Bool {
    a.isLessThanOrEqual(to: b)
  }

  public static func invariantViolations(of state: State) -> [String] {
    nestedInvariantViolations(of: state) { $0.invariantViolations() }
  }
}

/// `ORMap<String, ORSet<String>>`: inserts and deletes of elements, and removals of the key;
/// an element is present when an insert of it survives that no surviving write has dropped.
public enum MapOfSetsModel: CRDTModel {
  public enum Operation: CustomStringConvertible, Sendable {
    case insert(String, String)
    case delete(String, String)
    case remove(String)
    public var description: String {
      switch self {
      case .insert(let key, let element): "insert \(element) into \(key)"
      case .delete(let key, let element): "delete \(element) from \(key)"
      case .remove(let key): "remove \(key)"
      }
    }
    var key: String {
      switch self {
      case .insert(let key, _), .delete(let key, _), .remove(let key): key
      }
    }
  }

  public typealias State = ORMap<String, ORSet<String>>
  public static let name = "ORMap of ORSet"
  public static func makeInitial() -> State { ORMap() }

  public static func randomOperation(using random: inout SplitMix64) -> Operation {
    let key = random.pick(outerKeys)
    switch random.int(in: 0..<10) {
    case 0..<5: return .insert(key, random.pick(innerKeys))
    case 5..<7: return .delete(key, random.pick(innerKeys))
    default: return .remove(key)
    }
  }

  public static func apply(
    _ operation: Operation, to state: inout State, replica: ReplicaID, timestamp: HybridTimestamp
  ) -> State? {
    switch operation {
    case .insert(let key, let element):
      state.update(key, by: replica, default: ORSet()) { $0.insert(element, by: replica) }
    case .delete(let key, let element):
      state.update(key, by: replica, default: ORSet()) { $0.remove(element) }
    case .remove(let key):
      state.remove(key)
    }
  }

  public static func stateForm(of delta: State) -> State { delta.stateForm }

  public static func observe(_ state: State) -> [String: Set<String>] {
    Dictionary(uniqueKeysWithValues: state.keys.map { ($0, state[$0]!.elements) })
  }

  public static func specification(of events: [Event<Operation>]) -> [String: Set<String>] {
    sharedContextMapSpecification(
      of: events, key: \.key, isRemoval: { if case .remove = $0 { true } else { false } },
      write: { event, past -> CausalItems<String> in
        let past = past ?? CausalItems()
        switch event.operation {
        case .insert(_, let element):
          return past.replacing(where: { $0 == element }, with: element, by: event.id)
        case .delete(_, let element): return past.dropping { $0 == element }
        case .remove: return past
        }
      }
    ).mapValues { Set($0.live.values) }
  }

  public static func isLessThanOrEqual(_ a: State, _ b: State) -> Bool {
    a.isLessThanOrEqual(to: b)
  }

  public static func invariantViolations(of state: State) -> [String] {
    nestedInvariantViolations(of: state) { $0.invariantViolations() }
  }
}

/// `ORMap<String, ORMap<String, LWWRegister<Int>>>`: fields set and removed inside a key, and
/// removals of the key. A field shows the latest of its surviving writes.
public enum MapOfMapsModel: CRDTModel {
  public enum Operation: CustomStringConvertible, Sendable {
    case set(String, String, Int)
    case removeField(String, String)
    case remove(String)
    public var description: String {
      switch self {
      case .set(let key, let field, let value): "set \(key).\(field) = \(value)"
      case .removeField(let key, let field): "remove \(key).\(field)"
      case .remove(let key): "remove \(key)"
      }
    }
    var key: String {
      switch self {
      case .set(let key, _, _), .removeField(let key, _), .remove(let key): key
      }
    }
  }

  public typealias State = ORMap<String, ORMap<String, LWWRegister<Int>>>
  public static let name = "ORMap of ORMap"
  public static func makeInitial() -> State { ORMap() }

  public static func randomOperation(using random: inout SplitMix64) -> Operation {
    let key = random.pick(outerKeys)
    switch random.int(in: 0..<10) {
    case 0..<5: return .set(key, random.pick(innerKeys), random.int(in: 0...3))
    case 5..<7: return .removeField(key, random.pick(innerKeys))
    default: return .remove(key)
    }
  }

  public static func apply(
    _ operation: Operation, to state: inout State, replica: ReplicaID, timestamp: HybridTimestamp
  ) -> State? {
    switch operation {
    case .set(let key, let field, let value):
      state.update(key, by: replica, default: ORMap()) {
        $0.set(field, to: LWWRegister(value, at: timestamp), by: replica)
      }
    case .removeField(let key, let field):
      state.update(key, by: replica, default: ORMap()) { $0.remove(field) }
    case .remove(let key):
      state.remove(key)
    }
  }

  public static func stateForm(of delta: State) -> State { delta.stateForm }

  public static func observe(_ state: State) -> [String: [String: Int]] {
    Dictionary(
      uniqueKeysWithValues: state.keys.map { key in
        let fields = state[key]!
        return (key, Dictionary(uniqueKeysWithValues: fields.keys.map { ($0, fields[$0]!.value) }))
      })
  }

  public static func specification(of events: [Event<Operation>]) -> [String: [String: Int]] {
    typealias Write = (field: String, value: Int, timestamp: HybridTimestamp)
    return sharedContextMapSpecification(
      of: events, key: \.key, isRemoval: { if case .remove = $0 { true } else { false } },
      write: { event, past -> CausalItems<Write> in
        let past = past ?? CausalItems()
        switch event.operation {
        case .set(_, let field, let value):
          return past.replacing(
            where: { $0.field == field }, with: (field, value, event.timestamp), by: event.id)
        case .removeField(_, let field): return past.dropping { $0.field == field }
        case .remove: return past
        }
      }
    ).mapValues { store in
      Dictionary(grouping: store.live.values, by: \.field).mapValues { writes in
        writes.max { $0.timestamp < $1.timestamp }!.value
      }
    }
  }

  public static func isLessThanOrEqual(_ a: State, _ b: State) -> Bool {
    a.isLessThanOrEqual(to: b)
  }

  public static func invariantViolations(of state: State) -> [String] {
    nestedInvariantViolations(of: state) { $0.invariantViolations() }
  }
}
