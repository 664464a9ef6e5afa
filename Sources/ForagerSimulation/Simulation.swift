import ForagerSync
import Foundation
import SemanticCRDT
internal import SharedSupport

/// A deterministic run of many devices in households, over a faulty network, with crashes,
/// restores from old backups and skewed clocks; at the end the network heals, anti-entropy runs
/// until the replicas agree, and the invariants are checked.
///
/// ```swift
/// var simulation = Simulation(SimulationConfiguration(scenario: .offlineDefaults))
/// let report = simulation.run()
/// report.holds            // true
/// print(report.text)
/// ```
///
/// Everything random is drawn from one `SplitMix64` seeded with the
/// configuration's seed (the ids of the items a recipe adds, from a second one of the same
/// seed), and time is simulated: the same configuration gives the same report, byte for byte,
/// on every machine.
public struct Simulation: Sendable {
  public let configuration: SimulationConfiguration
  var random: SplitMix64
  /// Where the ids of the items a recipe adds come from: apart from `random`, so that drawing
  /// them (the library drew random ones before) left every seed's run as it was.
  var itemIDs: SplitMix64
  let time = SimulatedTime()
  var devices: [Device] = []
  /// The devices of each household, by index into `devices`.
  var householdDevices: [[Int]] = []
  var householdIDs: [HouseholdID] = []
  /// Ids created in each household, in creation order: where the workload picks from.
  var created: [CreatedIDs] = []
  var network = Network()
  var step = 0
  var writes = ChunkedLog<LoggedWrite>()
  /// Indices into `writes` by household and record, to tell which writes a removal had seen.
  var writesByRecord: [[RecordKey: [Int]]] = []
  var removals: [LoggedRemoval] = []
  /// Indices into `writes` of writes lost with a device's unsynced state when it was restored
  /// from an old backup: legitimately lost, so they may be absent at the end.
  var lostToRestore: Set<Int> = []
  /// Increments made under the old design, per household.
  var legacyIncrements: [UInt64] = []
  var unexpectedFailures: [String] = []
  /// The checks of each device's whole state right after a merge, and what they found.
  let soundness: SoundnessChecks
  /// Every event, for the trace of a failing run.
  var events: [TraceEvent] = []
  var report: SimulationReport
  /// Whether the operation being made will be saved (false when a crash cuts its save short).
  var acknowledging = true
  /// The violations found by the last check, for the trace of a failing run.
  var violations: [Violation] = []
  /// The incarnations each incarnation's writes were issued again as, after forged claims on
  /// them (ADR 0029): their meal assignments carry the new ones' stamps.
  var reissuedAs: [ReplicaID: Set<ReplicaID>] = [:]
  /// The last messages sent, for the hostile peer to replay.
  var sentMessages: [Message] = []
  /// Where the households' shared folders are (the folder transport).
  var folderRoot: URL?
  /// The newer build's saved writes of shelves (the mixed-versions scenario).
  var shelfWrites: [ShelfWrite] = []
  /// Indices into `shelfWrites` lost with a device's unsynced state, as `lostToRestore`.
  var shelfWritesLost: Set<Int> = []
  /// Devices updated to the newer build during the run, and merges of shelves by devices of
  /// this build (the mixed-versions scenario).
  var upgrades = 0
  var shelvesRelayedByOlder = 0
  /// Compact first announcements that devices of this build refused (mixed-versions scenario).
  var announcementsRefusedByOlder = 0
  /// Messages a device of this build refused in the mixed-versions scenario.
  var refusedByOlder: [Violation] = []

  struct CreatedIDs: Sendable {
    var recipes: [RecipeID] = []
    var lists: [WeeklyListID] = []
    var items: [GroceryItemID] = []
    var plans: [MealPlanID] = []
    var guests: [MemberID] = []
  }

  struct TraceEvent: Sendable {
    let step: Int
    let device: Int?
    let records: [RecordKey]
    let text: String
  }

  /// Prepares a run; nothing happens until ``run(progress:)``.
  ///
  /// - Parameters:
  ///   - configuration: What to simulate.
  ///   - cores: `Cores.two` checks each device's state after each merge on a second core
  ///     while the run goes on; give it only when a core is free for the length of the run.
  ///     The report is the same either way.
  /// - Precondition: `configuration.problem == nil`.
  public init(_ configuration: SimulationConfiguration, cores: Cores = .one) {
    precondition(configuration.problem == nil, configuration.problem ?? "")
    self.configuration = configuration
    soundness = SoundnessChecks(cores: cores)
    random = SplitMix64(seed: configuration.seed)
    itemIDs = SplitMix64(seed: ~configuration.seed)
    report = SimulationReport(configuration: configuration)
  }

  /// Runs the simulation to the end and checks the invariants.
  ///
  /// - Parameters:
  ///   - configuration: What to simulate.
  ///   - cores: Whether a second core checks states while the run goes on (see
  ///     ``init(_:cores:)``); the reruns that shorten a failing run use it too.
  ///   - progress: Called now and then with the steps done and the steps in all.
  /// - Returns: The report. When an invariant fails, the report's ``SimulationReport/failure``
  ///   holds a failing prefix of the run one step longer than a passing one (by bisection) and
  ///   its trace.
  /// - Complexity: About O(steps × records of a household) in time.
  public static func run(
    _ configuration: SimulationConfiguration, cores: Cores = .one,
    progress: ((Int, Int) -> Void)? = nil
  ) -> SimulationReport {
    var simulation = Simulation(configuration, cores: cores)
    var report = simulation.run(progress: progress)
    if !report.holds {
      // Bisection reruns the run about log2(steps) times: minutes for a long run. Past this
      // many steps the failing run's own trace is given instead.
      report.failure =
        simulation.stepsRun <= maximumStepsToShorten
        ? shortestFailingPrefix(of: configuration, failingAt: simulation.stepsRun, cores: cores)
        : SimulationReport.Failure(
          steps: simulation.stepsRun, shortened: false, trace: simulation.trace())
    }
    return report
  }

  /// The longest failing run that is bisected to a shorter failing prefix.
  static let maximumStepsToShorten = 20_000

  /// The steps this run actually made (its configured steps, or fewer with `stopAfter`).
  var stepsRun: Int { min(configuration.steps, configuration.stopAfter ?? configuration.steps) }

  /// Runs this simulation (without the search for a shortest failing prefix). A simulation
  /// runs once; make a new one to run again.
  public mutating func run(progress: ((Int, Int) -> Void)? = nil) -> SimulationReport {
    precondition(devices.isEmpty, "A Simulation runs once; create a new one to run again")
    setUpFolders()
    defer { removeFolders() }
    setUp()
    runScript()
    let total = stepsRun
    let reportEvery = max(1, total / 20)
    while step < total {
      advance()
      if step % reportEvery == 0 { progress?(step, total) }
    }
    heal()
    checkInvariants()
    summarize()
    return report
  }

  /// One simulated second: partitions form, devices crash and restart, one device acts, and
  /// the messages due arrive.
  mutating func advance() {
    step += 1
    time.advance(by: 1000)
    maybePartition()
    maybeCrash()
    restartDevicesDue()
    maybeActHostile()
    let actor = random.int(in: 0..<devices.count)
    if devices[actor].isUp {
      if configuration.scenario.runsWorkload && random.chance(0.6) {
        performOperation(on: actor)
      } else {
        gossip(from: actor)
      }
      if random.chance(0.02) { takeBackup(of: actor) }
    }
    deliverMessagesDue()
  }

  /// Counts and records a save of the device's own file that failed (files storage): its
  /// edits stay in memory, and the next save writes them.
  mutating func noteFailedSave(_ failure: StoreError?, on device: Int) {
    guard let failure else { return }
    report.defences.failedSaves += 1
    record("\(name(device)) cannot save: \(withoutFolderRoot(failure.description))", device: device)
  }

  mutating func record(_ text: String, device: Int? = nil, records: [RecordKey] = []) {
    events.append(TraceEvent(step: step, device: device, records: records, text: text))
  }

  /// "device 3 (household 1)".
  func name(_ device: Int) -> String {
    "device \(device + 1) (household \(devices[device].household + 1))"
  }

  /// A UUID drawn from the run's generator.
  mutating func nextUUID() -> UUID { Self.uuid(from: &random) }

  /// A version 4 UUID drawn from `generator`.
  static func uuid(from generator: inout SplitMix64) -> UUID {
    let high = generator.next()
    let low = generator.next()
    return withUnsafeBytes(of: (high, low)) { bytes in
      UUID(
        uuid: (
          bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6] & 0x0F | 0x40,
          bytes[7], bytes[8] & 0x3F | 0x80, bytes[9], bytes[10], bytes[11], bytes[12], bytes[13],
          bytes[14], bytes[15]
        ))
    }
  }

  mutating func nextReplicaID() -> ReplicaID {
    ReplicaStore.mintReplicaID(using: &random)
  }
}

// MARK: - Setting up

extension Simulation {
  /// Creates the households: the first device of each creates it and adds the other devices'
  /// members; the others join empty and learn it by gossip.
  mutating func setUp() {
    let households = configuration.households
    householdDevices = Array(repeating: [], count: households)
    created = Array(repeating: CreatedIDs(), count: households)
    legacyIncrements = Array(repeating: 0, count: households)
    writesByRecord = Array(repeating: [:], count: households)
    let skew = Int64(clamping: configuration.clockSkewMilliseconds)
    householdIDs = (0..<households).map { _ in HouseholdID(uuid: nextUUID()) }
    for index in 0..<configuration.devices {
      let household = index % households
      let offset = skew == 0 ? 0 : Int64.random(in: -skew...skew, using: &random)
      let drift = Int64.random(in: -100...100, using: &random)
      var device = Device(
        index: index, household: household, householdID: householdIDs[household],
        member: MemberID(uuid: nextUUID()),
        file: replicaFile(of: index, in: household),
        wallClock: time.wallClock(offset: offset, drift: drift))
      device.folderProgress.faults = FileFaults(playing: configuration.fault)
      if configuration.storage == .files {
        device.store = ReplicaStore(fileURL: device.file)
        device.store!.faults = FileFaults(playing: configuration.fault)
      }
      householdDevices[household].append(index)
      devices.append(device)
    }
    startBuilds()
    for (household, members) in householdDevices.enumerated() {
      for (position, index) in members.enumerated() {
        let replicaID = nextReplicaID()
        if position == 0 {
          var owner = HouseholdReplica.create(
            household: householdIDs[household], owner: devices[index].member,
            ownerName: "Member \(index + 1)", replica: replicaID,
            wallClock: devices[index].wallClock)
          for other in members.dropFirst() {
            try! owner.addMember(devices[other].member, name: "Member \(other + 1)")
          }
          devices[index].replica = owner
        } else {
          devices[index].replica = HouseholdReplica(
            joining: householdIDs[household], member: devices[index].member,
            replica: replicaID, wallClock: devices[index].wallClock)
        }
        devices[index].replica!.prepareForSimulation(
          incarnationSeed: random.next(), configuration: configuration)
        noteFailedSave(devices[index].save(), on: index)
        devices[index].takeBackup()
        record("\(name(index)) starts as replica \(replicaID)", device: index)
      }
    }
  }

  /// The scenario's scripted start: every device offline makes its scripted change, then goes
  /// back online.
  mutating func runScript() {
    guard !configuration.scenario.runsWorkload else { return }
    for index in devices.indices {
      devices[index].offlineUntil = 1
      report.operations += 1
      switch configuration.scenario {
      case .offlineDefaults:
        launch(index)
      case .offlineSameCategory:
        let name = Vocabulary.testCategory[index % Vocabulary.testCategory.count]
        createCategory(name, on: index)
      case .slotConflict:
        let titles = Vocabulary.recipeTitles
        assignOwnRecipe(titles[index % titles.count][0], to: Vocabulary.contestedSlot, on: index)
      case .household, .mixedVersions:
        break
      }
    }
  }

  /// Copies the device's file to its backup (a nightly backup, or a copy a person made).
  mutating func takeBackup(of device: Int) {
    devices[device].takeBackup()
    record("\(name(device)) backs up its file", device: device)
  }
}
