import ForagerSync

/// Edits format-2 file bytes the way the tests need: take the content out, put (possibly
/// damaged) content back under a checksum that matches it.
package enum ReplicaFileBytes {
  /// `{"format":2,"checksum":"crc32:…","content":` — fixed width, as `ReplicaFileFormat` writes.
  package static let prefixLength = #"{"format":2,"checksum":"crc32:00000000","content":"#.utf8
    .count

  package static func content(of file: [UInt8]) -> [UInt8] {
    precondition(
      file.starts(with: #"{"format":2,"checksum":"crc32:"#.utf8), "not a format-2 file")
    return Array(file[prefixLength..<(file.count - 1)])
  }

  package static func file(content: [UInt8]) -> [UInt8] {
    Array(#"{"format":2,"checksum":""#.utf8) + Array(CRC32.label(CRC32.checksum(content)).utf8)
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
