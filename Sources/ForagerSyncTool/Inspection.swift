import ForagerSync
import SemanticCRDT
import SemanticCRDTJSON

/// What `forager-sync inspect` shows of a replica file.
struct Inspection {
  let file: ReplicaFile

  var state: HouseholdState { file.contents.state }

  /// Records per kind, in the model's order.
  var counts: [(String, Int)] {
    struct Counts: HouseholdMapVisitor {
      let state: HouseholdState
      var counts: [(String, Int)] = []
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        counts.append((map.plural, state[keyPath: map.records].count))
      }
    }
    var counts = Counts(state: state)
    HouseholdState.forEachMap(&counts, carrying: state.carriedMapNames)
    return counts.counts
  }

  /// Slots holding concurrent recipe choices, with how many.
  var conflicts: [(SlotKey, Int)] {
    state.meals.keys.sorted().compactMap { slot in
      let choices = state.meals[slot]!.assignment.writes.count
      return choices > 1 ? (slot, choices) : nil
    }
  }

  /// Writes seen per replica id (incarnation), over all maps.
  var version: [(ReplicaID, UInt64)] {
    var seen: [ReplicaID: UInt64] = [:]
    for context in state.contexts {
      for (replica, count) in context.versionVector.counters { seen[replica, default: 0] += count }
    }
    return seen.sorted { $0.key < $1.key }
  }

  /// Writes the state has seen removed or superseded: what tombstones would be in another
  /// design. Here they are intervals of each map's causal context, not records.
  var removedWrites: UInt64 {
    state.contexts.reduce(0) { $0 + $1.count } - UInt64(state.liveWriteCount)
  }

  var text: String {
    let contents = file.contents
    let clock = contents.clock.map { "\($0.wallMilliseconds).\($0.logical)" } ?? "never ticked"
    let seen: String =
      version.isEmpty
      ? "nothing written" : version.map { "\($0.0): \($0.1)" }.joined(separator: ", ")
    let records: String = counts.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
    let open: String =
      conflicts.isEmpty
      ? "none" : conflicts.map { "\($0.0) (\($0.1) choices)" }.joined(separator: ", ")
    var lines: [String] = []
    lines.append("file        \(file.url.path) (\(file.size) bytes)")
    lines.append("household   \(state.householdID)")
    lines.append("replica     \(contents.replica) (the incarnation that saved it)")
    lines.append("member      \(contents.member)")
    lines.append("format      \(contents.format) (this build writes \(ReplicaFileFormat.current))")
    lines.append(
      "normalizer  \(state.normalizerVersion.rawValue) (this build keys with \(NormalizerVersion.current.rawValue))"
    )
    lines.append("clock       \(clock)")
    lines.append("version     \(seen)")
    lines.append("records     \(records)")
    lines.append("conflicts   \(open)")
    lines.append(
      "removed     \(removedWrites) writes removed or superseded (kept as causal-context intervals, no tombstone records)"
    )
    for (replica, claimed) in state.implausibleClaims {
      lines.append(
        "claims      \(claimed) writes of \(replica), more than any device makes (forged)")
    }
    if state.dissolved.value { lines.append("dissolved   yes") }
    return lines.joined(separator: "\n") + "\n"
  }

  var json: [UInt8] {
    var writer = JSONWriter()
    writer.beginObject()
    writer.field("bytes", Int64(file.size))
    writer.field("clock", file.contents.clock.map { "\($0.wallMilliseconds).\($0.logical)" })
    writer.key("conflicts")
    writer.beginObject()
    for (slot, choices) in conflicts { writer.key(slot.rawValue); writer.value(Int64(choices)) }
    writer.endObject()
    writer.key("counts")
    writer.beginObject()
    for (name, count) in counts.sorted(by: { $0.0 < $1.0 }) {
      writer.key(name); writer.value(Int64(count))
    }
    writer.endObject()
    writer.field("dissolved", state.dissolved.value)
    writer.field("file", file.url.path)
    writer.field("format", file.contents.format)
    writer.field("household", state.householdID)
    writer.field("member", file.contents.member)
    writer.field("normalizer", state.normalizerVersion.rawValue)
    writer.field("removed_writes", removedWrites)
    writer.field("replica", file.contents.replica)
    writer.key("version")
    writer.beginObject()
    for (replica, count) in version { writer.key(replica.rawValue); writer.value(count) }
    writer.endObject()
    writer.endObject()
    return writer.bytes + Array("\n".utf8)
  }
}

extension HouseholdState {
  /// The writes that are live values (one per record, more for concurrent writes).
  var liveWriteCount: Int {
    struct Live: HouseholdMapVisitor {
      let state: HouseholdState
      var count = 0
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        let records = state[keyPath: map.records]
        count += records.keys.reduce(0) { $0 + records.writeCount(of: $1) }
      }
    }
    var live = Live(state: self)
    Self.forEachMap(&live, carrying: carriedMapNames)
    return live.count
  }
}
