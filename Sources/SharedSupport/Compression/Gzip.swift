/// The gzip member format (RFC 1952) around a DEFLATE stream: a ten-byte header, the stream,
/// and the CRC-32 and size of what it holds, so that a damaged stream that still decodes is
/// caught, and any `gunzip` reads it.
package enum Gzip {
  /// The header this module writes: the magic bytes, DEFLATE, no flags, no time, unknown
  /// operating system.
  private static let header: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]

  /// Whether `bytes` start as a gzip member does.
  package static func isCompressed(_ bytes: [UInt8]) -> Bool {
    bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
  }

  /// `bytes` compressed; see ``Deflater`` for how hard it tries.
  ///
  /// - Complexity: O(*n*) (times the match search's bound).
  package static func compress(_ bytes: [UInt8]) -> [UInt8] {
    var output = header
    output += bytes.withUnsafeBufferPointer {
      Deflater.deflate($0, effort: Deflater.effort(forInputOf: $0.count))
    }
    let checksum = CRC32.checksum(bytes)
    for value in [checksum, UInt32(truncatingIfNeeded: bytes.count)] {
      for shift in stride(from: 0, to: 32, by: 8) {
        output.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
      }
    }
    return output
  }

  /// What the single gzip member in `bytes` holds. Refuses a header with flags (the optional
  /// fields of RFC 1952, which ``compress(_:)`` never writes, are not read), a stream that
  /// would hold more than `limit` bytes, a checksum or size that disagrees, and bytes after
  /// the member.
  ///
  /// - Throws: ``DeflateError``.
  /// - Complexity: O(input + output).
  package static func decompress(_ bytes: [UInt8], limit: Int) throws(DeflateError) -> [UInt8] {
    guard bytes.count >= header.count else { throw .truncated }
    guard bytes[0] == 0x1F, bytes[1] == 0x8B, bytes[2] == 8 else {
      throw .invalid("not a gzip member of DEFLATE data")
    }
    guard bytes[3] == 0 else { throw .invalid("gzip flags \(bytes[3]) (optional fields)") }
    return try bytes.withUnsafeBufferPointer { buffer throws(DeflateError) in
      let (output, end) = try Inflater.inflate(buffer, from: header.count, limit: limit)
      guard end + 8 <= buffer.count else { throw .truncated }
      func word(at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(buffer[offset + $1]) << UInt32(8 * $1) }
      }
      guard word(at: end) == CRC32.checksum(output) else {
        throw .invalid("the checksum does not match the data")
      }
      guard word(at: end + 4) == UInt32(truncatingIfNeeded: output.count) else {
        throw .invalid("the size does not match the data")
      }
      guard end + 8 == buffer.count else { throw .invalid("bytes after the gzip member") }
      return output
    }
  }
}
