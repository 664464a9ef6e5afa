import ForagerSync
import Foundation
import SharedSupport

/// The envelope `ReplicaFileFormat` and `ReplicaJournal` write, as bytes:
/// `{"format":n,"checksum":"crc32:…","<member>":…}`, the checksum over the member's bytes.
package struct ChecksummedEnvelopeBytes: Sendable {
  /// The member holding the checksummed value, and what the envelope is, for messages.
  let member: String
  let what: String
  /// `{"format":n,"checksum":"`.
  let start: String
  /// The fixed-width part before the member's value.
  let prefixLength: Int

  init(format: Int64, member: String, what: String) {
    self.member = member
    self.what = what
    start = #"{"format":\#(format),"checksum":""#
    prefixLength = (start + #"crc32:00000000",""# + member + #"":"#).utf8.count
  }

  /// The member's value in `bytes`, an envelope of this format.
  package func value(of bytes: [UInt8]) -> [UInt8] {
    precondition(bytes.starts(with: start.utf8), "not \(what) of the current format")
    return Array(bytes[prefixLength..<(bytes.count - 1)])
  }

  /// An envelope holding `value` under a checksum that matches.
  package func wrapping(_ value: [UInt8]) -> [UInt8] {
    Array(start.utf8) + Array(CRC32.label(CRC32.checksum(value)).utf8)
      + Array(#"",""#.utf8) + Array(member.utf8) + Array(#"":"#.utf8) + value
      + [UInt8(ascii: "}")]
  }
}

/// Edits file bytes of the current format the way the tests need: take the content out, put
/// (possibly damaged) content back under a checksum that matches it.
package enum ReplicaFileBytes {
  static let envelope = ChecksummedEnvelopeBytes(
    format: ReplicaFileFormat.current, member: "content", what: "a replica file")

  package static func content(of file: [UInt8]) -> [UInt8] { envelope.value(of: file) }

  package static func file(content: [UInt8]) -> [UInt8] { envelope.wrapping(content) }

  /// The file with its checksum recomputed over its (edited) content.
  package static func restamped(_ file: [UInt8]) -> [UInt8] {
    self.file(content: content(of: file))
  }

  /// The file as a newer build would write it: `field` (`"name":value`) added first to its
  /// content's object, under a checksum that matches.
  package static func adding(field: String, to file: [UInt8]) -> [UInt8] {
    let content = content(of: file)
    precondition(content.first == UInt8(ascii: "{"), "content is not an object")
    return self.file(content: [content[0]] + Array((field + ",").utf8) + content.dropFirst())
  }
}

extension ReplicaStore {
  /// Writes `replica` as the snapshot of a store of `file` that opened nothing: how a test
  /// puts a replica file in place.
  package static func save(to file: URL, _ replica: HouseholdReplica) throws(StoreError) {
    var store = ReplicaStore(fileURL: file)
    try store.save(replica)
  }
}

extension ReplicaStore {
  /// The household a replica's snapshot and journal hold, as its owner would open it, or `nil`
  /// when there is no snapshot. The journal is read first: read while a store compacts, it is
  /// never behind the snapshot read after it.
  package static func storedState(at file: URL) throws -> HouseholdState? {
    var store = ReplicaStore(fileURL: file)
    let journal = try store.readJournal()
    guard let snapshot = try store.read() else { return nil }
    return try store.open(
      snapshot, journal: journal, file: file, household: snapshot.state.householdID,
      member: snapshot.member, wallClock: .system, incarnation: .random()
    ).state
  }
}

/// Edits journal lines the way the tests need: take the entry out, put a (possibly forged)
/// entry back under a checksum that matches it.
package enum JournalLineBytes {
  static let envelope = ChecksummedEnvelopeBytes(
    format: ReplicaJournal.current, member: "entry", what: "a journal line")

  /// The entry of `line` (without its newline).
  package static func entry(of line: [UInt8]) -> [UInt8] { envelope.value(of: line) }

  /// A line (without its newline) holding `entry` under a checksum that matches.
  package static func line(entry: [UInt8]) -> [UInt8] { envelope.wrapping(entry) }
}
