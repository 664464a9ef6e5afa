import ForagerSync

/// A sync message in flight from one device to another, as the library's ``SyncSession``
/// made it.
struct Message: Sendable {
  /// Send order, to count reordering.
  let sequence: Int
  let from: Int
  let to: Int
  var payload: Payload
  let legacy: LegacyStore?

  /// What is on the wire. Encoding every message would cost most of a run's time, and what
  /// reading bytes refuses is the wire fuzzer's to show; bytes travel once the hostile peer has
  /// changed them.
  enum Payload: Sendable {
    case message(SyncMessage)
    /// `SyncMessage.encoded()`, then changed.
    case bytes([UInt8])
  }
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

  /// A message in flight, chosen by `pick` among all of them (by arrival step, then queue
  /// order), for a hostile peer to tamper with; `nil` when none is in flight.
  mutating func withMessageInFlight(
    pick: (Int) -> Int, _ body: (inout Message) -> Void
  ) {
    let steps = due.keys.sorted()
    let count = steps.reduce(0) { $0 + due[$1]!.count }
    guard count > 0 else { return }
    var chosen = pick(count)
    for step in steps {
      if chosen < due[step]!.count {
        body(&due[step]![chosen])
        return
      }
      chosen -= due[step]!.count
    }
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
