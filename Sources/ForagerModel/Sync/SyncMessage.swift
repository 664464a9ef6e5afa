import SemanticCRDT
import SemanticCRDTJSON

/// What one replica sends another: its state, or the part of it the receiver lacks, with what
/// the sender had seen. Made by ``SyncSession/message(from:)``, taken by
/// ``SyncSession/receive(_:into:policy:)``; ``encoded()`` and ``init(decoding:maximumSize:)``
/// are its bytes on a wire.
public struct SyncMessage: Equatable, Sendable {
  /// The sending replica's incarnation.
  public let sender: ReplicaID
  /// What the sender's state had seen when it sent: the receiver's next delta starts here.
  public let senderVersion: HouseholdVersion
  /// For a delta, the incarnation of the receiver it was computed for; `nil` for a full state,
  /// which any replica of the household may merge.
  public let recipient: ReplicaID?
  /// The full state, or the delta.
  public let state: HouseholdState

  public init(
    sender: ReplicaID, senderVersion: HouseholdVersion, recipient: ReplicaID?,
    state: HouseholdState
  ) {
    self.sender = sender
    self.senderVersion = senderVersion
    self.recipient = recipient
    self.state = state
  }

  /// Whether the message is a delta (addressed to one incarnation) rather than a full state.
  public var isDelta: Bool { recipient != nil }

  /// Whether merging the message can change anything: `false` for a delta of a sender that
  /// had nothing the receiver lacks, which still tells the receiver what the sender has seen.
  public var carriesChanges: Bool { state != HouseholdState(emptyLike: state) }
}

// MARK: - Bytes

extension SyncMessage {
  /// The format this build writes, the first member of every message.
  public static let currentFormat = 1

  /// The largest message ``init(decoding:maximumSize:)`` reads by default: 64 MiB, a full
  /// state of about 150,000 records.
  public static let defaultMaximumSize = 64 << 20

  enum Field: String, CaseIterable, Sendable {
    case format, recipient, sender, senderVersion, state
  }

  static let fields = JSONFields<Field>()

  /// The message as JSON: `{"format":1,"recipient":…,"sender":…,"senderVersion":…,"state":…}`,
  /// `recipient` `null` for a full state.
  ///
  /// - Complexity: O(size of the state).
  public func encoded() -> [UInt8] {
    var writer = JSONWriter()
    writer.beginObject()
    writer.field("format", Self.currentFormat)
    writer.field("recipient", recipient)
    writer.field("sender", sender)
    writer.field("senderVersion", senderVersion)
    writer.field("state", state)
    writer.endObject()
    return writer.bytes
  }

  /// Reads a message from a peer, refusing what is not one of this format: the bytes are from
  /// outside. The state's structure is checked here; what it would do to a replica is checked
  /// by the merge (``HouseholdReplica/merge(_:policy:)``), which applies nothing it refuses.
  ///
  /// - Throws: ``SyncMessageError``.
  public init(decoding bytes: [UInt8], maximumSize: Int = SyncMessage.defaultMaximumSize)
    throws(SyncMessageError)
  {
    guard bytes.count <= maximumSize else {
      throw .tooLarge(size: bytes.count, limit: maximumSize)
    }
    var refusedFormat: Int?
    var recipient: ReplicaID??
    var sender: ReplicaID?
    var senderVersion: HouseholdVersion?
    var state: HouseholdState?
    do {
      try bytes.withUnsafeBufferPointer { buffer throws(JSONError) in
        try JSONReader.read(buffer) { reader throws(JSONError) in
          try reader.readObject(Self.fields) { reader, field throws(JSONError) in
            switch field {
            case .format:
              // First, so that a newer format is named as such rather than as damage.
              let found = try reader.read(Int.self)
              guard found == Self.currentFormat else {
                refusedFormat = found
                throw reader.error(.invalidValue("format \(found)"))
              }
            case .recipient: try reader.read(into: &recipient)
            case .sender: try reader.read(into: &sender)
            case .senderVersion: try reader.read(into: &senderVersion)
            case .state: try reader.read(into: &state)
            }
          }
        }
      }
    } catch {
      if let found = refusedFormat {
        throw found > Self.currentFormat
          ? .newerFormat(found: found, supported: Self.currentFormat) : .unknownFormat(found)
      }
      throw .malformed(error)
    }
    // Every field is required, so each slot is filled.
    self.init(
      sender: sender!, senderVersion: senderVersion!, recipient: recipient!, state: state!)
  }
}

/// Why bytes received as a ``SyncMessage`` were refused. Nothing of them was applied.
public enum SyncMessageError: Error, Equatable, Sendable {
  /// The bytes are not JSON, or not a message's shape: truncated, corrupted, something else.
  case malformed(JSONError)
  /// A newer build sent it; this build does not know its format.
  case newerFormat(found: Int, supported: Int)
  /// A format number no build ever wrote.
  case unknownFormat(Int)
  /// The message is larger than the receiver reads.
  case tooLarge(size: Int, limit: Int)
}
