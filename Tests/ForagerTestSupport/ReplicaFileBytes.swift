import ForagerSync
import Foundation

/// Edits file bytes of the current format the way the tests need: take the content out, put
/// (possibly damaged) content back under a checksum that matches it.
package enum ReplicaFileBytes {
  /// `{"format":3,"checksum":"`, as `ReplicaFileFormat` writes it.
  static let start = #"{"format":\#(ReplicaFileFormat.current),"checksum":""#

  /// `{"format":3,"checksum":"crc32:…","content":` — fixed width, as `ReplicaFileFormat` writes.
  package static let prefixLength = (start + #"crc32:00000000","content":"#).utf8.count

  package static func content(of file: [UInt8]) -> [UInt8] {
    precondition(file.starts(with: start.utf8), "not a file of the current format")
    return Array(file[prefixLength..<(file.count - 1)])
  }

  package static func file(content: [UInt8]) -> [UInt8] {
    Array(start.utf8) + Array(CRC32.label(CRC32.checksum(content)).utf8)
      + Array(#"","content":"#.utf8) + content + [UInt8(ascii: "}")]
  }

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
  /// `{"format":1,"checksum":"`, as `ReplicaJournal` writes it.
  static let start = #"{"format":\#(ReplicaJournal.current),"checksum":""#
  /// Up to the entry: fixed width, as `ReplicaJournal` writes it.
  static let prefixLength = (start + #"crc32:00000000","entry":"#).utf8.count

  /// The entry of `line` (without its newline).
  package static func entry(of line: [UInt8]) -> [UInt8] {
    precondition(line.starts(with: start.utf8), "not a journal line of the current format")
    return Array(line[prefixLength..<(line.count - 1)])
  }

  /// A line (without its newline) holding `entry` under a checksum that matches.
  package static func line(entry: [UInt8]) -> [UInt8] {
    Array(start.utf8) + Array(CRC32.label(CRC32.checksum(entry)).utf8)
      + Array(#"","entry":"#.utf8) + entry + [UInt8(ascii: "}")]
  }
}
