import Foundation
import SemanticCRDT
import SharedSupport

/// How a replica sends its state to a peer.
public enum Gossip: String, CaseIterable, Sendable {
  /// The whole state.
  case full
  /// `delta(since:)` the peer's current version.
  case delta
  /// `delta(since:)` a version the peer reported earlier: larger, never wrong.
  case staleDelta
}

/// One step of a random scenario of replicas and an unreliable network.
public enum Step<Operation: CustomStringConvertible & Sendable>: CustomStringConvertible, Sendable {
  /// Replica `replica` applies `operation` after wall time advances by `advance` ms.
  case operate(replica: Int, Operation, advance: UInt64)
  /// Replica `from` puts its state (or a delta) for `to` on the network.
  case send(from: Int, to: Int, Gossip)
  /// The network delivers one of the messages in flight (`pick` modulo their number), keeping
  /// a copy in flight when `duplicate` is set.
  case deliver(pick: Int, duplicate: Bool)
  /// The network loses one of the messages in flight.
  case drop(pick: Int)

  public var description: String {
    switch self {
    case .operate(let replica, let operation, let advance):
      "r\(replica): \(operation) (+\(advance) ms)"
    case .send(let from, let to, let gossip): "r\(from) → r\(to): send \(gossip.rawValue)"
    case .deliver(let pick, let duplicate): "deliver #\(pick)\(duplicate ? ", keep a copy" : "")"
    case .drop(let pick): "drop #\(pick)"
    }
  }
}

/// A random scenario: 2–5 replicas, each with its own skewed clock, applying random operations
/// while gossip is sent, dropped, duplicated and reordered; then a full exchange.
///
/// In half the scenarios the replicas' ids are accented (`"é"`), and every message crosses the
/// network as JSON whose text a transport has decomposed (`"e\u{301}"`), as file systems and
/// services that normalize names do: an id comes back spelled otherwise than its replica
/// spells it, and its place in the order of ids must not move.
///
/// At every step it checks what a replica shows against the model's specification of the
/// events it has seen, the state's invariants, and each mutation's delta (`pre ⊔ delta ==
/// post`). At the end it checks the merge laws and the delta law on the states reached, and
/// that after a full exchange every replica is equal and shows the specification of all events.
public struct ReplicaScenario<Model: CRDTModel> {
  /// Replica ids in order; two replicas always exist.
  public let replicas: [ReplicaID]
  /// Per replica, a fixed clock offset in ms, so clocks disagree.
  public let skews: [UInt64]
  public let steps: [Step<Model.Operation>]
  /// Whether each message is delivered through JSON in Unicode's decomposed form (NFD).
  public let decomposesMessages: Bool

  /// A scenario of given steps: a regression case written out.
  public init(
    replicas: [ReplicaID], skews: [UInt64], steps: [Step<Model.Operation>],
    decomposesMessages: Bool = false
  ) {
    self.replicas = replicas
    self.skews = skews
    self.steps = steps
    self.decomposesMessages = decomposesMessages
  }

  /// Ids for accented scenarios, in the order of their precomposed spellings, as `"r0"`… are.
  /// Decomposed, `"é"` sorts between `"d"` and `"f"`, and `"ñ"` before a composed `"é"`, so a
  /// spelling that moved an id would change which of two writes at one instant wins.
  public static var accentedReplicas: [ReplicaID] {
    ["d", "f", "\u{E9}", "\u{E9}\u{E9}", "\u{F1}"]
  }

  /// Draws a scenario of up to `maximumSteps` steps.
  public static func random(using random: inout SplitMix64, maximumSteps: Int = 60) -> Self {
    let count = random.int(in: 2...5)
    let skews = (0..<count).map { _ in UInt64(random.int(in: 0...3)) }
    var steps: [Step<Model.Operation>] = []
    for _ in 0..<random.int(in: 1...maximumSteps) {
      let roll = random.int(in: 0..<100)
      if roll < 45 {
        let advance: UInt64 = random.chance(0.6) ? 0 : UInt64(random.int(in: 1...3))
        steps.append(
          .operate(
            replica: random.int(in: 0..<count), Model.randomOperation(using: &random),
            advance: advance))
      } else if roll < 70 {
        let from = random.int(in: 0..<count)
        var to = random.int(in: 0..<(count - 1))
        if to >= from { to += 1 }
        steps.append(.send(from: from, to: to, random.pick(Gossip.allCases)))
      } else if roll < 92 {
        steps.append(.deliver(pick: random.int(in: 0...7), duplicate: random.chance(0.2)))
      } else {
        steps.append(.drop(pick: random.int(in: 0...7)))
      }
    }
    // Drawn last, so that a seed draws the steps it drew before accented scenarios existed.
    let accented = random.chance(0.5)
    let replicas = (0..<count).map {
      accented ? accentedReplicas[$0] : ReplicaID("r\($0)")
    }
    return ReplicaScenario(
      replicas: replicas, skews: skews, steps: steps, decomposesMessages: accented)
  }

  /// The scenario with other steps (for shrinking).
  public func with(steps: [Step<Model.Operation>]) -> Self {
    ReplicaScenario(
      replicas: replicas, skews: skews, steps: steps, decomposesMessages: decomposesMessages)
  }

  private struct Message {
    let to: Int
    let payload: Model.State
    let isDelta: Bool
    /// The sender's whole state when it sent, to classify the merge as concurrent or not.
    let senderState: Model.State
    let history: Set<Int>
  }

  /// Runs the scenario and returns the first violated property, or `nil`.
  public func run() -> String? {
    var statistics = ScenarioStatistics()
    return run(statistics: &statistics)
  }

  /// Runs the scenario, adding what it exercised to `statistics`, and returns the first violated
  /// property, or `nil`.
  public func run(statistics: inout ScenarioStatistics) -> String? {
    var states = replicas.map { _ in Model.makeInitial() }
    var clocks = replicas.map {
      HybridClock(replica: $0, wallClock: .fixed(0), maximumSkewMilliseconds: .max)
    }
    var histories = replicas.map { _ in Set<Int>() }
    var pastVersions = replicas.map { _ in [Model.State.Version]() }
    var reachable: [Model.State] = []
    var events: [Event<Model.Operation>] = []
    var inFlight: [Message] = []
    var now: UInt64 = 1_000
    // Per replica, the join of every delta its mutations returned.
    var mutationDeltas = replicas.map { _ -> Model.State? in nil }

    func check(_ index: Int, after what: String) -> String? {
      let state = states[index]
      if let problem = Model.invariantViolations(of: state).first {
        return "After \(what), r\(index) breaks an invariant: \(problem)"
      }
      let seen = events.filter { histories[index].contains($0.id) }
      let expected = Model.specification(of: seen)
      let actual = Model.observe(state)
      if actual != expected {
        return
          "After \(what), r\(index) shows \(actual) but the specification of the \(seen.count) events it has seen says \(expected)"
      }
      return nil
    }

    for (number, step) in steps.enumerated() {
      let label = "step \(number + 1) (\(step))"
      switch step {
      case .operate(let index, let operation, let advance):
        now += advance
        let timestamp = clocks[index].tick(wallMilliseconds: now + skews[index])
        let before = states[index]
        let delta = Model.apply(
          operation, to: &states[index], replica: replicas[index], timestamp: timestamp)
        // The replica's clock has seen what its own write stamped, as a device's clock does, so
        // its next event is stamped after all of it.
        if let stamp = Model.greatestTimestamp(of: states[index]) {
          try! clocks[index].observe(stamp)
        }
        events.append(
          Event(
            id: events.count, replica: replicas[index], operation: operation, timestamp: timestamp,
            observed: histories[index]))
        histories[index].insert(events.count - 1)
        if let delta, before.merging(delta) != states[index] {
          return
            "At \(label): merging the mutation's delta into the state before it does not give the state after it"
        }
        if delta == nil && before != states[index] {
          return "At \(label): the mutation changed the state but returned no delta"
        }
        if let delta {
          mutationDeltas[index] = mutationDeltas[index].map { $0.merging(delta) } ?? delta
          if let problem = checkKeyedDeltas(
            [delta, mutationDeltas[index]!], mergedInto: states, at: label)
          {
            return problem
          }
        }
        if let problem = check(index, after: label) { return problem }
        statistics.operations += 1
        reachable.append(states[index])
      case .send(let from, let to, let gossip):
        pastVersions[to].append(states[to].version)
        let payload: Model.State?
        switch gossip {
        case .full: payload = states[from]
        case .delta: payload = states[from].delta(since: states[to].version)
        case .staleDelta:
          payload = states[from].delta(since: pastVersions[to][pastVersions[to].count / 2])
        }
        if let payload {
          inFlight.append(
            Message(
              to: to, payload: payload, isDelta: gossip != .full, senderState: states[from],
              history: histories[from]))
        }
      case .deliver(let pick, let duplicate):
        guard !inFlight.isEmpty else { continue }
        let message =
          duplicate ? inFlight[pick % inFlight.count] : inFlight.remove(at: pick % inFlight.count)
        if let stamp = Model.greatestTimestamp(of: message.payload) {
          try! clocks[message.to].observe(stamp)
        }
        let before = states[message.to]
        guard let payload = delivered(message.payload) else {
          return "At \(label): the message did not decode in Unicode's decomposed form"
        }
        states[message.to].merge(payload)
        histories[message.to].formUnion(message.history)
        if let problem = check(message.to, after: label) { return problem }
        statistics.record(
          delivery: message.isDelta, duplicate: duplicate, changed: before != states[message.to],
          concurrent: !Model.isLessThanOrEqual(before, message.senderState)
            && !Model.isLessThanOrEqual(message.senderState, before))
        reachable.append(states[message.to])
      case .drop(let pick):
        if !inFlight.isEmpty {
          inFlight.remove(at: pick % inFlight.count)
          statistics.dropped += 1
        }
      }
    }

    if let problem = checkLaws(on: states + reachable.suffix(4)) { return problem }

    // Heal: a full exchange in both directions reaches every replica.
    for _ in 0..<2 {
      for receiver in states.indices {
        for sender in states.indices where sender != receiver {
          states[receiver].merge(states[sender])
          histories[receiver].formUnion(histories[sender])
        }
      }
    }
    for index in states.indices {
      if states[index] != states[0] {
        return "After a full exchange r\(index) differs from r0: \(states[index]) vs \(states[0])"
      }
      if let problem = check(index, after: "the full exchange") { return problem }
    }
    return nil
  }

  /// `payload` as the network delivers it: itself, or when the scenario decomposes messages,
  /// decoded from its JSON in Unicode's decomposed form (NFD); `nil` if that does not decode.
  private func delivered(_ payload: Model.State) -> Model.State? {
    guard decomposesMessages else { return payload }
    guard let text = try? String(decoding: JSONEncoder().encode(payload), as: UTF8.self) else {
      return nil
    }
    let decomposed = Data(text.decomposedStringWithCanonicalMapping.utf8)
    return try? JSONDecoder().decode(Model.State.self, from: decomposed)
  }

  /// That each keyed delta (a mutation's, and the join of a replica's mutations) merged into
  /// each replica's state gives what its state form gives: the keys a delta names as removed
  /// are all the keys whose dots it drops anywhere, wherever the replica's state stands.
  private func checkKeyedDeltas(
    _ deltas: [Model.State], mergedInto states: [Model.State], at label: String
  ) -> String? {
    for (number, delta) in deltas.enumerated() {
      let stateForm = Model.stateForm(of: delta)
      for (index, state) in states.enumerated()
      where state.merging(delta) != state.merging(stateForm) {
        return
          "At \(label): merging \(number == 0 ? "the mutation's delta" : "the join of the replica's mutation deltas") into r\(index) differs from merging it as a state: a removed key it does not name\n delta = \(delta)\n r\(index) = \(state)"
      }
    }
    return nil
  }

  /// Commutativity, associativity, idempotence, inflation, the delta law and a deterministic
  /// Codable round trip on every pair and triple of `states`.
  func checkLaws(on states: [Model.State]) -> String? {
    for (i, a) in states.enumerated() {
      if let problem = checkCodableRoundTrip(a) { return "State \(i): \(problem)" }
      if a.merging(a) != a { return "Idempotence fails for state \(i): \(a)" }
      for (j, b) in states.enumerated() where j != i {
        let ab = a.merging(b)
        if ab != b.merging(a) {
          return "Commutativity fails for states \(i), \(j):\n a = \(a)\n b = \(b)"
        }
        if !Model.isLessThanOrEqual(a, ab) || !Model.isLessThanOrEqual(b, ab) {
          return
            "Inflation fails for states \(i), \(j): the merge lost an update\n a = \(a)\n b = \(b)\n a ⊔ b = \(ab)"
        }
        let viaDelta = b.delta(since: a.version).map { a.merging($0) } ?? a
        if viaDelta != ab {
          return
            "Delta law fails: a ⊔ b.delta(since: a.version) ≠ a ⊔ b for states \(i), \(j)\n a = \(a)\n b = \(b)"
        }
        if let problem = Model.invariantViolations(of: ab).first {
          return "Merge of states \(i), \(j) breaks an invariant: \(problem)"
        }
        for (k, c) in states.enumerated() where k != i && k != j {
          if ab.merging(c) != a.merging(b.merging(c)) {
            return "Associativity fails for states \(i), \(j), \(k)"
          }
        }
      }
    }
    return nil
  }
}

/// What random scenarios exercised, so a test can show they are not degenerate.
public struct ScenarioStatistics: Sendable {
  public var operations = 0
  public var deliveries = 0
  public var deltaDeliveries = 0
  public var duplicatedDeliveries = 0
  public var dropped = 0
  /// Deliveries after which the receiver's state differed.
  public var mergesThatChangedState = 0
  /// Deliveries where each side held something the other lacked.
  public var concurrentMerges = 0

  public init() {}

  mutating func record(delivery isDelta: Bool, duplicate: Bool, changed: Bool, concurrent: Bool) {
    deliveries += 1
    if isDelta { deltaDeliveries += 1 }
    if duplicate { duplicatedDeliveries += 1 }
    if changed { mergesThatChangedState += 1 }
    if concurrent { concurrentMerges += 1 }
  }
}

/// Encodes `value` with sorted keys, decodes it, and checks that the result is equal and encodes
/// to identical bytes.
public func checkCodableRoundTrip<Value: Codable & Equatable>(_ value: Value) -> String? {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.sortedKeys]
  do {
    let bytes = try encoder.encode(value)
    let decoded = try JSONDecoder().decode(Value.self, from: bytes)
    if decoded != value { return "Codable round trip changed the value: \(value) → \(decoded)" }
    if try encoder.encode(decoded) != bytes { return "Re-encoding gave different bytes" }
    return nil
  } catch {
    return "Codable round trip threw \(error)"
  }
}

/// Runs `ReplicaScenario<Model>` as a property: random scenarios, shrunk on failure.
public func checkScenarios<Model: CRDTModel>(
  _ model: Model.Type, iterations: Int, maximumSteps: Int = 60, regressionSeeds: [UInt64] = []
) -> PropertyFailure? {
  var shape: ReplicaScenario<Model>?
  return checkProperty(
    "scenario \(Model.name)", iterations: iterations, regressionSeeds: regressionSeeds,
    generate: { random in
      let scenario = ReplicaScenario<Model>.random(using: &random, maximumSteps: maximumSteps)
      shape = scenario
      return scenario.steps
    },
    check: { steps in shape!.with(steps: steps).run() })
}
