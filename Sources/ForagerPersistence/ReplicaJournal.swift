import ForagerModel
import Foundation
import SemanticCRDT
import SemanticCRDTJSON
internal import SharedSupport

/// One change in a replica's journal: the delta of the edits (or of what a merge brought) that
/// one save made durable, with the sequence number that orders it after the snapshot.
package struct JournalEntry: Sendable, Equatable {
  /// Counts up by one per entry across the replica's life; a snapshot records the last one it
  /// holds, and opening skips the entries at or below it.
  package let sequence: UInt64
  /// The replica id (incarnation) that wrote the entry.
  package let replica: ReplicaID
  /// The writing replica's clock when it wrote the entry, so a reopened replica never issues a
  /// smaller timestamp; `nil` for a replica that never ticked.
  package let clock: ClockReading?
  /// The change: merged into the state before it, it gives the state after it.
  package let delta: HouseholdState
  /// The delta's greatest timestamp as found while decoding the line (`.some(nil)` for a delta
  /// without stamps), so that a replay does not scan it again (ADR 0027); `nil` for an entry
  /// made in memory. Not part of the entry's value.
  package fileprivate(set) var greatestTimestampRead: HybridTimestamp?? = nil

  package init(sequence: UInt64, replica: ReplicaID, clock: ClockReading?, delta: HouseholdState) {
    self.sequence = sequence
    self.replica = replica
    self.clock = clock
    self.delta = delta
  }

  package static func == (left: JournalEntry, right: JournalEntry) -> Bool {
    (left.sequence, left.replica, left.clock) == (right.sequence, right.replica, right.clock)
      && left.delta == right.delta
  }
}

/// The lines of a replica's journal (docs/format.md, "Journal"): the file beside the snapshot
/// that each save appends one line to, instead of rewriting the snapshot.
///
/// ```json
/// {"format":2,"checksum":"crc32:5d1c0a3e","entry":{"clock":[1733788800000,3],"delta":{…},
///  "replica":"k3v7…","sequence":18}}
/// ```
///
/// One line per entry, ending in a newline (JSON strings hold no raw newline, so a line is a
/// whole entry). The checksum covers the bytes of `entry` exactly as stored. A line passes the
/// checks a whole file does: the format (a newer one is named as such), the structure (nulls
/// and unknown keys refused), the checksum, and then, when the journal is replayed, the
/// household, the normalizer, the clock-skew bound and the model's invariants.
///
/// A save appends its line with one write and flushes it to disk before it reports success, so
/// only the last line can be torn, and a torn line was never acknowledged: reading drops an
/// unterminated last line and reports where the good lines end, for the next append to start
/// there. Any other damage is an error: it would lose acknowledged changes.
package enum ReplicaJournal {
  /// The line format this build writes: 2, whose deltas are states of replica-file format 4
  /// (ADR 0036). Lines of format 1, whose deltas are format 3's, are read as they are.
  package static let current: Int64 = 2

  /// The greatest sequence number a journal entry, or the snapshot's record of one, may carry:
  /// 2⁴⁰, the bound of dot counters, a save a second for 34,000 years. A greater one is forged
  /// or damaged, and the next entry's number must not overflow.
  package static let maximumSequence = Dot.maximumCounter

  /// The journal of the replica file `snapshot`: the same name with `.journal` after it.
  package static func url(of snapshot: URL) -> URL {
    URL(fileURLWithPath: snapshot.path + fileSuffix, isDirectory: false)
  }

  /// What a journal's name adds to its file's.
  package static let fileSuffix = ".journal"

  // MARK: Writing

  /// The line for `entry`, newline included. Equal entries give identical bytes.
  ///
  /// - Complexity: O(size of the delta).
  package static func encode(_ entry: JournalEntry) -> [UInt8] {
    var writer = JSONWriter(capacity: 1 << 12)
    writer.checksummedEnvelope(format: current, member: "entry") { writer in
      writer.beginObject()
      writer.field("clock", entry.clock)
      writer.field("delta", entry.delta)
      writer.field("replica", entry.replica)
      writer.field("sequence", entry.sequence)
      writer.endObject()
    }
    var bytes = writer.bytes
    bytes.append(UInt8(ascii: "\n"))
    return bytes
  }

  // MARK: Reading

  /// What a journal holds: its entries in order, and where its last whole line ends.
  package struct Contents: Sendable {
    package var entries: [JournalEntry]
    /// The length of the journal without a torn last line: where the next line goes.
    package var validLength: Int
    /// Whether an unterminated last line was dropped.
    package var droppedTornLine: Bool { damage == nil && validLength < byteCount }
    /// The journal's length as read.
    package var byteCount: Int
    /// When read up to the first damaged line (``decode(_:file:from:stoppingAtDamage:)``):
    /// what is wrong with it. ``entries`` are the lines before it, and ``validLength`` is
    /// where it starts.
    package var damage: StoreError?
  }

  /// Reads a journal's bytes, from the line that starts at `start` (the first, by default).
  ///
  /// - Parameters:
  ///   - file: The journal, named in errors.
  ///   - start: Where a line starts (``startsLine(at:in:)``); anywhere else is refused.
  ///   - stoppingAtDamage: Read up to the first damaged or out-of-order line and report it in
  ///     ``Contents/damage`` instead of throwing: for a reader of a peer's journal, which
  ///     merges what comes before and waits for the peer's next snapshot for the rest.
  /// - Throws: ``StoreError`` naming the journal and the byte where a line is damaged, of a
  ///   newer format, or out of order (each line's sequence must be greater than the last's).
  /// - Complexity: O(size of the journal after `start`).
  package static func decode(
    _ bytes: [UInt8], file: URL, from start: Int = 0, stoppingAtDamage: Bool = false
  ) throws(StoreError) -> Contents {
    guard startsLine(at: start, in: bytes) else {
      throw StoreError(
        file: file,
        problem: .malformed(JSONError(.invalidValue("no line starts at byte \(start)"), at: 0)))
    }
    var entries: [JournalEntry] = []
    var lineStart = start
    var damage: StoreError?
    bytes.withUnsafeBufferPointer { buffer in
      while let newline = buffer[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
        do throws(StoreError) {
          let entry = try decodeLine(buffer, lineStart..<newline, file: file)
          if let last = entries.last, entry.sequence <= last.sequence {
            throw StoreError(
              file: file,
              problem: .invalidContent(
                JSONError(
                  .invalidValue(
                    "entry \(entry.sequence) follows entry \(last.sequence): the journal is out of order"
                  ), at: lineStart)))
          }
          entries.append(entry)
        } catch {
          damage = error
          return
        }
        lineStart = newline + 1
      }
    }
    if let damage, !stoppingAtDamage { throw damage }
    return Contents(
      entries: entries, validLength: lineStart, byteCount: bytes.count, damage: damage)
  }

  /// Whether a line of `bytes` starts at `offset`: at the start, or just after a newline.
  package static func startsLine(at offset: Int, in bytes: [UInt8]) -> Bool {
    offset == 0 || (offset > 0 && offset <= bytes.count && bytes[offset - 1] == UInt8(ascii: "\n"))
  }

  /// The journal's first entry, or `nil` when it has no whole line: what a reader that has
  /// read the rest before checks to know the journal is still the one it read.
  ///
  /// - Complexity: O(size of the first line).
  package static func firstEntry(of bytes: [UInt8], file: URL) throws(StoreError) -> JournalEntry? {
    guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
    return try bytes.withUnsafeBufferPointer { buffer throws(StoreError) in
      try decodeLine(buffer, 0..<newline, file: file)
    }
  }

  /// The members of a line and of its entry.
  enum LineField: String, CaseIterable, Sendable { case checksum, entry, format }
  enum EntryField: String, CaseIterable, Sendable { case clock, delta, replica, sequence }
  static let entryFields = JSONFields<EntryField>()

  /// Reads the line at `range` of `buffer`, verifying the checksum before trusting the entry.
  private static func decodeLine(
    _ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, file: URL
  ) throws(StoreError) -> JournalEntry {
    var format: Int64?
    var checksum: String?
    var entry: (value: Result<JournalEntry, JSONError>, range: Range<Int>)?
    var unknown: (name: String, offset: Int)?
    do {
      try JSONReader.read(buffer, valueAt: range) { reader throws(JSONError) in
        try reader.readDynamicObject { reader, key throws(JSONError) in
          switch LineField(rawValue: key) {
          case .format: format = try reader.read(Int64.self)
          case .checksum: checksum = try reader.readString()
          case .entry: entry = try reader.readLocating(readEntry)
          case nil:
            if unknown == nil { unknown = (key, reader.offset) }
            _ = try reader.locateValue()
          }
        }
      }
    } catch {
      throw StoreError(file: file, problem: .malformed(error))
    }
    guard let format else {
      throw StoreError(
        file: file, problem: .malformed(JSONError(.missingKey("format"), at: range.lowerBound)))
    }
    guard (1...current).contains(format) else {
      throw StoreError(
        file: file,
        problem: format > current
          ? .newerFormat(found: format, supported: current) : .unknownFormat(format))
    }
    if let unknown {
      throw StoreError(
        file: file, problem: .malformed(JSONError(.unknownKey(unknown.name), at: unknown.offset)))
    }
    guard let checksum, let entry else {
      throw StoreError(
        file: file,
        problem: .malformed(
          JSONError(.missingKey(checksum == nil ? "checksum" : "entry"), at: range.lowerBound)))
    }
    let computed = CRC32.label(CRC32.checksum(UnsafeBufferPointer(rebasing: buffer[entry.range])))
    guard checksum == computed else {
      throw StoreError(file: file, problem: .checksumMismatch(stored: checksum, computed: computed))
    }
    switch entry.value {
    case .success(let entry): return entry
    case .failure(let error): throw StoreError(file: file, problem: .invalidContent(error))
    }
  }

  private static func readEntry(_ reader: inout JSONReader) throws(JSONError) -> JournalEntry {
    var clock: ClockReading??
    var delta: HouseholdState.AsRead?
    var replica: ReplicaID?
    var sequence: UInt64?
    try reader.readObject(entryFields) { reader, field throws(JSONError) in
      switch field {
      case .clock: try reader.read(into: &clock)
      case .delta: delta = try HouseholdState.AsRead(from: &reader)
      case .replica: try reader.read(into: &replica)
      case .sequence: try reader.read(into: &sequence)
      }
    }
    guard sequence! <= maximumSequence else {
      throw reader.error(
        .invalidValue("entry sequence \(sequence!) is above the bound of \(maximumSequence)"))
    }
    var entry = JournalEntry(
      sequence: sequence!, replica: replica!, clock: clock!, delta: delta!.state)
    entry.greatestTimestampRead = delta!.greatestTimestamp
    return entry
  }
}
