/// Everything that determines a run. The same configuration gives the same run, byte for byte.
public struct SimulationConfiguration: Hashable, Sendable {
  /// What the devices do first (see ``Scenario``).
  public var scenario: Scenario
  /// Drives every random choice of the run.
  public var seed: UInt64
  /// Households in the run; each has its own devices and never merges another's state.
  public var households: Int
  /// Devices in all, spread over the households round-robin (at least two per household).
  public var devices: Int
  /// Simulated steps (one second of simulated time each). Each step one device acts: it
  /// makes a change or gossips with a peer; then the messages due are delivered.
  public var steps: Int
  /// Probability that a sent message is lost.
  public var dropRate: Double
  /// Probability that a sent message is delivered twice.
  public var duplicateRate: Double
  /// Probability that a message is held back long enough to arrive after later ones.
  public var reorderRate: Double
  /// Partitions (airplane mode for a random group of devices) that form and heal during the run.
  public var partitions: Int
  /// Probability, each step, that a device crashes (half of them in the middle of a save).
  public var crashRate: Double
  /// Of the crashes, the share after which the device restarts from an older backup of its
  /// file instead of its file (amnesia).
  public var amnesiaRate: Double
  /// Each device's wall clock is off by up to this much, either way, and drifts by up to
  /// 100 ppm. Replicas refuse timestamps more than 24 hours ahead of their own clock
  /// (`HybridClock.defaultMaximumSkewMilliseconds`), so skews over 12 hours
  /// make some merges refused by design, and the run reports them.
  public var clockSkewMilliseconds: UInt64
  /// Also runs the same workload against a model of the app's first design (UUID identity,
  /// last-writer-wins records, get-or-create that checks only local data).
  public var baseline: Bool
  /// How the devices sync: by messages of the library's `SyncSession` over the simulated
  /// network, or through a shared folder (`SyncFolder`) on this machine's disk.
  public var transport: SimulationTransport = .messages
  /// Where each device keeps its replica: a value standing for its file, or a real file
  /// written through `ReplicaStore`, whose writes the crashes and the hostile peer's disk
  /// faults stop part-way.
  public var storage: SimulationStorage = .memory
  /// Probability, each step, that a hostile peer attacks a household: forged claims, forged
  /// acknowledgments, `through` and `since`, damaged and replayed messages; in a folder, cut
  /// and damaged journal lines, links and FIFOs at a device's names, and failing writes.
  public var hostileRate = 0.0
  /// The fewest keys each device's change log keeps, in place of the library's 1,024 (a log
  /// keeps a quarter of the household's records when that is more). A small one makes peers
  /// fall behind what the logs reach, and be sent what they lack beside their acknowledged
  /// state; `nil` keeps the library's.
  public var changeLogBudget: Int?
  /// Whether the devices' sessions open with their replica's version rather than its whole
  /// state (`SyncSession(announcingVersions:)`, docs/decisions/0043), as an app does once every
  /// device of its household runs a build that reads format 4. `--full-states` turns it off:
  /// sessions then open with the whole state, as before format 4.
  public var announcesVersions = true
  /// Stops the run after this many of its `steps` (then heals and checks as usual). A prefix
  /// of a run is exactly that run cut short: used to find the shortest failing prefix.
  public var stopAfter: Int?
  /// A deliberate bug, to show that the checker can fail.
  package var fault: SimulationFault?

  /// The defaults of `scenario`.
  public init(scenario: Scenario = .household, seed: UInt64 = 1) {
    self.scenario = scenario
    self.seed = seed
    switch scenario {
    case .household, .mixedVersions:
      households = 2
      devices = 6
      steps = 5_000
      dropRate = 0.1
      duplicateRate = 0.05
      reorderRate = 0.1
      partitions = 4
      crashRate = 0.004
      amnesiaRate = 0.25
      clockSkewMilliseconds = 5 * 60 * 1000
    case .offlineDefaults, .offlineSameCategory, .slotConflict:
      households = 1
      devices = 2
      steps = 200
      dropRate = 0.1
      duplicateRate = 0.05
      reorderRate = 0.1
      partitions = 0
      crashRate = 0
      amnesiaRate = 0
      clockSkewMilliseconds = 60 * 1000
    }
    baseline = false
  }

  /// Why a configuration cannot run, or `nil` when it can.
  public var problem: String? {
    if households < 1 { return "--households must be at least 1" }
    if devices < 2 * households {
      return "--devices must be at least 2 per household (\(2 * households) for \(households))"
    }
    if steps < 0 { return "--steps must not be negative" }
    for (name, rate) in [
      ("--drop", dropRate), ("--duplicate", duplicateRate), ("--reorder", reorderRate),
      ("--crash-rate", crashRate), ("--amnesia", amnesiaRate), ("--hostile", hostileRate),
    ] where !(0...1).contains(rate) {
      return "\(name) must be a probability between 0 and 1, not \(rate)"
    }
    if dropRate == 1 { return "--drop 1 loses every message; nothing could ever sync" }
    if partitions < 0 { return "--partitions must not be negative" }
    if let changeLogBudget, changeLogBudget < 1 { return "--log-budget must be at least 1" }
    if clockSkewMilliseconds > 365 * 24 * 60 * 60 * 1000 {
      return "--clock-skew must be at most a year"
    }
    return nil
  }
}

/// How the simulated devices sync.
public enum SimulationTransport: String, CaseIterable, Hashable, Sendable {
  /// Messages of `SyncSession`, as bytes over the simulated network.
  case messages
  /// A shared folder of `SyncFolder`, real files in a temporary folder.
  case folder
}

/// Where the simulated devices keep their replicas.
public enum SimulationStorage: String, CaseIterable, Hashable, Sendable {
  /// A value that stands for the device's file, turned into the file's bytes and read back
  /// on each restart.
  case memory
  /// A real file (snapshot and journal) in a temporary folder, saved and opened through
  /// `ReplicaStore`: a crash during a save stops its write part-way, and the hostile peer's
  /// disk faults reach it.
  case files
}

/// Deliberate bugs the simulator can inject, to prove that its checker fails when a replica
/// misbehaves.
package enum SimulationFault: String, CaseIterable, Hashable, Sendable {
  /// Merging ignores the ingredient templates of the incoming state.
  case mergeIgnoresIngredients
  /// A restarted device keeps its old replica id instead of taking a fresh one, so after a
  /// restore from backup it reissues dots its peers have already seen (the Riak bug).
  case restartKeepsReplicaID
  /// A restarted device finds its file damaged (a byte flipped in the middle), so it cannot
  /// open it: the report must say so, not trap.
  case damagesFileOnRestart
  /// Merges take every claim on a device's own writes at its word, as before ADR 0029: a
  /// forged one makes peers drop the device's writes as already seen.
  case trustsForgedClaims
  /// A device appends to its journals without checking that each is as it left it, as before
  /// the check: in the folder, after a cut or a junk line, its later lines sit behind damage
  /// every reader stops at, until its next snapshot; in its own file (`--storage files`),
  /// after a write a disk fault stopped part-way, the next line follows the fragment and the
  /// file no longer opens.
  case appendsAfterDamagedJournal
  /// Devices of this build take a message as a build that ignores keys it does not know (as
  /// Foundation's synthesized decoding does) would: without the maps of record kinds a newer
  /// build added (mixed-versions scenario, message transport).
  case olderBuildDropsCarriedMaps
  /// Merges a state the replica refuses as unsound anyway, as a build without the merge's
  /// model check would: the check of the state after the merge must find it.
  case mergeTakesUnsoundStates
  /// A restarted device's file reads back without the records merges removed (kept for a
  /// restore, ADR 0015), as a codec that drops a field would (memory storage): no check of
  /// the final states reads them, so only the check that the file read back as saved finds
  /// the loss.
  case fileReadsBackWithoutRemovals

  /// The hostile acts that expose the bug, which the hostile peer plays alone while it is
  /// injected (those its transport and storage allow), so that a run reaches the bug whatever
  /// the workload draws; `nil` for a bug the workload exposes by itself.
  var exposingActs: Set<HostileAct>? {
    switch self {
    case .trustsForgedClaims: [.forgedClaims]
    case .appendsAfterDamagedJournal: [.cutJournal, .damagedLine, .diskFault]
    case .mergeTakesUnsoundStates: [.unsoundState]
    case .mergeIgnoresIngredients, .restartKeepsReplicaID, .damagesFileOnRestart,
      .olderBuildDropsCarriedMaps, .fileReadsBackWithoutRemovals:
      nil
    }
  }
}
