import ForagerSync
import SemanticCRDT

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension Simulation {
  /// Now and then a group of devices of one household goes into airplane mode for a while:
  /// they keep working but send and receive nothing.
  mutating func maybePartition() {
    guard configuration.partitions > 0, configuration.steps > 0,
      random.chance(Double(configuration.partitions) / Double(configuration.steps))
    else { return }
    let household = random.int(in: 0..<configuration.households)
    let members = householdDevices[household]
    let size = random.int(in: 1...max(1, members.count / 2))
    let duration = random.int(in: 10...max(10, configuration.steps / 10))
    var cut: [Int] = []
    for index in random.shuffled(members).prefix(size) {
      devices[index].offlineUntil = max(devices[index].offlineUntil, step + duration)
      cut.append(index + 1)
    }
    record(
      "devices \(cut.map(String.init).joined(separator: ", ")) of household \(household + 1) go offline for \(duration) steps"
    )
  }

  /// Now and then a device crashes: idle, or in the middle of saving a change (which is then
  /// lost, never acknowledged and never sent). It restarts a few steps later.
  mutating func maybeCrash() {
    guard random.chance(configuration.crashRate) else { return }
    let index = random.int(in: 0..<devices.count)
    guard devices[index].isUp else { return }
    report.crashes += 1
    if configuration.scenario.runsWorkload && random.chance(0.5) {
      report.crashesDuringSave += 1
      // The change happens in memory; the crash comes before the new file replaces the old.
      let saved = devices[index]
      performOperation(on: index, acknowledged: false)
      if devices[index].store != nil {
        // The save starts, and its write stops part-way: shorter than any line or snapshot,
        // so the file on disk must open as it was.
        devices[index].store!.faults.pending.append(
          .write(stoppingAfter: random.int(in: 0...200), code: EIO))
        devices[index].save()
      }
      devices[index] = saved
      report.lostInCrashedSaves += 1
      record("\(name(index)) crashes while saving a change", device: index)
    } else {
      record("\(name(index)) crashes", device: index)
    }
    if let running = devices[index].replica?.state, running != devices[index].disk?.state {
      // A save failed since the last that succeeded: what only the running replica held is
      // gone with it.
      markWritesLost(of: index, from: running, keeping: devices[index].disk?.state)
    }
    if !devices[index].crash() {
      unexpectedFailures.append("step \(step): \(name(index)) crashes with a change it never saved")
    }
    devices[index].downUntil = step + random.int(in: 1...20)
  }

  mutating func restartDevicesDue() {
    for index in devices.indices {
      if let due = devices[index].downUntil, due <= step { restart(index) }
    }
  }

  /// Starts a crashed device from its file, or (amnesia) from its older backup.
  mutating func restart(_ index: Int) {
    let fromBackup = random.chance(configuration.amnesiaRate)
    let previous = devices[index].disk?.replica
    var incarnation = nextReplicaID()
    if configuration.fault == .restartKeepsReplicaID, let previous { incarnation = previous }
    if fromBackup {
      report.restoredFromBackup += 1
      markWritesLostToRestore(of: index)
    }
    do {
      let saved = try devices[index].restart(
        fromBackup: fromBackup, incarnation: incarnation, incarnationSeed: random.next(),
        configuration: configuration)
      if let saved {
        soundness.readBack(
          saved, file: devices[index].file, fault: configuration.fault, device: index,
          what: "step \(step): \(name(index)) restarts")
      }
      record(
        "\(name(index)) restarts from its \(fromBackup ? "backup (amnesia)" : "file") as replica \(incarnation)",
        device: index)
      maybeUpgrade(index)
    } catch {
      unexpectedFailures.append(
        "step \(step): \(name(index)) cannot open its file: \(withoutFolderRoot(error.description))"
      )
      devices[index].downUntil = nil
    }
  }

  /// A restore from backup loses what only this device's file held since the backup: writes
  /// whose dots its file had seen and its backup had not, and that no other device's file has
  /// seen. They are no longer required at the end (they may still arrive from a message in
  /// flight).
  mutating func markWritesLostToRestore(of index: Int) {
    guard let disk = devices[index].disk?.state else { return }
    markWritesLost(of: index, from: disk, keeping: devices[index].backup?.state)
  }

  /// Marks the writes `lost` had seen and `kept` had not, that no other device's file has
  /// seen, as lost with `lost`: no longer required at the end. The shelf writes of the
  /// mixed-versions scenario too.
  mutating func markWritesLost(
    of index: Int, from lost: HouseholdState, keeping kept: HouseholdState?
  ) {
    lostToRestore.formUnion(
      positions(of: writes, lostBy: index, from: lost, keeping: kept, besides: lostToRestore))
    shelfWritesLost.formUnion(
      positions(of: shelfWrites, lostBy: index, from: lost, keeping: kept, besides: shelfWritesLost)
    )
  }

  /// The positions in `log`, not among `marked`, of the writes of device `index`'s household
  /// that `lost` had seen and `kept` had not, and that no other device's file has seen.
  private func positions<Log: RandomAccessCollection>(
    of log: Log, lostBy index: Int, from lost: HouseholdState, keeping kept: HouseholdState?,
    besides marked: Set<Int>
  ) -> [Int] where Log.Element: SavedWrite, Log.Index == Int {
    let household = devices[index].household
    let others = householdDevices[household].filter { $0 != index }.compactMap {
      devices[$0].disk?.state
    }
    return log.indices.filter { position in
      let write = log[position]
      return write.household == household && !marked.contains(position)
        && write.isSeen(by: lost) && !(kept.map(write.isSeen) ?? false)
        && !others.contains(where: write.isSeen)
    }
  }

  /// The network heals: partitions end, every device restarts, messages in flight arrive, and
  /// rounds of anti-entropy (each device syncs with the household's first device, then that
  /// device with each of them, through the run's transport) run until a round changes nothing.
  ///
  /// Once every device is up no restore can come, so the backups go: kept, they hold the
  /// tables the devices' merges replace, each device's its own (docs/decisions/0051).
  mutating func heal() {
    for index in devices.indices {
      devices[index].offlineUntil = -1
      if !devices[index].isUp { restart(index) }
    }
    for index in devices.indices { devices[index].dropBackup() }
    for message in network.drain() where devices[message.to].isUp {
      deliver(message)
    }
    record("the network heals")
    var rounds = 0
    while rounds < 10 {
      rounds += 1
      var changed = false
      for members in householdDevices {
        let hub = members[0]
        for index in members.dropFirst() {
          changed = exchange(into: hub, from: index) || changed
        }
        for index in members.dropFirst() {
          changed = exchange(into: index, from: hub) || changed
        }
      }
      if householdsAreEqual() {
        report.convergenceRounds = rounds
        break
      }
      if !changed { break }
    }
  }

  /// One anti-entropy exchange, on a link that loses nothing: `receiver` sends `sender` a
  /// message of their session (its acknowledgment), then merges `sender`'s reply. Through the
  /// folder: `sender` syncs, then `receiver`.
  ///
  /// - Returns: Whether the exchange changed the receiver, or left a publication to the next
  ///   round (a disk fault stopped it): either way the round was not quiet.
  private mutating func exchange(into receiver: Int, from sender: Int) -> Bool {
    guard devices[receiver].isUp, devices[sender].isUp else { return false }
    if configuration.baseline {
      devices[receiver].legacy.merge(devices[sender].legacy)
      noteFailedSave(devices[receiver].save(), on: receiver)
    }
    if configuration.transport == .folder {
      let before = devices[receiver].replica!.state.version
      let senderPending = syncThroughFolder(sender)
      let receiverPending = syncThroughFolder(receiver)
      return devices[receiver].replica!.state.version != before || senderPending
        || receiverPending
    }
    receive(sessionMessage(from: receiver, to: sender), from: receiver, into: sender)
    let reply = sessionMessage(from: sender, to: receiver)
    return receive(reply, from: sender, into: receiver)
  }

  func householdsAreEqual() -> Bool {
    householdDevices.allSatisfy { members in
      members.allSatisfy { devices[$0].replica?.state == devices[members[0]].replica?.state }
    }
  }
}
