/// What a run did and whether every invariant held.
public struct SimulationReport: Sendable {
  /// One checked property of the final states.
  public struct Invariant: Sendable {
    /// What is checked.
    public let name: String
    /// Whether it held.
    public let holds: Bool
    /// How much was checked, or what was seen.
    public let detail: String
    /// Each violation, with the device, step and operation where there is one.
    public let violations: [String]
  }

  /// A household at the end of the run, as its first device shows it.
  public struct HouseholdSummary: Sendable {
    public var devices = 0
    /// The number of categories on each device.
    public var categoriesPerDevice: [Int] = []
    public var templates = 0
    public var recipes = 0
    public var lists = 0
    public var items = 0
    public var plans = 0
    public var meals = 0
    public var conflictedSlots = 0
    /// Replica ids (incarnations) that wrote to the household.
    public var incarnations = 0
  }

  /// A household under the old design, at the end of the same run.
  public struct BaselineSummary: Sendable {
    public var categories = 0
    public var categoryNames = 0
    public var templates = 0
    public var templateNames = 0
    public var incrementsMade: UInt64 = 0
    public var incrementsCounted: UInt64 = 0
    public var meals = 0
    public var doubleBookedSlots = 0
  }

  public let configuration: SimulationConfiguration
  /// Operations attempted by devices (a scripted or workload change).
  public var operations = 0
  /// Writes saved by the device that made them.
  public var acknowledgedWrites = 0
  /// Operations whose save a crash cut short: never acknowledged, never sent.
  public var lostInCrashedSaves = 0
  public var messagesSent = 0
  public var deltas = 0
  /// The records the deltas sent held, summed: how much of a household each delta carries
  /// (a delta that names only removals holds none).
  public var deltaRecords = 0
  /// The runs of counters the causal contexts of the deltas sent named, summed: beside
  /// ``deltaRecords``, what their receivers read and joined. A delta since a version names
  /// every run of dots dead within it, so this grows with the household's history even where
  /// the records do not.
  public var deltaContextRanges = 0
  public var fullStates = 0
  /// Messages that only announced their sender's version (docs/decisions/0043).
  public var announcements = 0
  public var delivered = 0
  public var dropped = 0
  public var duplicated = 0
  public var reordered = 0
  /// Messages not sent or not received because a device was offline or down.
  public var blocked = 0
  /// Deltas discarded because they were computed for an earlier incarnation of the receiver.
  public var staleDeltasDiscarded = 0
  public var refusedOtherHousehold = 0
  public var refusedClockSkew = 0
  /// Changes tried on a device of a dissolved household (each refused, or the run fails).
  public var refusedAfterDissolving = 0
  /// Syncs through the shared folder (the folder transport).
  public var folderSyncs = 0
  /// Publications into the shared folder that appended a line to the device's journal there.
  public var publishedLines = 0
  /// Publications into the shared folder that wrote a snapshot (and started a new journal).
  public var publishedSnapshots = 0
  /// What the hostile peer did, by act.
  public var hostileActs: [String: Int] = [:]
  /// What the library refused, ignored or repaired.
  public var defences = Defences()
  public var crashes = 0
  public var crashesDuringSave = 0
  public var restoredFromBackup = 0
  /// Anti-entropy rounds after the network healed until every household's replicas were
  /// equal; `nil` when they never became equal.
  public var convergenceRounds: Int?
  public var households: [HouseholdSummary] = []
  public var invariants: [Invariant] = []
  public var baseline: [BaselineSummary]?
  /// For a failing run: a prefix of it that still fails while one step less passes (found by
  /// bisection), and the events of that prefix that touched the records involved.
  public var failure: Failure?

  /// Where a failing run first fails.
  public struct Failure: Sendable {
    /// The run cut to this many steps still fails; when ``shortened``, one step fewer does not.
    public let steps: Int
    /// Whether ``steps`` was found by bisection (runs over 20,000 steps are not shortened).
    public let shortened: Bool
    /// The failing invariants of the shortened run, and the events behind them.
    public let trace: [String]
  }

  /// What the library refused, ignored or repaired during a run: the hostile peer's acts and
  /// the faults of disks and sync services meet these.
  public struct Defences: Sendable {
    /// Messages whose bytes did not read (damaged, cut short).
    public var refusedUnreadable = 0
    /// Deltas refused because they started after what the receiver merged of the sender.
    public var refusedSkippingDeltas = 0
    /// Acknowledgments ignored because they named a change the receiver never made.
    public var ignoredAcknowledgments = 0
    /// Versions ignored because they claimed writes of the receiver's incarnation it never
    /// made (docs/decisions/0043).
    public var ignoredVersions = 0
    /// States refused for claiming more writes of a replica than any device makes.
    public var refusedForgedClaims = 0
    /// States refused because merging them would leave the household unsound (an item naming
    /// a template that exists nowhere, a record under another's key).
    public var refusedUnsoundStates = 0
    /// Forged claims on a device's own incarnations that a merge found.
    public var forgedClaims = 0
    /// Records written again because a forged claim named their writes.
    public var reissuedRecords = 0
    /// Peers' folder journals read only up to a damaged line, or not at all.
    public var damagedJournals = 0
    /// Folder entries skipped (unreadable, refused).
    public var skippedFolderEntries = 0
    /// Publications into the folder that a disk fault stopped.
    public var failedPublications = 0
    /// Saves of a device's own file that a disk fault stopped (`--storage files`): the next
    /// save writes what they did not.
    public var failedSaves = 0
  }

  init(configuration: SimulationConfiguration) {
    self.configuration = configuration
  }

  /// Whether every invariant held.
  public var holds: Bool { invariants.allSatisfy(\.holds) }
}
