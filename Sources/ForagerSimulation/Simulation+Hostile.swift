import ForagerSync
import Foundation
import SemanticCRDT

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a hostile peer (a member's compromised device, a buggy build, a careless sync service)
/// does to a household now and then: each act is one attack the library defends against
/// (docs/security.md). The honest devices must still lose nothing they flushed.
package enum HostileAct: String, CaseIterable, Sendable {
  /// A state that claims writes of a household device's incarnation (current, earlier, or one
  /// not yet made) far beyond what any device writes (2³² and up), sometimes without that
  /// incarnation's writes of categories: sent as a message, or left in the folder as a
  /// replica file.
  case forgedClaims = "forged claims"
  /// A message on a peer's link acknowledging more of the receiver's changes than it made.
  case forgedAcknowledgment = "forged acknowledgment"
  /// A message on a peer's link saying it holds more of the peer's changes than it sent.
  case forgedThrough = "forged through"
  /// A delta on a peer's link starting after what the receiver merged of the peer.
  case forgedSince = "forged since"
  /// A message on a peer's link whose version (docs/decisions/0043) claims writes of the
  /// receiver's incarnation that it never made.
  case forgedVersion = "forged version"
  /// A message in flight with a byte changed, or cut short.
  case damagedMessage = "damaged message"
  /// A message sent earlier, delivered again much later.
  case replayedMessage = "replayed message"
  /// A device's journal in the folder cut at a random byte, as a partial copy leaves it.
  case cutJournal = "cut journal"
  /// A line of junk appended to a device's journal in the folder.
  case damagedLine = "damaged line"
  /// A link at a device's snapshot or journal name, pointing at a file outside the folder.
  case linkAtName = "link at a device's name"
  /// A FIFO at a device's journal name.
  case fifoAtName = "FIFO at a device's name"
  /// The device's next writes fail, into the folder or (files storage) into its own file: a
  /// write stopping after some bytes (ENOSPC, EIO, EFBIG), a failed fsync or a failed rename.
  case diskFault = "disk fault"
  /// A state a buggy build wrote: a list with an item naming a template that exists nowhere,
  /// which would leave the household unsound; every replica refuses it, whole (docs/security.md).
  case unsoundState = "unsound state"

  /// The acts against a transport and a storage.
  static func acts(for transport: SimulationTransport, storage: SimulationStorage = .memory)
    -> [HostileAct]
  {
    switch transport {
    case .messages:
      [
        .forgedClaims, .forgedAcknowledgment, .forgedThrough, .forgedSince, .damagedMessage,
        .replayedMessage, .forgedVersion, .unsoundState,
      ] + (storage == .files ? [.diskFault] : [])
    case .folder: [.forgedClaims, .cutJournal, .damagedLine, .linkAtName, .fifoAtName, .diskFault]
    }
  }
}

extension Simulation {
  /// Now and then the hostile peer acts against a household.
  mutating func maybeActHostile() {
    guard configuration.hostileRate > 0, random.chance(configuration.hostileRate) else { return }
    let household = random.int(in: 0..<configuration.households)
    let up = householdDevices[household].filter { devices[$0].isUp }
    guard let victim = up.isEmpty ? nil : random.pick(up) else { return }
    var acts = HostileAct.acts(for: configuration.transport, storage: configuration.storage)
    if let exposing = configuration.fault?.exposingActs, acts.contains(where: exposing.contains) {
      acts.removeAll { !exposing.contains($0) }
    }
    let act = random.pick(acts)
    report.hostileActs[act.rawValue, default: 0] += 1
    switch act {
    case .forgedClaims:
      if configuration.transport == .folder {
        leaveForgedFile(forgedState(of: household, claimingOn: nil), in: household)
      } else {
        // Past what any device writes, to any device; or only a little past what the victim
        // wrote, to the victim itself, which alone can tell.
        let forged = forgedState(of: household, claimingOn: random.chance(0.5) ? victim : nil)
        let link = random.pick(householdDevices[household].filter { $0 != victim })
        let sender = ReplicaStore.mintReplicaID(using: &random)
        let message = SyncMessage(
          household: householdIDs[household], sender: sender, through: 0, since: nil,
          recipient: nil, acknowledged: nil, state: forged)
        record("a hostile peer sends \(name(victim)) a state with forged claims", device: victim)
        receive(.message(message), from: link, into: victim)
      }
    case .forgedAcknowledgment, .forgedThrough, .forgedSince, .forgedVersion:
      forgeOnLink(act, to: victim)
    case .unsoundState:
      let link = random.pick(householdDevices[household].filter { $0 != victim })
      let stranger = unsoundStranger(of: household)
      let message = SyncMessage(
        household: householdIDs[household], sender: stranger.replicaID, through: 0, since: nil,
        recipient: nil, acknowledged: nil, state: stranger.state)
      record("a hostile peer sends \(name(victim)) an unsound state", device: victim)
      receive(.message(message), from: link, into: victim)
    case .damagedMessage:
      network.withMessageInFlight(pick: { random.int(in: 0..<$0) }) { message in
        var bytes =
          switch message.payload {
          case .message(let sent): sent.encoded()
          case .bytes(let bytes): bytes
          }
        guard !bytes.isEmpty else { return }
        let position = random.int(in: 0..<bytes.count)
        if random.chance(0.5) {
          bytes[position] ^= UInt8(random.int(in: 1...255))
        } else {
          bytes.removeSubrange(position...)
        }
        message.payload = .bytes(bytes)
      }
    case .replayedMessage:
      guard !sentMessages.isEmpty else { return }
      let message = random.pick(sentMessages)
      guard devices[message.to].isOnline(at: step) else { return }
      record("a hostile peer replays a message to \(name(message.to))", device: message.to)
      receive(message.payload, from: message.from, into: message.to)
    case .cutJournal, .damagedLine, .linkAtName, .fifoAtName:
      tamperWithFolder(act, at: victim)
    case .diskFault:
      let fault: FileFaults.Fault =
        switch random.int(in: 0..<4) {
        case 0: .flush(passing: random.int(in: 0...2))
        case 1: .rename(passing: random.int(in: 0...1))
        default:
          .write(
            stoppingAfter: random.int(in: 0...400), code: random.pick([ENOSPC, EIO, EFBIG]),
            passing: random.int(in: 0...2))
        }
      if devices[victim].store != nil
        && (configuration.transport != .folder || random.chance(0.5))
      {
        devices[victim].store!.faults.pending.append(fault)
        record("\(name(victim))'s disk will fail saving its file: \(fault)", device: victim)
      } else {
        devices[victim].folderProgress.faults.pending.append(fault)
        record("\(name(victim))'s disk will fail: \(fault)", device: victim)
      }
    }
  }

  /// A state of the household (a running device's, or an empty one) claiming writes of one of
  /// its incarnations (current, earlier, or one not made yet) far past what any device writes,
  /// which every replica refuses; or, with `owner`, of that device's current incarnation a
  /// little past what it wrote, which only that device can tell (ADR 0029).
  mutating func forgedState(of household: Int, claimingOn owner: Int?) -> HouseholdState {
    let up = householdDevices[household].compactMap { devices[$0].replica }
    var forged =
      up.isEmpty || random.chance(0.2)
      ? HouseholdState(householdID: householdIDs[household]) : random.pick(up).state
    let target: ReplicaID
    let claimed: UInt64
    if let owner, let replica = devices[owner].replica {
      target = replica.replicaID
      claimed = replica.state.greatestClaim(of: target) + UInt64(random.int(in: 1...1_000_000))
    } else {
      target = random.pick(
        up.flatMap { [$0.replicaID] + $0.pastIncarnations }
          + [ReplicaStore.mintReplicaID(using: &random)])
      claimed =
        random.chance(0.5)
        ? Dot.maximumCounter
        : HouseholdState.plausibleWritesPerReplica + UInt64(random.int(in: 1...1_000_000))
    }
    if random.chance(0.3) {
      // Without the incarnation's writes, as if they were removed: its own device can tell.
      // Another device's write under the same key stays, or the state would forge a removal
      // of it, which no check can tell from a person's (out of reach without signatures,
      // docs/security.md).
      let kernel = forged.categories.kernel
      var entries = kernel.entries
      for key in forged.categories.keys(holdingDotsOf: [target]) {
        entries[key] = DotSiblings(
          unsorted: entries[key]!.elements.filter { $0.dot.replica != target })
      }
      forged.categories = ORMap(kernel: DotKernel(entries: entries, context: kernel.context))
    }
    let claim = CausalContext(replicas: [target: CounterSet([1...claimed])])
    forged.categories.merge(ORMap(kernel: DotKernel(entries: [:], context: claim)))
    if random.chance(0.5) {
      forged.items.merge(ORMap(kernel: DotKernel(entries: [:], context: claim)))
    }
    return forged
  }

  /// A stranger's device of the household on a buggy build, and the state it writes: a list
  /// with one item on it whose template it lacks, under a name no device uses. It removes
  /// nothing any device wrote (a forged removal is out of reach without signatures,
  /// docs/security.md): its template is its own write, removed by itself.
  mutating func unsoundStranger(of household: Int) -> (replicaID: ReplicaID, state: HouseholdState)
  {
    var stranger = HouseholdReplica(
      joining: householdIDs[household], member: MemberID(uuid: nextUUID()),
      replica: ReplicaStore.mintReplicaID(using: &random),
      wallClock: devices[householdDevices[household][0]].wallClock)
    var state = stranger.state
    do {
      let list = try stranger.createWeeklyList(
        name: "A buggy build's list", id: WeeklyListID(uuid: nextUUID()))
      try stranger.addItem(
        "unheard-of spice", to: list.id, id: GroceryItemID(uuid: nextUUID()))
      state = stranger.state
      for key in state.ingredients.keys { state.ingredients.remove(key) }
    } catch {
      unexpectedFailures.append("step \(step): the hostile peer cannot make its state: \(error)")
    }
    return (stranger.replicaID, state)
  }

  /// A message on the link from a peer of `receiver`, made by its real session and then
  /// forged in one field.
  private mutating func forgeOnLink(_ act: HostileAct, to receiver: Int) {
    let household = devices[receiver].household
    let peers = householdDevices[household].filter { $0 != receiver && devices[$0].isUp }
    guard !peers.isEmpty else { return }
    let peer = random.pick(peers)
    // What the peer's session would send now, made on copies: the peer sends nothing.
    var peerReplica = devices[peer].replica!
    var peerSession = devices[peer].sessions[receiver] ?? SyncSession()
    let honest = peerSession.message(from: &peerReplica)
    let receiverSequence = devices[receiver].replica!.changes.log.sequence
    // Just ahead, which the sender's own changes soon overtake (then a delta starting there
    // would skip the changes between), or far ahead. A `through` only far ahead: one the
    // sender's changes reach is out of reach when the message carrying them is lost
    // (docs/security.md).
    let jump = UInt64(
      act != .forgedThrough && random.chance(0.7)
        ? random.int(in: 1...20) : random.int(in: 1_000...1_000_000))
    var acknowledged = honest.acknowledged
    var through = honest.through
    var since = honest.since
    var recipient = honest.recipient
    var state = honest.state
    var version = honest.senderVersion
    switch act {
    case .forgedAcknowledgment:
      acknowledged = receiverSequence + jump
      recipient = devices[receiver].replica!.replicaID
    case .forgedThrough:
      through = honest.through + jump
    case .forgedVersion:
      let victim = devices[receiver].replica!
      let made = victim.state.categories.context.maximum(of: victim.replicaID)
      version = version ?? peerReplica.state.version
      version!.categories.merge(VersionVector([victim.replicaID: made + jump]))
      // A full state carries no version besides its state's: the forgery is an announcement.
      if !honest.isDelta { state = nil }
    default:
      let merged = devices[receiver].sessions[peer]?.peer?.merged ?? 0
      since = merged + jump
      recipient = devices[receiver].replica!.replicaID
    }
    let forged = SyncMessage(
      household: honest.household, sender: honest.sender, through: through, since: since,
      recipient: recipient, acknowledged: acknowledged, state: state, senderVersion: version,
      compact: honest.isCompact)
    record(
      "a hostile peer sends \(name(receiver)) a message on \(name(peer))'s link with a \(act.rawValue)",
      device: receiver)
    receive(.message(forged), from: peer, into: receiver)
  }

  /// Leaves a replica file with `state` in the household's folder, as a stranger would.
  private mutating func leaveForgedFile(_ state: HouseholdState, in household: Int) {
    let stranger = "stranger-\(random.int(in: 1...3))"
    let replica = HouseholdReplica(
      state: state, member: MemberID(uuid: nextUUID()),
      clock: HybridClock(
        replica: ReplicaStore.mintReplicaID(using: &random),
        wallClock: devices[householdDevices[household][0]].wallClock))
    do {
      try SyncFolder(
        url: folder(of: household), deviceID: DeviceID(stranger)!, deviceName: stranger,
        coordination: FileCoordination.none
      )
      .publish(replica)
      record("a hostile peer leaves \(stranger)\(SyncFolder.fileSuffix) with forged claims")
    } catch {
      unexpectedFailures.append("step \(step): the hostile peer cannot write its file: \(error)")
    }
  }

  /// Damages `device`'s files in its household's folder.
  private mutating func tamperWithFolder(_ act: HostileAct, at device: Int) {
    let snapshot = folder(of: devices[device].household).appendingPathComponent(
      Self.folderID(of: device).rawValue + SyncFolder.fileSuffix)
    let journal = ReplicaJournal.url(of: snapshot)
    let path = journal.path
    // Only a regular file is cut or written to: opening a FIFO to write waits for a reader.
    var status = stat()
    let isRegular = lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    switch act {
    case .cutJournal:
      guard isRegular, status.st_size > 0 else { return }
      _ = truncate(path, off_t(random.int(in: 0..<Int(status.st_size))))
    case .damagedLine:
      guard isRegular, let handle = FileHandle(forWritingAtPath: path) else { return }
      let junk = (0..<random.int(in: 1...40)).map { _ in UInt8(random.int(in: 32...126)) }
      handle.seekToEndOfFile()
      handle.write(Data(junk + [0x0A]))
      handle.closeFile()
    case .linkAtName:
      let target = random.chance(0.5) ? snapshot : journal
      try? FileManager.default.removeItem(at: target)
      try? FileManager.default.createSymbolicLink(
        at: target, withDestinationURL: outsideFile(of: devices[device].household))
    default:
      try? FileManager.default.removeItem(at: journal)
      _ = mkfifo(path, 0o644)
    }
    record("a hostile peer leaves a \(act.rawValue) at \(name(device))'s files", device: device)
  }
}
