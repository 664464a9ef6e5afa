import ForagerModel
import SemanticCRDT
import SemanticCRDTJSON
internal import SharedSupport

/// What one replica sends another: its state, or the changes the receiver lacks, numbered by
/// the sender's change log, with what the sender has merged of the receiver's. Made by
/// ``SyncSession/message(from:)``, taken by ``SyncSession/receive(_:into:policy:)``;
/// ``encoded()`` and ``init(decoding:maximumSize:)`` are its bytes on a wire.
public struct SyncMessage: Equatable, Sendable {
  /// The household.
  public let household: HouseholdID
  /// The sending replica's incarnation.
  public let sender: ReplicaID
  /// The number of the sender's last change: a receiver that merges the message holds every
  /// change of the sender up to it.
  public let through: UInt64
  /// For a delta, the number of the sender's change it follows: only a receiver that has
  /// merged the sender's changes up to it may merge it. 0 for what the sender holds beyond the
  /// full state the recipient's incarnation sent it (docs/decisions/0041). `nil` for a full
  /// state, which any replica of the household may merge.
  public let since: UInt64?
  /// The receiver's incarnation as the sender last heard from it; `nil` before it has. A delta
  /// is for that incarnation only.
  public let recipient: ReplicaID?
  /// The number of the recipient's last change the sender has merged: where the recipient's
  /// next delta starts. `nil` when it has merged none.
  public let acknowledged: UInt64?
  /// The full state, or the delta; `nil` for a delta with nothing in it, which still tells the
  /// receiver what the sender has merged, and for an announcement (``isAnnouncement``).
  public let state: HouseholdState?
  /// The version of the sender's whole state when it made the message, sent by a session that
  /// announces (``SyncSession/init(announcingVersions:)``) while the recipient has acknowledged
  /// nothing: the sender's incarnation holds at least that state for as long as it lives, so
  /// the recipient answers with what it holds beyond it rather than with its whole state
  /// (docs/decisions/0043). `nil` otherwise. A message with it is format 4 (or 5, if
  /// compact), which builds before format 4 refuse.
  public let senderVersion: HouseholdVersion?
  /// Whether the message is format 5, which writes its state compactly: each causal context's
  /// intervals as gaps, each record without the part its map's key says (docs/decisions/0044).
  /// A session writes it to a peer that sent one, and announces in it. Builds before format 5
  /// refuse it. Not part of the message's value: a message reads the same either way.
  public private(set) var isCompact: Bool
  /// The state's greatest timestamp as found while decoding the message, so that the merge
  /// does not scan the state again (`.some(nil)` for a state without stamps, ADR 0027); `nil`
  /// for a message made in memory. Not part of the message's value: two messages that differ
  /// only here are equal.
  package private(set) var greatestTimestampRead: HybridTimestamp?? = nil

  public init(
    household: HouseholdID, sender: ReplicaID, through: UInt64, since: UInt64?,
    recipient: ReplicaID?, acknowledged: UInt64?, state: HouseholdState?,
    senderVersion: HouseholdVersion? = nil, compact: Bool = false
  ) {
    self.household = household
    self.sender = sender
    self.through = through
    self.since = since
    self.recipient = recipient
    self.acknowledged = acknowledged
    self.state = state
    self.senderVersion = senderVersion
    isCompact = compact
  }

  public static func == (left: SyncMessage, right: SyncMessage) -> Bool {
    (left.household, left.sender, left.through, left.since, left.recipient, left.acknowledged)
      == (
        right.household, right.sender, right.through, right.since, right.recipient,
        right.acknowledged
      ) && left.state == right.state && left.senderVersion == right.senderVersion
  }

  /// The same message carrying `state` instead, in the same format: for a tool that plays a
  /// fault in what a message carries.
  public func carrying(_ state: HouseholdState?) -> SyncMessage {
    SyncMessage(
      household: household, sender: sender, through: through, since: since,
      recipient: recipient, acknowledged: acknowledged, state: state,
      senderVersion: senderVersion, compact: isCompact)
  }

  /// The same message, written compactly (format 5) or not: what a build that reads format 4
  /// at most would have written, with `false`.
  public func written(compact: Bool) -> SyncMessage {
    var message = self
    message.isCompact = compact
    return message
  }

  /// Whether the message is a delta (for one incarnation) rather than a full state.
  public var isDelta: Bool { since != nil }

  /// Whether merging the message can change anything: `false` for a delta of a sender that
  /// had nothing the receiver lacks, and for an announcement.
  public var carriesChanges: Bool { state != nil }

  /// Whether the message only announces its sender's version (``senderVersion``): neither a
  /// full state nor a delta, it changes nothing in its receiver, whose session answers it with
  /// what the sender lacks.
  public var isAnnouncement: Bool { since == nil && state == nil }
}

// MARK: - Bytes

extension SyncMessage {
  /// The newest format this build reads and writes, the first member of every message: 5,
  /// format 4 with its state written compactly (``isCompact``, docs/decisions/0044). A message
  /// that is not compact is written as format 4 with a version (``formatWithVersion``) and as
  /// format 3 without one (``formatWithoutVersion``), so that builds before format 4 read every
  /// message of a session that does not announce.
  public static let currentFormat: Int64 = 5

  /// The format of a message with ``senderVersion`` that is not compact: 4, format 3 with the
  /// sender's version (docs/decisions/0043).
  public static let formatWithVersion: Int64 = 4

  /// The format the message is written in: ``currentFormat`` if compact, otherwise
  /// ``formatWithVersion`` with a version and ``formatWithoutVersion`` without one.
  public var format: Int64 {
    if isCompact { return Self.currentFormat }
    return senderVersion == nil ? Self.formatWithoutVersion : Self.formatWithVersion
  }

  /// The format of a message without ``senderVersion``: 3, whose states leave out a field at
  /// its default and name the kind of a field added since format 2 (ADR 0036).
  public static let formatWithoutVersion: Int64 = 3

  /// The oldest format this build reads: 2, whose states are format 3's without those fields.
  public static let oldestFormat: Int64 = 2

  /// The largest message ``init(decoding:maximumSize:)`` reads by default: 64 MiB, a full
  /// state of about 150,000 records.
  public static let defaultMaximumSize = 64 << 20

  enum Field: String, CaseIterable, Sendable {
    case acknowledged, format, household, recipient, replicas, sender, since, state, through
    case version
  }

  static let fields = JSONFields<Field>(
    optional: [.acknowledged, .recipient, .since, .state, .version])

  /// The message's bytes on a wire: its JSON (``json()``) compressed as a gzip member
  /// (RFC 1952), which also carries the JSON's CRC-32, so that bytes damaged on the way are
  /// refused rather than read. A delta of 100 edits is about 35 KB of JSON and 3.3 KB on the
  /// wire; a message with no state, 145 bytes. ``init(decoding:maximumSize:)`` reads these
  /// bytes, and also plain JSON (starting with `{`), for messages written by hand or by tools.
  ///
  /// - Complexity: O(size of the state). Compressing searches harder in small messages than in
  ///   large ones (docs/format.md, "Sync messages").
  public func encoded() -> [UInt8] {
    Gzip.compress(json())
  }

  /// The message as JSON, members in name order and those that are `nil` left out:
  /// `{"acknowledged":4,"format":3,"household":…,"recipient":1,"replicas":["phone","tablet",…],
  /// "sender":0,"since":7,"state":…,"through":9}`, and `"version":…` last in formats 4 and 5
  /// (format 5 writes the state compactly: ``isCompact``). Each
  /// replica is named once, in `replicas`; the sender, the recipient and every replica in the
  /// state and the version are numbers, indexes into it.
  ///
  /// - Complexity: O(size of the state and the version).
  public func json() -> [UInt8] {
    var numbering = JSONWriter()
    numbering.numberReplicas()
    numbering.writesCompactly = isCompact
    let senderNumber = numbering.number(of: sender)!
    let recipientNumber = recipient.map { numbering.number(of: $0)! }
    state?.write(to: &numbering)
    var versionWriter = JSONWriter(numberingAs: numbering, capacity: 256)
    senderVersion?.write(to: &versionWriter)
    var writer = JSONWriter(capacity: numbering.count + versionWriter.count + 256)
    writer.beginObject()
    if let acknowledged { writer.field("acknowledged", acknowledged) }
    writer.field("format", format)
    writer.field("household", household)
    if let recipientNumber { writer.field("recipient", UInt64(recipientNumber)) }
    writer.field("replicas", versionWriter.numberedReplicas)
    writer.field("sender", UInt64(senderNumber))
    if let since { writer.field("since", since) }
    if state != nil {
      writer.key("state")
      writer.encodedValue(numbering.bytes)
    }
    writer.field("through", through)
    if senderVersion != nil {
      writer.key("version")
      writer.encodedValue(versionWriter.bytes)
    }
    writer.endObject()
    return writer.bytes
  }

  /// Reads a message from a peer, refusing what is not one of this format: the bytes are from
  /// outside. Compressed bytes (see ``encoded()``) are decompressed first, to at most
  /// `maximumSize` bytes of JSON, and their checksum checked. The state's structure is checked
  /// here, and that the numbers are consistent (a delta names its recipient and starts at or
  /// before its end; a full state has a state); what the state would do to a replica is
  /// checked by the merge (``HouseholdReplica/merge(_:policy:)-(HouseholdState,_)``), which
  /// applies nothing it refuses.
  ///
  /// - Throws: ``SyncMessageError``.
  public init(decoding bytes: [UInt8], maximumSize: Int = SyncMessage.defaultMaximumSize)
    throws(SyncMessageError)
  {
    guard bytes.count <= maximumSize else {
      throw .tooLarge(size: bytes.count, limit: maximumSize)
    }
    var bytes = bytes
    if Gzip.isCompressed(bytes) {
      do {
        bytes = try Gzip.decompress(bytes, limit: maximumSize)
      } catch {
        switch error {
        case .tooLarge:
          throw .damagedCompression("more than \(maximumSize) bytes once decompressed")
        case .truncated: throw .damagedCompression("truncated")
        case .invalid(let reason): throw .damagedCompression(reason)
        }
      }
    }
    var refusedFormat: Int64?
    var message: SyncMessage?
    do {
      message = try bytes.withUnsafeBufferPointer { buffer throws(JSONError) in
        try JSONReader.read(buffer) { reader throws(JSONError) in
          try Self.read(from: &reader, refusedFormat: &refusedFormat)
        }
      }
    } catch {
      if let found = refusedFormat {
        throw found > Self.currentFormat
          ? .newerFormat(found: found, supported: Self.currentFormat)
          : .unknownFormat(found)
      }
      throw .malformed(error)
    }
    self = message!
  }

  private static func read(from reader: inout JSONReader, refusedFormat: inout Int64?)
    throws(JSONError) -> SyncMessage
  {
    let start = reader.offset
    var acknowledged: UInt64?
    var household: HouseholdID?
    var recipient: UInt64?
    var replicas: [ReplicaID]?
    var sender: UInt64?
    var since: UInt64?
    var state: HouseholdState.AsRead?
    var through: UInt64?
    var version: HouseholdVersion?
    var format: Int64?
    var used: [Bool]?
    /// Notes the table's numbers a part used (the state, the version).
    func noteUses(_ uses: [Bool]) { used = zip(used ?? uses, uses).map { $0 || $1 } }
    try reader.readObject(fields) { reader, field throws(JSONError) in
      switch field {
      case .format:
        // First, so that a newer format is named as such rather than as damage.
        let found = try reader.read(Int64.self)
        guard (oldestFormat...currentFormat).contains(found) else {
          refusedFormat = found
          throw reader.error(.invalidValue("format \(found)"))
        }
        format = found
      case .acknowledged: try reader.read(into: &acknowledged)
      case .household: try reader.read(into: &household)
      case .recipient: try reader.read(into: &recipient)
      case .replicas:
        let start = reader.offset
        var table: [ReplicaID] = []
        // Counted as read: a table of millions is refused at its bound, not after.
        try reader.readArray { reader throws(JSONError) in
          guard table.count < HouseholdState.maximumReplicas + 2 else {
            throw reader.error(
              .invalidValue(
                "the table names more than \(HouseholdState.maximumReplicas + 2) replicas"))
          }
          table.append(try ReplicaID(from: &reader))
        }
        guard Set(table).count == table.count else {
          throw JSONError(.invalidValue("the table names a replica twice"), at: start)
        }
        replicas = table
      case .sender: try reader.read(into: &sender)
      case .since: try reader.read(into: &since)
      case .state:
        // The table comes first (members are in name order), so the state can be read by it.
        guard let table = replicas else {
          throw reader.error(.invalidValue("the state comes before the table of replicas"))
        }
        // So does the format, which says how the state is written.
        guard let format else {
          throw reader.error(.invalidValue("the state comes before the format"))
        }
        let compact = format == currentFormat
        noteUses(
          try reader.numberingReplicasNotingUses(table) { reader throws(JSONError) in
            state =
              compact
              ? try reader.readingCompactly { reader throws(JSONError) in
                try HouseholdState.AsRead(from: &reader)
              } : try HouseholdState.AsRead(from: &reader)
          }.used)
      case .through: try reader.read(into: &through)
      case .version:
        guard let table = replicas else {
          throw reader.error(.invalidValue("the version comes before the table of replicas"))
        }
        noteUses(
          try reader.numberingReplicasNotingUses(table) { reader throws(JSONError) in
            version = try HouseholdVersion(from: &reader)
          }.used)
      }
    }
    if version != nil, format! < formatWithVersion {
      throw JSONError(.invalidValue("a format-\(format!) message has no version"), at: start)
    }
    // The required members are each filled.
    let table = replicas!
    var message = SyncMessage(
      household: household!, sender: try reader.replica(numbered: sender!, in: table),
      through: through!, since: since,
      recipient: try recipient.map { number throws(JSONError) in
        try reader.replica(numbered: number, in: table)
      }, acknowledged: acknowledged, state: state?.state, senderVersion: version,
      compact: format == currentFormat)
    message.greatestTimestampRead = state.map(\.greatestTimestamp)
    if let problem = message.inconsistency {
      throw JSONError(.invalidValue(problem), at: start)
    }
    // A table is the sender's list of the replicas it wrote: one that names others (six
    // million, say) only costs the receiver.
    var named = used ?? [Bool](repeating: false, count: table.count)
    for number in [sender, recipient].compactMap({ $0 }) { named[Int(number)] = true }
    if let index = named.firstIndex(of: false) {
      throw JSONError(
        .invalidValue("the table names \(table[index]), which the message does not use"),
        at: start)
    }
    return message
  }

  /// What makes the members disagree, if anything.
  var inconsistency: String? {
    if let since {
      if recipient == nil { return "a delta names no recipient" }
      if since > through { return "a delta starts after it ends" }
    } else if state == nil, senderVersion == nil {
      return "a full state has no state"
    } else if state != nil, senderVersion != nil {
      return "a full state carries a version besides its state's"
    }
    if acknowledged != nil && recipient == nil {
      return "an acknowledgment names no recipient"
    }
    if let state, state.householdID != household {
      return "the state is of another household"
    }
    return nil
  }
}

/// Why bytes received as a ``SyncMessage`` were refused. Nothing of them was applied.
public enum SyncMessageError: Error, Equatable, Sendable {
  /// The bytes are not JSON, or not a message's shape: truncated, corrupted, inconsistent,
  /// something else.
  case malformed(JSONError)
  /// A newer build sent it; this build does not know its format.
  case newerFormat(found: Int64, supported: Int64)
  /// A format this build does not read: an older build's (format 1, which numbered nothing
  /// and cannot be answered with a delta) or one no build ever wrote.
  case unknownFormat(Int64)
  /// The message is larger than the receiver reads.
  case tooLarge(size: Int, limit: Int)
  /// The bytes are compressed but do not decompress to a message: truncated, corrupted, or
  /// larger than the receiver reads once decompressed. The text says which.
  case damagedCompression(String)
}
