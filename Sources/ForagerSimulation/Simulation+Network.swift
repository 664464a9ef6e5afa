import ForagerSync
import SemanticCRDT

extension Simulation {
  /// The device syncs with a peer: through the library's ``SyncSession`` with it (a delta of
  /// what the peer lacks, or the full state while the peer has acknowledged nothing), or
  /// through the household's shared folder. Rarely, a message goes to a device of another
  /// household (a misconfigured link), which must refuse it.
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
    if configuration.transport == .folder {
      syncThroughFolder(sender)
      return
    }
    let message = sessionMessage(from: sender, to: peer)
    if message.isDelta {
      report.deltas += 1
      report.deltaRecords += message.state?.recordCount ?? 0
      report.deltaContextRanges += message.state?.contextRangeCount ?? 0
    } else if message.isAnnouncement {
      report.announcements += 1
    } else {
      report.fullStates += 1
    }
    let wire = Message(
      sequence: network.makeSequence(), from: sender, to: peer, payload: .message(message),
      legacy: configuration.baseline ? devices[sender].legacy : nil)
    report.messagesSent += 1
    if configuration.hostileRate > 0 {
      sentMessages.append(wire)
      if sentMessages.count > 32 { sentMessages.removeFirst() }
    }
    if random.chance(configuration.dropRate) {
      report.dropped += 1
      return
    }
    network.send(wire, arrivingAt: step + delay())
    if random.chance(configuration.duplicateRate) {
      report.duplicated += 1
      network.send(wire, arrivingAt: step + delay())
    }
  }

  /// What `sender`'s session with `peer` sends it now (the session notes what it sent).
  mutating func sessionMessage(from sender: Int, to peer: Int) -> SyncMessage {
    var session = devices[sender].sessions[peer] ?? newSession()
    let message = session.message(from: &devices[sender].replica!)
    devices[sender].sessions[peer] = session
    return asTheSendersBuildWrites(message, sender)
  }

  /// A device's session with a peer it has no session with (since its start).
  func newSession() -> SyncSession {
    SyncSession(announcingVersions: configuration.announcesVersions)
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
    receive(message.payload, from: message.from, into: message.to)
    // The old design kept households apart too (one CloudKit zone each); only the identity
    // of records within a household is modelled.
    if let legacy = message.legacy, devices[message.from].household == devices[message.to].household
    {
      devices[message.to].legacy.merge(legacy)
      noteFailedSave(devices[message.to].save(), on: message.to)
    }
  }

  /// Gives a message to the receiver's session with the device it came from (whoever made
  /// it); bytes are read as the library reads them, and refused when they do not read.
  ///
  /// - Returns: Whether the receiver's state changed.
  @discardableResult
  mutating func receive(_ payload: Message.Payload, from sender: Int, into receiver: Int) -> Bool {
    let message: SyncMessage
    do {
      switch payload {
      case .message(let sent): message = sent
      case .bytes(let bytes): message = try SyncMessage(decoding: bytes)
      }
    } catch {
      report.defences.refusedUnreadable += 1
      noteRefusalByOlder(from: sender, into: receiver, error)
      record("\(name(receiver)) refuses a message from \(name(sender)): \(error)", device: receiver)
      return false
    }
    return receive(message, from: sender, into: receiver)
  }

  /// Merges a message through the receiver's session with `sender` and saves; a refused or
  /// discarded message changes nothing.
  ///
  /// - Returns: Whether the receiver's state changed.
  @discardableResult
  mutating func receive(_ message: SyncMessage, from sender: Int, into receiver: Int) -> Bool {
    guard !refusesAsNewer(message, from: sender, into: receiver) else { return false }
    let message = carryingAsTheReceiversBuild(injectingMergeFaults(into: message), receiver)
    var session = devices[receiver].sessions[sender] ?? newSession()
    let ignoredBefore = (
      acknowledgments: session.ignoredAcknowledgments, versions: session.ignoredVersions
    )
    let before = devices[receiver].replica!.state.version
    let shelvesBefore = devices[receiver].replica!.state[carried: Shelf.map].context
    let result = Result { () throws(HouseholdError) in
      try session.receive(message, into: &devices[receiver].replica!)
    }
    // A session learns the sender's incarnation even from a message it refuses.
    devices[receiver].sessions[sender] = session
    report.defences.ignoredAcknowledgments +=
      session.ignoredAcknowledgments - ignoredBefore.acknowledgments
    report.defences.ignoredVersions += session.ignoredVersions - ignoredBefore.versions
    var mergeChanged = false
    switch result {
    case .failure(let error):
      switch error {
      case .differentHousehold:
        report.refusedOtherHousehold += 1
      case .clockSkew:
        report.refusedClockSkew += 1
      case .deltaSkipsChanges:
        report.defences.refusedSkippingDeltas += 1
      case .implausibleClaim:
        report.defences.refusedForgedClaims += 1
      case .unsoundMerge where configuration.fault == .mergeTakesUnsoundStates:
        takeUnsoundState(message, from: sender, into: receiver)
        return true
      case .unsoundMerge:
        report.defences.refusedUnsoundStates += 1
      default:
        unexpectedFailures.append(
          "step \(step): \(name(receiver)) merging from \(name(sender)): \(error)")
        noteRefusalByOlder(from: sender, into: receiver, error)
        return false
      }
      record("\(name(receiver)) refuses a message from \(name(sender)): \(error)", device: receiver)
      return false
    case .success(nil):
      // A delta for an earlier incarnation of the receiver, which may lack what it assumes.
      report.staleDeltasDiscarded += 1
      return false
    case .success(let merged?):
      noteDefences(merged, on: receiver)
      noteShelvesMerged(into: receiver, before: shelvesBefore)
      mergeChanged = !merged.changes.isEmpty
    }
    checkSoundness(of: receiver, after: "merging from \(name(sender))")
    // A merge that only removes records leaves the version as it was.
    let changed = mergeChanged || devices[receiver].replica!.state.version != before
    noteFailedSave(devices[receiver].save(merged: changed), on: receiver)
    return changed
  }

  /// Merges a state the replica refused as unsound, as a build without the merge's model check
  /// would, and checks and saves as after any merge.
  private mutating func takeUnsoundState(
    _ message: SyncMessage, from sender: Int, into receiver: Int
  ) {
    guard let state = message.state else { return }
    // A journal line's replay leaves the model's check to its caller: the merge without it.
    var claimed: Set<ReplicaID> = []
    do {
      try devices[receiver].replica!.replay(state, clockReading: nil, claimed: &claimed)
    } catch {
      unexpectedFailures.append("step \(step): \(name(receiver)) replaying a state: \(error)")
      return
    }
    record("\(name(receiver)) takes an unsound state from \(name(sender))", device: receiver)
    checkSoundness(of: receiver, after: "merging from \(name(sender))")
    noteFailedSave(devices[receiver].save(merged: true), on: receiver)
  }

  /// The message as a receiver with the deliberate merge bug would take it.
  private func injectingMergeFaults(into message: SyncMessage) -> SyncMessage {
    guard configuration.fault == .mergeIgnoresIngredients, var state = message.state else {
      return message
    }
    state.ingredients = ORMap()
    return message.carrying(state)
  }

  /// What a merge's report says a device did against forged claims on its own writes: its
  /// re-issued writes now carry its new incarnation's stamps (ADR 0029), which the checks of
  /// the final state follow.
  mutating func noteDefences(_ merged: MergeReport, on device: Int) {
    report.defences.forgedClaims += merged.forgedClaims.count
    // A claim on an earlier incarnation whose records were written again already is found
    // again in every state that relays it, and changes nothing more.
    guard merged.reissuedRecords > 0 else { return }
    let incarnation = devices[device].replica!.replicaID
    report.defences.reissuedRecords += merged.reissuedRecords
    for claimed in merged.forgedClaims where claimed != incarnation {
      reissuedAs[claimed, default: []].insert(incarnation)
    }
    record(
      "\(name(device)) finds forged claims on its writes of \(merged.forgedClaims.map(\.description).joined(separator: ", ")) and writes \(merged.reissuedRecords) records again as \(incarnation)",
      device: device)
  }

  /// The state must be sound after every merge, not only once the network has healed: one
  /// record per semantic key and no dangling reference, whatever arrived in what order.
  func checkSoundness(of device: Int, after what: String) {
    soundness.check(
      devices[device].replica!.state, device: device,
      what: "step \(step): \(name(device)) after \(what)")
  }
}
