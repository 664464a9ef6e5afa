import SharedSupport
import Testing

/// The table-driven checksum against the standard check value and a bit-at-a-time reference,
/// on every length around the sixteen-byte blocks it works in.
@Suite struct CRC32Tests {
  /// CRC-32 one bit at a time, straight from the polynomial.
  static func reference(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
  }

  @Test func standardCheckValue() {
    #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    #expect(CRC32.checksum([]) == 0)
    #expect(CRC32.label(0xCBF4_3926) == "crc32:cbf43926")
    #expect(CRC32.label(0x1A) == "crc32:0000001a")
  }

  @Test func agreesWithTheBitwiseReference() {
    var random = SplitMix64(seed: 32)
    for length in Array(0...70) + [255, 256, 257, 4099] {
      let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
      #expect(CRC32.checksum(bytes) == Self.reference(bytes), "length \(length)")
    }
  }
}
