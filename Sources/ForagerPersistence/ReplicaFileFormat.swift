import ForagerModel
import Foundation
import SemanticCRDT
import SemanticCRDTJSON
internal import SharedSupport

/// The wall-clock reading of a replica's hybrid clock: the greatest (milliseconds, logical)
/// it has issued or observed. Stored so a reopened replica never issues a smaller timestamp.
package struct ClockReading: Hashable, Sendable {
  package let wallMilliseconds: UInt64
  package let logical: UInt32

  package init(wallMilliseconds: UInt64, logical: UInt32) {
    self.wallMilliseconds = wallMilliseconds
    self.logical = logical
  }

  /// The reading of `clock`; `nil` for a clock that never ticked.
  init?(_ clock: HybridClock) {
    guard let latest = clock.latest else { return nil }
    self.init(wallMilliseconds: latest.wallMilliseconds, logical: latest.logical)
  }
}

extension ClockReading: JSONCodable {
  /// Writes `[wallMilliseconds, logical]`.
  public func write(to writer: inout JSONWriter) {
    writer.beginArray()
    writer.unsigned(wallMilliseconds)
    writer.unsigned(UInt64(logical))
    writer.endArray()
  }

  public init(from reader: inout JSONReader) throws(JSONError) {
    self = try reader.readTuple { reader throws(JSONError) in
      let wall = try reader.read(UInt64.self)
      try reader.nextElement()
      return ClockReading(wallMilliseconds: wall, logical: try reader.read(UInt32.self))
    }
  }
}

/// What one replica file holds, as read: the state and the envelope around it.
public struct ReplicaFileContents: Sendable {
  /// The household state.
  public var state: HouseholdState {
    didSet { greatestTimestampRead = nil }
  }
  /// The state's ``HouseholdState/greatestTimestamp`` as found while reading it, which costs
  /// less than a second pass over the household (`.some(nil)` for a state without stamps);
  /// `nil` when the contents were not read from a file, or `state` has changed since.
  package var greatestTimestampRead: HybridTimestamp??

  /// The state with the greatest timestamp found while reading it, which a merge checks
  /// without a second pass over the household; `nil` when the contents were not read from a
  /// file of format 2 or later, or `state` has changed since.
  public var stateAsRead: HouseholdState.AsRead? {
    greatestTimestampRead.map { HouseholdState.AsRead(state: state, greatestTimestamp: $0) }
  }
  /// The member whose device this replica is.
  public var member: MemberID
  /// The replica id (incarnation) that saved the file.
  public var replica: ReplicaID
  /// The saving replica's clock; `nil` for a replica that never ticked, or a format-1 file.
  package var clock: ClockReading?
  /// The format the file was written in; ``ReplicaFileFormat/current`` once saved again.
  public internal(set) var format: Int64
  /// What merges removed, kept for a restore (see ``RemovedRecords``), oldest first; stored
  /// only when there are any.
  public var removals: [RemovedRecords]
  /// The device's incarnations before ``replica``, oldest first, at most
  /// ``ReplicaFileFormat/maximumIncarnations``: replica ids whose every write this device made,
  /// so that it can tell a claim on them beyond those writes for a forgery
  /// (docs/decisions/0029). Stored only when there are any.
  public var incarnations: [ReplicaID] = []
  /// Fields of the envelope that this build does not know, carried back on save.
  var carriedFields: [String: [UInt8]]
  /// The sequence number of the last journal entry the state holds (see `ReplicaJournal`):
  /// opening replays only the entries after it. 0 before any entry, and in files of formats 1
  /// and 2, which had no journal.
  public var journalSequence: UInt64 = 0
  /// The size of the file the contents were read from; 0 for contents not read from a file.
  public internal(set) var byteCount = 0
  /// Whether the household was checked against the model's invariants as it was read.
  var isModelChecked = true

  /// Contents for `replica`, to be saved in the current format.
  public init(_ replica: HouseholdReplica) {
    self.init(replica, carrying: [:])
  }

  /// Contents for `replica` in the current format, with `carriedFields` written back beside it.
  init(_ replica: HouseholdReplica, carrying carriedFields: [String: [UInt8]]) {
    state = replica.state
    member = replica.member
    self.replica = replica.replicaID
    clock = ClockReading(replica.clock)
    format = ReplicaFileFormat.current
    removals = replica.removals
    incarnations = replica.pastIncarnations.suffix(ReplicaFileFormat.maximumIncarnations)
    self.carriedFields = carriedFields
  }

  init(
    state: HouseholdState, member: MemberID, replica: ReplicaID, clock: ClockReading?,
    format: Int64, removals: [RemovedRecords] = [], carriedFields: [String: [UInt8]],
    journalSequence: UInt64 = 0
  ) {
    self.state = state
    self.member = member
    self.replica = replica
    self.clock = clock
    self.format = format
    self.removals = removals
    self.carriedFields = carriedFields
    self.journalSequence = journalSequence
  }

  /// Names of envelope fields this build does not know and will write back unchanged.
  public var carriedFieldNames: [String] { carriedFields.keys.sorted() }
}

/// The bytes of a replica file (docs/format.md, "Replica files").
///
/// Format 4, written by this build:
///
/// ```json
/// {"format":4,"checksum":"crc32:1c291ca3","content":{"clock":[1733788800000,3],
///  "household":"…","journal":17,"member":"…","normalizer":2,"replica":"k3v7…","state":{…}}}
/// ```
///
/// `journal` is the sequence number of the last journal entry the state holds (see
/// `ReplicaJournal`). Format 4 is format 3 with records whose fields are declared once
/// (ADR 0036): a field at its default is left out, and a field added since format 3 names its
/// kind in its key, so that a build that does not know it merges and keeps it. Format 3 is
/// read as it is, and so is format 2, format 3 without `journal` from builds that kept no
/// journal; either is migrated by the next snapshot. A build that reads only an older format
/// refuses a newer one as newer, rather than opening the snapshot without the journal beside
/// it or refusing a record as damaged.
///
/// The checksum covers the bytes of `content` exactly as stored, so any damage to the
/// envelope or the state is caught before either is trusted. Fields of `content` that this
/// build does not know are kept and written back. Format 1 (flat envelope, checksum of the
/// state only, no clock) is read and migrated.
public enum ReplicaFileFormat {
  /// The format this build writes.
  public static let current: Int64 = 4

  // MARK: Writing

  /// The file bytes for `contents`. Equal contents give identical bytes.
  ///
  /// - Complexity: O(size of the state).
  public static func encode(_ contents: ReplicaFileContents) -> [UInt8] {
    // Room for the whole file, estimated from the record count: growing the buffer copies it
    // and touches fresh pages each time. Room reserved and never written costs address space
    // only.
    var writer = JSONWriter(
      capacity: max(1 << 16, contents.state.recordCount * estimatedBytesPerRecord))
    writer.checksummedEnvelope(format: current, member: "content") {
      writeContent(contents, to: &$0)
    }
    return writer.bytes
  }

  /// Somewhat more than a record takes encoded: 410 bytes for a category, 560 on average in
  /// the benchmarks' mixed household. A household of larger records regrows the buffer once.
  static let estimatedBytesPerRecord = 768

  /// The most earlier incarnations a file keeps (each open is one): 1,000 opens. A forged
  /// claim on an older one is not told from a person's removal of its records.
  public static let maximumIncarnations = 1_000

  /// The members of `content` this build knows, in the order it writes them.
  enum ContentField: String, CaseIterable, Sendable {
    case clock, household
    /// Written only when there are any: the device's earlier incarnations. A build that does
    /// not know it carries it.
    case incarnations
    /// Required from format 3 on; checked after reading, as the field table serves format 2.
    case journal
    case member, normalizer
    /// Written only when there is something to hold: the kept removals. A file without
    /// removals is the same as before they were kept.
    case removed
    case replica, state
  }

  static let contentFields = JSONFields<ContentField>(
    optional: [.incarnations, .journal, .removed])

  private static func writeContent(_ contents: ReplicaFileContents, to writer: inout JSONWriter) {
    let known = ContentField.allCases.filter {
      ($0 != .removed || !contents.removals.isEmpty)
        && ($0 != .incarnations || !contents.incarnations.isEmpty)
    }
    let names = (known.map(\.rawValue) + contents.carriedFields.keys).sorted {
      $0.utf8.lexicographicallyPrecedes($1.utf8)
    }
    writer.beginObject()
    for name in names {
      switch ContentField(rawValue: name) {
      case .clock: writer.field("clock", contents.clock)
      case .household: writer.field("household", contents.state.householdID)
      case .incarnations: writer.field("incarnations", contents.incarnations)
      case .journal: writer.field("journal", contents.journalSequence)
      case .member: writer.field("member", contents.member)
      case .normalizer: writer.field("normalizer", contents.state.normalizerVersion)
      case .removed:
        writer.key("removed")
        writer.beginArray()
        for removal in contents.removals { writer.value(removal) }
        writer.endArray()
      case .replica: writer.field("replica", contents.replica)
      case .state: writer.field("state", contents.state)
      case nil:
        writer.key(name)
        writer.raw(contents.carriedFields[name]!)
      }
    }
    writer.endObject()
  }

  // MARK: Reading

  /// Reads file bytes, verifying the checksum before trusting any of the content.
  ///
  /// - Parameters:
  ///   - bytes: The file's bytes.
  ///   - file: Named in errors; nothing is read from it.
  ///   - cores: `Cores.two` lets a large file's checksum and long maps be read, and half of its
  ///     records checked, on a second core; see ``ReplicaStore/loadingCores``.
  /// - Throws: ``StoreError`` saying what is wrong, with the byte offset where there is one.
  /// - Complexity: O(size of the file).
  public static func decode(
    _ bytes: [UInt8], file: URL, cores: Cores = .one
  ) throws(StoreError) -> ReplicaFileContents {
    let contents = try decodeUnchecked(bytes, file: file, cores: cores)
    // A file is bytes from outside: its household must be sound before anyone merges it.
    // The maps' structure was checked as they were read.
    let problems = contents.state.modelViolations(cores: cores)
    if !problems.isEmpty {
      throw StoreError(file: file, problem: .unsound(Array(problems.prefix(3))))
    }
    return contents
  }

  /// ``decode(_:file:cores:)`` without the model's invariants, which the caller checks on the
  /// household it makes of the contents (a store does after replaying the journal): one check
  /// of the household instead of two.
  static func decodeUnchecked(
    _ bytes: [UInt8], file: URL, cores: Cores
  ) throws(StoreError) -> ReplicaFileContents {
    try bytes.withUnsafeBufferPointer { buffer throws(StoreError) in
      let sections = try Sections(buffer, file: file, cores: cores)
      switch sections.format {
      case 2...current: return try sections.decodeEnvelopedContent()
      case 1: return try sections.decodeFormat1()
      case let newer where newer > current:
        throw StoreError(file: file, problem: .newerFormat(found: newer, supported: current))
      case let unknown:
        throw StoreError(file: file, problem: .unknownFormat(unknown))
      }
    }
  }
}

/// The top level of a file: its format number and where each other member's value lies.
/// Every future format keeps `{"format": n, …}` at the top, so a file of a newer format is
/// recognized as such rather than as damage.
private struct Sections {
  let bytes: UnsafeBufferPointer<UInt8>
  let file: URL
  let format: Int64
  let ranges: [String: Range<Int>]
  /// The content of a format-2 file whose `format` comes before it (as this build writes it),
  /// read while the top level was scanned, or why it could not be. Not to be trusted before
  /// the checksum of its range holds.
  let content: Result<Content, JSONError>?
  /// The checksum of that content's range, computed while it was read.
  let contentChecksum: UInt32?

  init(_ bytes: UnsafeBufferPointer<UInt8>, file: URL, cores: Cores) throws(StoreError) {
    self.bytes = bytes
    self.file = file
    var format: Int64?
    var ranges: [String: Range<Int>] = [:]
    var content: Result<Content, JSONError>?
    var contentChecksum: UInt32?
    do {
      try JSONReader.read(bytes, cores: cores) { reader throws(JSONError) in
        try reader.readDynamicObject { reader, key throws(JSONError) in
          if key == "format" {
            format = try reader.read(Int64.self)
          } else if key == "content", let format, (2...ReplicaFileFormat.current).contains(format) {
            // Read at once rather than located, then read: one pass over the largest member
            // instead of two. Its errors wait for the checksum, which may explain them.
            guard cores == .two, let guess = Self.largeLastMember(of: bytes, from: reader.offset)
            else {
              (content, ranges[key]) = try reader.readLocating(Self.readContent)
              return
            }
            let shared = BorrowedBytes(UnsafeBufferPointer(rebasing: bytes[guess]))
            let (read, checksum) = try concurrently { () throws(JSONError) in
              try reader.readLocating(Self.readContent)
            } _: {
              CRC32.checksum(shared.buffer)
            }
            (content, ranges[key]) = read
            contentChecksum = read.range == guess ? checksum : nil
          } else {
            // Located, not validated: each member is read in full afterwards, and the
            // content's checksum is checked before that.
            ranges[key] = try reader.locateValue()
          }
        }
      }
    } catch {
      throw StoreError(file: file, problem: .malformed(error))
    }
    guard let format else {
      throw StoreError(file: file, problem: .malformed(JSONError(.missingKey("format"), at: 0)))
    }
    self.format = format
    self.ranges = ranges
    self.content = content
    self.contentChecksum = contentChecksum
  }

  /// Requires exactly `names` besides `format`.
  func require(_ names: Set<String>) throws(StoreError) {
    if let extra = ranges.keys.filter({ !names.contains($0) }).min() {
      throw malformed(JSONError(.unknownKey(extra), at: ranges[extra]!.lowerBound))
    }
    if let missing = names.filter({ ranges[$0] == nil }).min() {
      throw malformed(JSONError(.missingKey(missing), at: 0))
    }
  }

  func malformed(_ error: JSONError) -> StoreError {
    StoreError(file: file, problem: .malformed(error))
  }

  func invalid(_ error: JSONError) -> StoreError {
    StoreError(file: file, problem: .invalidContent(error))
  }

  /// Reads the value of `name` with `body`; errors become `malformed` or `invalidContent`.
  func read<Value>(
    _ name: String, invalidAs problem: (JSONError) -> StoreError,
    _ body: (inout JSONReader) throws(JSONError) -> Value
  ) throws(StoreError) -> Value {
    do {
      return try JSONReader.read(bytes, valueAt: ranges[name]!, body)
    } catch {
      throw problem(error)
    }
  }

  func checksum(of name: String) -> UInt32 {
    CRC32.checksum(UnsafeBufferPointer(rebasing: bytes[ranges[name]!]))
  }

  func decodeEnvelopedContent() throws(StoreError) -> ReplicaFileContents {
    try require(["checksum", "content"])
    let stored = try read("checksum", invalidAs: malformed) { reader throws(JSONError) in
      try reader.readString()
    }
    let computed = CRC32.label(contentChecksum ?? checksum(of: "content"))
    guard stored == computed else {
      throw StoreError(file: file, problem: .checksumMismatch(stored: stored, computed: computed))
    }
    let contentStart = ranges["content"]!.lowerBound
    var contents: Content
    switch content {
    case .success(let read): contents = read
    case .failure(let error): throw invalid(error)
    case nil: contents = try read("content", invalidAs: invalid, Self.readContent)
    }
    guard contents.hasJournal == (format >= 3) else {
      throw invalid(
        JSONError(
          format >= 3 ? .missingKey("journal") : .unknownKey("journal"), at: contentStart))
    }
    contents.contents.format = format
    try checkEnvelope(
      contents.contents.state, household: contents.envelopeHousehold,
      normalizer: contents.envelopeNormalizer, at: contentStart)
    if let stranger = contents.contents.removals.first(where: {
      $0.records.householdID != contents.envelopeHousehold
    }) {
      throw invalid(
        JSONError(
          .invalidValue(
            "kept removal \(stranger.id) holds records of household \(stranger.records.householdID)"
          ),
          at: contentStart))
    }
    return contents.contents
  }

  struct Content {
    var contents: ReplicaFileContents
    let envelopeHousehold: HouseholdID
    let envelopeNormalizer: NormalizerVersion
    /// Whether the content has `journal`: required from format 3 on, absent in format 2.
    let hasJournal: Bool
  }

  static func readContent(_ reader: inout JSONReader) throws(JSONError) -> Content {
    var clock: ClockReading??
    var household: HouseholdID?
    var member: MemberID?
    var normalizer: NormalizerVersion?
    var replica: ReplicaID?
    var state: HouseholdState.AsRead?
    var removals: [RemovedRecords]?
    var incarnations: [ReplicaID]?
    var journal: UInt64?
    var carried: [String: [UInt8]] = [:]
    try reader.readObject(
      ReplicaFileFormat.contentFields,
      { reader, field throws(JSONError) in
        switch field {
        case .clock: try reader.read(into: &clock)
        case .household: try reader.read(into: &household)
        case .incarnations:
          try reader.read(into: &incarnations)
          guard incarnations!.count <= ReplicaFileFormat.maximumIncarnations else {
            throw reader.error(
              .invalidValue(
                "more than \(ReplicaFileFormat.maximumIncarnations) earlier incarnations"))
          }
        case .journal:
          try reader.read(into: &journal)
          guard journal! <= ReplicaJournal.maximumSequence else {
            throw reader.error(
              .invalidValue(
                "journal sequence \(journal!) is above the bound of \(ReplicaJournal.maximumSequence)"
              ))
          }
        case .member: try reader.read(into: &member)
        case .normalizer: try reader.read(into: &normalizer)
        case .removed: removals = try [RemovedRecords].read(from: &reader)
        case .replica: try reader.read(into: &replica)
        case .state: state = try HouseholdState.AsRead(from: &reader)
        }
      },
      unknown: { reader, name throws(JSONError) in carried[name] = try reader.readRawValue() })
    var contents = ReplicaFileContents(
      state: state!.state, member: member!, replica: replica!, clock: clock!, format: 2,
      removals: removals ?? [], carriedFields: carried, journalSequence: journal ?? 0)
    contents.greatestTimestampRead = .some(state!.greatestTimestamp)
    contents.incarnations = incarnations ?? []
    return Content(
      contents: contents, envelopeHousehold: household!, envelopeNormalizer: normalizer!,
      hasJournal: journal != nil)
  }

  /// Requires the envelope's household and normalizer to be the state's.
  private func checkEnvelope(
    _ state: HouseholdState, household: HouseholdID, normalizer: NormalizerVersion,
    at offset: Int
  ) throws(StoreError) {
    if household != state.householdID {
      throw invalid(
        JSONError(
          .invalidValue(
            "the envelope names household \(household) but the state holds \(state.householdID)"),
          at: offset))
    }
    if normalizer != state.normalizerVersion {
      throw invalid(
        JSONError(
          .invalidValue(
            "the envelope names normalizer v\(normalizer.rawValue) but the state is keyed by "
              + "v\(state.normalizerVersion.rawValue)"), at: offset))
    }
  }

  /// Format 1 (the first draft of this store, superseded before release): a flat envelope
  /// `{"format":1,"household","member","normalizer","replica","state","stateCRC32"}` whose
  /// integer checksum covers only the state, and no clock. Read and migrated: the clock is
  /// rebuilt from the state's greatest timestamp when the replica opens.
  func decodeFormat1() throws(StoreError) -> ReplicaFileContents {
    try require(["household", "member", "normalizer", "replica", "state", "stateCRC32"])
    let stored = try read("stateCRC32", invalidAs: malformed) { reader throws(JSONError) in
      try reader.read(UInt32.self)
    }
    let computed = checksum(of: "state")
    guard stored == computed else {
      throw StoreError(
        file: file,
        problem: .checksumMismatch(stored: CRC32.label(stored), computed: CRC32.label(computed)))
    }
    let state = try read("state", invalidAs: invalid) { reader throws(JSONError) in
      try reader.read(HouseholdState.self)
    }
    let household = try read("household", invalidAs: invalid) { reader throws(JSONError) in
      try reader.read(HouseholdID.self)
    }
    let normalizer = try read("normalizer", invalidAs: invalid) { reader throws(JSONError) in
      try reader.read(NormalizerVersion.self)
    }
    let contents = ReplicaFileContents(
      state: state,
      member: try read("member", invalidAs: invalid) { reader throws(JSONError) in
        try reader.read(MemberID.self)
      },
      replica: try read("replica", invalidAs: invalid) { reader throws(JSONError) in
        try reader.read(ReplicaID.self)
      },
      clock: nil, format: 1, carriedFields: [:])
    try checkEnvelope(state, household: household, normalizer: normalizer, at: 0)
    return contents
  }
}

extension Sections {
  /// Below this, a second thread costs more than it saves.
  static let checksumOnSecondCoreAbove = 1 << 20

  /// Where a member starting at `start` lies when it is the file's last member, as this build
  /// writes the content; `nil` when the file does not end with a closing brace after it or the
  /// member is small. The content's checksum is computed over this range while the content is
  /// read, and used only when the content turns out to lie exactly there.
  static func largeLastMember(of bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Range<Int>?
  {
    func isWhitespace(_ byte: UInt8) -> Bool {
      byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
    var end = bytes.count
    while end > start, isWhitespace(bytes[end - 1]) { end -= 1 }
    guard end > start, bytes[end - 1] == UInt8(ascii: "}") else { return nil }
    end -= 1
    while end > start, isWhitespace(bytes[end - 1]) { end -= 1 }
    guard end - start >= checksumOnSecondCoreAbove else { return nil }
    return start..<end
  }
}
