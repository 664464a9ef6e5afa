import ForagerSync
import SemanticCRDT

/// The build of the model a device runs (the mixed-versions scenario).
///
/// Both builds are this library's code: it carries what a newer build adds (ADR 0036, 0037),
/// so what differs is what a device writes. A device on the newer build also writes shelves
/// (``Shelf``), the record kind that build adds, through its typed declaration; a device on
/// this build never does, and carries them. On the wire, a device on this build plays one that
/// reads sync messages of format 4 at most: it writes no compact message and refuses one, as
/// such a build refuses a newer format (ADR 0044). That the carried merge is the newer build's typed
/// merge is `CarriedMapPropertyTests`' property; this scenario checks that the carried records
/// survive everything a household does: crashes, backups, lossy links, partitions, journals.
enum ModelBuild: Sendable {
  case current, newer
}

/// A newer device's saved write of a shelf, with what the final state must show of it.
struct ShelfWrite: Sendable {
  enum Effect: Sendable {
    /// The `count`-th restock by `replica`: the shelf's restocks hold at least that many of it.
    case restock(count: UInt64, by: ReplicaID)
    /// A new label: at the end the label holds this write or a later one.
    case label(HybridTimestamp)
  }

  let household: Int
  let device: Int
  let step: Int
  let shelf: CarriedKey
  /// The dot the write added to the shelves' map.
  let dot: Dot
  let effect: Effect
}

extension ShelfWrite: SavedWrite {
  func isSeen(by state: HouseholdState) -> Bool {
    state[carried: Shelf.map].context.contains(dot)
  }
}

extension Simulation {
  static let shelfNames = ["cellar", "spices", "fridge door", "Ölregal"]

  var runsMixedVersions: Bool { configuration.scenario == .mixedVersions }

  /// Whether device `index` runs the newer build.
  func runsNewerBuild(on index: Int) -> Bool {
    runsMixedVersions && devices[index].build == .newer
  }

  /// Each household's first device starts on the newer build, the others on this one.
  mutating func startBuilds() {
    guard runsMixedVersions else { return }
    for members in householdDevices { devices[members[0]].build = .newer }
  }

  /// A device of this build that restarts has been updated half the time (a phased release,
  /// automatic updates on); a household's last device never is, so that one relays between
  /// newer ones to the end.
  mutating func maybeUpgrade(_ index: Int) {
    guard runsMixedVersions, devices[index].build == .current,
      householdDevices[devices[index].household].last != index, random.chance(0.5)
    else { return }
    devices[index].build = .newer
    upgrades += 1
    record("\(name(index)) comes back on the newer build", device: index)
  }

  /// A newer device restocks a shelf or relabels it, creating it if the household has none of
  /// that name, and saves.
  mutating func editShelf(on index: Int) {
    let shelf = CarriedKey(random.pick(Self.shelfNames))
    let restock = random.chance(0.5)
    let label = "Shelf \(random.int(in: 0..<100))"
    let member = devices[index].member
    attempt(index) { replica throws(HouseholdError) in
      try replica.editCarried(Shelf.map, shelf) {
        Shelf(creation: Creation(timestamp: $0, member: member)).carried
      } _: { record, stamp in
        var typed = Shelf(record)
        if restock {
          typed.restocks.increment(replica: stamp.replica)
        } else {
          typed.label.assign(label, at: stamp)
        }
        record = typed.carried
      }
    }
    guard acknowledging else { return }
    noteFailedSave(devices[index].save(), on: index)
    let state = replica(index).state
    let replicaID = replica(index).replicaID
    let shelves = state[carried: Shelf.map]
    guard let written = shelves[shelf], let dot = shelves.newestDot(of: shelf, by: replicaID) else {
      unexpectedFailures.append("step \(step): \(name(index)) wrote no shelf \(shelf)")
      return
    }
    let typed = Shelf(written)
    let effect: ShelfWrite.Effect =
      restock
      ? .restock(count: typed.restocks.contributions[replicaID] ?? 0, by: replicaID)
      : .label(typed.label.timestamp)
    shelfWrites.append(
      ShelfWrite(
        household: devices[index].household, device: index, step: step, shelf: shelf, dot: dot,
        effect: effect))
    report.acknowledgedWrites += 1
    self.record(
      "\(name(index)) \(restock ? "restocks" : "relabels \"\(label)\"") shelf \(shelf)",
      device: index)
  }

  /// The message as the sender's build writes it: a device of this build writes no compact
  /// message (format 5), which builds that read format 4 at most do not know.
  func asTheSendersBuildWrites(_ message: SyncMessage, _ sender: Int) -> SyncMessage {
    guard runsMixedVersions, devices[sender].build == .current else { return message }
    return message.written(compact: false)
  }

  /// Whether the receiver's build refuses `message` as newer than it reads: a device of this
  /// build refuses a compact one. Only a first announcement may be compact to it (a session
  /// announces in format 5 to a peer not heard from); any other is noted as a refusal that
  /// must not happen.
  mutating func refusesAsNewer(_ message: SyncMessage, from sender: Int, into receiver: Int)
    -> Bool
  {
    guard runsMixedVersions, devices[receiver].build == .current, message.isCompact else {
      return false
    }
    let error = SyncMessageError.newerFormat(
      found: message.format, supported: SyncMessage.formatWithVersion)
    if message.isAnnouncement {
      announcementsRefusedByOlder += 1
    } else {
      noteRefusalByOlder(from: sender, into: receiver, error)
    }
    record("\(name(receiver)) refuses a message from \(name(sender)): \(error)", device: receiver)
    return true
  }

  /// The message as the receiver's build takes it: as sent, unless the run plays the fault of
  /// a build that drops the maps it does not know.
  func carryingAsTheReceiversBuild(_ message: SyncMessage, _ receiver: Int) -> SyncMessage {
    guard configuration.fault == .olderBuildDropsCarriedMaps, runsMixedVersions,
      devices[receiver].build == .current, var state = message.state,
      !state.carriedMapNames.isEmpty
    else { return message }
    for name in state.carriedMapNames { state[carried: name] = ORMap() }
    return message.carrying(state)
  }

  /// Notes a message a device of this build refused (mixed-versions scenario, no hostile
  /// peer): an older build must read everything a newer one sends.
  mutating func noteRefusalByOlder(from sender: Int, into receiver: Int, _ error: any Error) {
    guard runsMixedVersions, configuration.hostileRate == 0, devices[receiver].build == .current
    else { return }
    refusedByOlder.append(
      Violation(
        text: "step \(step): \(name(receiver)) refused what \(name(sender)) sent: \(error)",
        devices: [receiver, sender]))
  }

  /// Notes a merge by a device of this build that brought it shelf writes it had not seen,
  /// its shelves' context having been `before`: it relays them from then on.
  mutating func noteShelvesMerged(into receiver: Int, before: CausalContext) {
    guard runsMixedVersions, devices[receiver].build == .current,
      let after = devices[receiver].replica?.state[carried: Shelf.map].context, after != before
    else { return }
    shelvesRelayedByOlder += 1
  }

  /// The mixed-versions scenario's invariants: no saved write of a shelf is lost (each
  /// restock counted, each label shown or superseded on every device of its household), and
  /// no device of this build refused what a newer one sent.
  func mixedVersionInvariants() -> [(String, String, [Violation])] {
    guard runsMixedVersions else { return [] }
    var lost: [Violation] = []
    for (position, write) in shelfWrites.enumerated() where !shelfWritesLost.contains(position) {
      let shelf = finalState(of: write.household)[carried: Shelf.map][write.shelf].map(Shelf.init)
      let kept: Bool
      switch write.effect {
      case .restock(let count, let replica):
        kept = (shelf?.restocks.contributions[replica] ?? 0) >= count
      case .label(let stamp):
        kept = shelf.map { $0.label.timestamp >= stamp } ?? false
      }
      if !kept {
        lost.append(
          Violation(
            text:
              "step \(write.step): \(name(write.device))'s write of shelf \(write.shelf) is lost",
            devices: [write.device]))
      }
    }
    let newer = devices.filter { $0.build == .newer }.count
    return [
      (
        "no saved write of a newer build's record is lost",
        "\(shelfWrites.count) shelf writes on \(newer) newer devices (\(upgrades) updated during the run), "
          + "\(shelvesRelayedByOlder) merges of shelves by devices of this build",
        lost
      ),
      (
        "no device of this build refuses what a newer one sends",
        "\(devices.count - newer) devices on this build at the end; "
          + "\(announcementsRefusedByOlder) first announcements in format 5 refused, as they may be",
        refusedByOlder
      ),
    ]
  }
}
