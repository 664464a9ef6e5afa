import ForagerSync
import SemanticCRDT

/// A sync session at n categories: the message a phone sends a tablet that has acknowledged
/// everything before 100 edits, its bytes (compressed: `sync.message`'s bytes), encoding and
/// decoding them (`sync.encode`'s bytes are the JSON before compression), the tablet receiving
/// it, the message between equal states, and the message to a tablet relaunched after the 100
/// edits once its first message (its whole state) has reached the phone (what the tablet
/// lacks, docs/decisions/0041); the message of 100 field edits between sessions that write
/// format 5 (`sync.message.fields.compact`, docs/decisions/0044); and encoding the first message of a session, a
/// full state (`sync.encode.full`, its bytes compressed), and decoding it (`sync.decode.full`).
enum SyncBenchmarks {
  /// The phone and its session with the tablet after a full exchange (the tablet has
  /// acknowledged every change the phone had), then `edits` on the phone; and the tablet's
  /// session with the phone, which has merged what it acknowledged.
  ///
  /// With `announcing`, the phone's session announces, and the two sessions (both of this
  /// build) write format 5 to each other (ADR 0044): two rounds, since the tablet acknowledges
  /// the phone's changes only once it has merged a message that carries them.
  static func acknowledged(
    _ n: Int, announcing: Bool = false, then edits: (inout HouseholdReplica) -> Void
  ) -> (HouseholdReplica, SyncSession, tabletSide: SyncSession) {
    var phone = HouseholdBenchmarks.categories(0..<n, by: "bench-phone")
    var tablet = HouseholdBenchmarks.tablet(n)
    var phoneSide = SyncSession(announcingVersions: announcing)
    var tabletSide = SyncSession()
    for _ in 0..<(announcing ? 2 : 1) {
      try! tabletSide.receive(phoneSide.message(from: &phone), into: &tablet)
      try! phoneSide.receive(tabletSide.message(from: &tablet), into: &phone)
    }
    edits(&phone)
    return (phone, phoneSide, tabletSide)
  }

  /// The 100 edits of `delta.size`: 50 renames that move a category to a new key and 50
  /// creations, each a whole record.
  static func renamesAndCreations(_ n: Int) -> (inout HouseholdReplica) -> Void {
    { phone in
      for index in 0..<50 {
        try! phone.renameCategory(
          CategoryKey(normalizing: "Category \(index * (n / 50))"), to: "Renamed \(index)")
        try! phone.getOrCreateCategory(displayName: "New \(index)")
      }
    }
  }

  /// 100 edits of one field of existing records, as the peers' edits are.
  static func fieldEdits(_ n: Int) -> (inout HouseholdReplica) -> Void {
    { phone in
      for index in 0..<100 {
        try! phone.setSortOrder(
          Int64(index), ofCategory: CategoryKey(normalizing: "Category \(index * (n / 100))"))
      }
    }
  }

  static func all(sizes: [Int]) -> [Benchmark] {
    sizes.flatMap { n -> [Benchmark] in
      let edited = Lazy { acknowledged(n, then: renamesAndCreations(n)) }
      let fieldsEdited = Lazy { acknowledged(n, then: fieldEdits(n)) }
      let fieldsEditedCompactly = Lazy { acknowledged(n, announcing: true, then: fieldEdits(n)) }
      let equal = Lazy { acknowledged(n) { _ in } }
      // The tablet relaunched (a new incarnation, a new session) after the phone's 100 field
      // edits: its first message, the whole state, has reached the phone's session.
      let relaunched = Lazy {
        var (phone, phoneSide, _) = fieldsEdited.value
        var tablet = HouseholdReplica(
          state: HouseholdBenchmarks.tablet(n).state, member: Households.member,
          clock: HybridClock(replica: "bench-tablet-2", wallClock: .fixed(1_733_788_900_000)))
        var tabletSide = SyncSession()
        try! phoneSide.receive(tabletSide.message(from: &tablet), into: &phone)
        return (phone, phoneSide, tabletSide: tabletSide)
      }
      // A session's first message: the phone's whole state.
      let full = Lazy {
        var (phone, session) = (edited.value.0, SyncSession())
        return session.message(from: &phone)
      }
      let message = Lazy {
        var (phone, session, _) = edited.value
        return session.message(from: &phone)
      }
      func messageRow(
        _ name: String, _ pair: Lazy<(HouseholdReplica, SyncSession, tabletSide: SyncSession)>
      ) -> Benchmark {
        Benchmark(
          name, n: n, prepare: { (Unique(pair.value.0), pair.value.1) },
          bytes: { input in
            var session = input.1
            return input.0.update { session.message(from: &$0).encoded().count }
          }
        ) { input in
          var session = input.1
          blackHole(input.0.update { session.message(from: &$0) })
        }
      }
      return [
        messageRow("sync.message", edited),
        messageRow("sync.message.fields", fieldsEdited),
        messageRow("sync.message.fields.compact", fieldsEditedCompactly),
        messageRow("sync.message.equal", equal),
        messageRow("sync.message.relaunched", relaunched),
        Benchmark("sync.encode", n: n, prepare: { message.value }, bytes: { $0.json().count }) {
          blackHole($0.encoded())
        },
        Benchmark(
          "sync.encode.full", n: n, prepare: { full.value },
          bytes: { $0.encoded().count }
        ) {
          blackHole($0.encoded())
        },
        Benchmark(
          "sync.decode.full", n: n,
          prepare: { full.value.encoded() }, bytes: { $0.count }
        ) { bytes in
          blackHole(try! SyncMessage(decoding: bytes))
        },
        Benchmark(
          "sync.decode", n: n, prepare: { message.value.encoded() }, bytes: { $0.count }
        ) { bytes in
          blackHole(try! SyncMessage(decoding: bytes))
        },
        // The tablet's own session, which has merged what the delta starts after (a new one
        // would refuse it and ask for the whole state).
        Benchmark(
          "sync.receive", n: n,
          prepare: {
            (Unique(HouseholdBenchmarks.tablet(n)), message.value, edited.value.tabletSide)
          }
        ) { input in
          var session = input.2
          blackHole(input.0.update { try! session.receive(input.1, into: &$0) })
        },
      ]
    }
  }
}
