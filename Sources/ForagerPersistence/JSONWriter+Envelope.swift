import SemanticCRDTJSON
internal import SharedSupport

extension JSONWriter {
  /// Writes `{"format":n,"checksum":"crc32:…","<member>":…}` with `body` writing the member's
  /// value, the checksum covering that value's bytes exactly as written: the envelope of a
  /// replica file and of a journal line.
  mutating func checksummedEnvelope(
    format: Int64, member: StaticString, _ body: (inout JSONWriter) -> Void
  ) {
    beginObject()
    field("format", format)
    key("checksum")
    let checksumOffset = count + 1
    string(CRC32.label(0))
    key(member)
    let start = count
    body(&self)
    let end = count
    endObject()
    let checksum = withBytes { CRC32.checksum(UnsafeBufferPointer(rebasing: $0[start..<end])) }
    overwrite(at: checksumOffset, with: Array(CRC32.label(checksum).utf8))
  }
}
