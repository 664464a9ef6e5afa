import ForagerSync
import SemanticCRDT

/// What a device knows a peer's state has seen: valid for that incarnation of the peer only.
/// A peer restored from an old backup comes back as a new incarnation whose state may have
/// seen less; a delta computed for its old version could tell it that writes were superseded
/// without carrying the writes that superseded them.
struct PeerVersion: Sendable {
  let replica: ReplicaID
  let version: HouseholdVersion
}

/// A state (or delta) in flight from one device to another.
struct Message: Sendable {
  /// Send order, to count reordering.
  let sequence: Int
  let from: Int
  let to: Int
  let state: HouseholdState
  /// The sender's incarnation and its version when it sent: the receiver learns what that
  /// incarnation has seen.
  let sender: PeerVersion
  /// For a delta, the incarnation of the receiver it was computed for; `nil` for a full state.
  let deltaFor: ReplicaID?
  let legacy: LegacyStore?
}

/// Messages in flight, by the step they arrive at.
struct Network: Sendable {
  private var due: [Int: [Message]] = [:]
  private var nextSequence = 0
  /// The newest sequence delivered on each link, to tell reordered arrivals.
  private var newestDelivered: [Link: Int] = [:]

  struct Link: Hashable, Sendable {
    let from: Int
    let to: Int
  }

  var isEmpty: Bool { due.isEmpty }

  mutating func makeSequence() -> Int {
    nextSequence += 1
    return nextSequence
  }

  mutating func send(_ message: Message, arrivingAt step: Int) {
    due[step, default: []].append(message)
  }

  /// The messages arriving at `step`, in the order they were queued.
  mutating func arrivals(at step: Int) -> [Message] {
    due.removeValue(forKey: step) ?? []
  }

  /// Every message still in flight, by arrival step then queue order.
  mutating func drain() -> [Message] {
    let messages = due.keys.sorted().flatMap { due[$0]! }
    due = [:]
    return messages
  }

  /// Records a delivery; `true` when a later message on the same link arrived before it.
  mutating func deliveredOutOfOrder(_ message: Message) -> Bool {
    let link = Link(from: message.from, to: message.to)
    let newest = newestDelivered[link] ?? 0
    if message.sequence < newest { return true }
    newestDelivered[link] = message.sequence
    return false
  }
}
