import ForagerSync
import SemanticCRDT

extension Simulation {
  /// The device sends a peer what the peer lacks as far as it knows (a delta since the peer's
  /// last known version), or now and then its full state. Rarely, a message goes to a device of
  /// another household (a misconfigured shared folder), which must refuse it.
  mutating func gossip(from sender: Int) {
    let household = devices[sender].household
    var peer = random.pick(householdDevices[household].filter { $0 != sender })
    if configuration.households > 1 && random.chance(0.002) {
      peer = random.pick(devices.indices.filter { devices[$0].household != household })
    }
    guard devices[sender].isOnline(at: step) else {
      report.blocked += 1
      return
    }
    let replica = devices[sender].replica!
    let state: HouseholdState
    var deltaFor: ReplicaID?
    if let known = devices[sender].knownVersions[peer], !random.chance(0.1) {
      guard let delta = replica.delta(since: known.version) else { return }
      state = delta
      deltaFor = known.replica
      report.deltas += 1
    } else {
      state = replica.state
      report.fullStates += 1
    }
    let message = Message(
      sequence: network.makeSequence(), from: sender, to: peer, state: state,
      sender: PeerVersion(replica: replica.replicaID, version: replica.state.version),
      deltaFor: deltaFor, legacy: configuration.baseline ? devices[sender].legacy : nil)
    report.messagesSent += 1
    if random.chance(configuration.dropRate) {
      report.dropped += 1
      return
    }
    network.send(message, arrivingAt: step + delay())
    if random.chance(configuration.duplicateRate) {
      report.duplicated += 1
      network.send(message, arrivingAt: step + delay())
    }
  }

  /// Steps until arrival: one to three, or held back up to thirty more when reordered.
  private mutating func delay() -> Int {
    var steps = random.int(in: 1...3)
    if random.chance(configuration.reorderRate) { steps += random.int(in: 5...30) }
    return steps
  }

  mutating func deliverMessagesDue() {
    for message in network.arrivals(at: step) {
      deliver(message)
    }
  }

  /// Delivers a message, unless its receiver is offline or down (then it is lost).
  mutating func deliver(_ message: Message) {
    guard devices[message.to].isOnline(at: step) else {
      report.blocked += 1
      return
    }
    report.delivered += 1
    if network.deliveredOutOfOrder(message) { report.reordered += 1 }
    if let deltaFor = message.deltaFor, deltaFor != devices[message.to].replica!.replicaID,
      configuration.fault != .trustsDeltasForEarlierIncarnations
    {
      // Computed for what an earlier incarnation had seen, which this one may not have.
      report.staleDeltasDiscarded += 1
    } else {
      receive(message.state, from: message.from, knowing: message.sender, into: message.to)
    }
    // The old design kept households apart too (one CloudKit zone each); only the identity
    // of records within a household is modelled.
    if let legacy = message.legacy, devices[message.from].household == devices[message.to].household
    {
      devices[message.to].legacy.merge(legacy)
      devices[message.to].save()
    }
  }

  /// Merges a state into a device and saves; a refused state changes nothing.
  ///
  /// - Returns: Whether the device's state changed.
  @discardableResult
  mutating func receive(
    _ state: HouseholdState, from sender: Int, knowing knowledge: PeerVersion?, into receiver: Int
  ) -> Bool {
    var incoming = state
    if configuration.fault == .mergeIgnoresIngredients {
      incoming.ingredients = ORMap()
    }
    let before = devices[receiver].replica!.state.version
    do {
      try devices[receiver].replica!.merge(incoming)
    } catch {
      switch error {
      case .differentHousehold:
        report.refusedOtherHousehold += 1
        record("\(name(receiver)) refuses a state from \(name(sender)): \(error)", device: receiver)
      case .clockSkew:
        report.refusedClockSkew += 1
        record("\(name(receiver)) refuses a state from \(name(sender)): \(error)", device: receiver)
      default:
        unexpectedFailures.append(
          "step \(step): \(name(receiver)) merging from \(name(sender)): \(error)")
      }
      return false
    }
    if let knowledge { devices[receiver].knownVersions[sender] = knowledge }
    // The state must be sound after every merge, not only once the network has healed: one
    // record per semantic key and no dangling reference, whatever arrived in what order.
    for problem in devices[receiver].replica!.state.invariantViolations() {
      unsoundAfterMerge.append(
        Violation(
          text: "step \(step): \(name(receiver)) after merging from \(name(sender)): \(problem)",
          devices: [receiver]))
    }
    devices[receiver].save()
    return devices[receiver].replica!.state.version != before
  }
}
