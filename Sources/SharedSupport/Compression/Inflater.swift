/// Why compressed bytes were refused. Every malformed, truncated or oversized stream ends in one
/// of these; none traps.
package enum DeflateError: Error, Equatable, Sendable {
  /// The stream ends before its last block does.
  case truncated
  /// The stream breaks a rule of the format; the text says which.
  case invalid(String)
  /// It would decompress to more than `limit` bytes.
  case tooLarge(limit: Int)
}

/// A canonical prefix code on the decoder's side: symbols sorted by code, and how many codes
/// each length has; decoding reads one bit at a time until the code read so far is one of
/// the current length (the method of zlib's `puff.c`, small and easy to check).
struct HuffmanDecoder {
  private var countOfLength = [Int](repeating: 0, count: DeflateAlphabet.maximumCodeLength + 1)
  private var symbols: [Int] = []

  /// The code with `lengths`; refuses lengths that give some code more than one meaning
  /// (over-subscribed). An incomplete code is kept: a code outside it fails when read.
  init(lengths: ArraySlice<UInt8>) throws(DeflateError) {
    for length in lengths { countOfLength[Int(length)] += 1 }
    countOfLength[0] = 0
    var unused = 1
    for length in 1...DeflateAlphabet.maximumCodeLength {
      unused = unused * 2 - countOfLength[length]
      if unused < 0 { throw .invalid("over-subscribed code lengths") }
    }
    var offsets = [Int](repeating: 0, count: DeflateAlphabet.maximumCodeLength + 1)
    for length in 1..<DeflateAlphabet.maximumCodeLength {
      offsets[length + 1] = offsets[length] + countOfLength[length]
    }
    symbols = [Int](repeating: 0, count: offsets.last! + countOfLength.last!)
    for (symbol, length) in zip(0..., lengths) where length > 0 {
      symbols[offsets[Int(length)]] = symbol
      offsets[Int(length)] += 1
    }
  }

  func decode(from reader: inout BitReader) throws(DeflateError) -> Int {
    var (code, first, index) = (0, 0, 0)
    for length in 1...DeflateAlphabet.maximumCodeLength {
      code |= try reader.bits(1)
      let count = countOfLength[length]
      if code - first < count { return symbols[index + code - first] }
      index += count
      first = (first + count) << 1
      code <<= 1
    }
    throw .invalid("a code no symbol has")
  }
}

/// Reads bits from the least significant end of each byte, as DEFLATE packs them.
struct BitReader {
  let bytes: UnsafeBufferPointer<UInt8>
  private(set) var position: Int
  private var buffer: UInt64 = 0
  private var bufferedBits = 0

  init(_ bytes: UnsafeBufferPointer<UInt8>, from position: Int) {
    self.bytes = bytes
    self.position = position
  }

  /// The next `count` bits (at most 32), the first in the lowest place.
  mutating func bits(_ count: Int) throws(DeflateError) -> Int {
    while bufferedBits < count {
      guard position < bytes.count else { throw .truncated }
      buffer |= UInt64(bytes[position]) << UInt64(bufferedBits)
      position += 1
      bufferedBits += 8
    }
    let value = Int(buffer & ((1 << UInt64(count)) - 1))
    buffer >>= UInt64(count)
    bufferedBits -= count
    return value
  }

  /// Drops the bits left of the current byte; the position is then that of the next whole
  /// byte not read.
  mutating func alignToByte() {
    position -= bufferedBits / 8
    buffer = 0
    bufferedBits = 0
  }
}

/// Decompresses a raw DEFLATE stream (RFC 1951): stored, fixed and dynamic blocks.
enum Inflater {
  /// The bytes the stream in `bytes` from `start` holds, and the position of the first byte
  /// after its last block.
  ///
  /// - Throws: ``DeflateError``; `.tooLarge` as soon as the output would pass `limit`.
  /// - Complexity: O(input + output).
  static func inflate(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, limit: Int)
    throws(DeflateError) -> (bytes: [UInt8], end: Int)
  {
    var reader = BitReader(bytes, from: start)
    var output: [UInt8] = []
    output.reserveCapacity(min(limit, max(4 * bytes.count, 256)))
    var isFinal = false
    while !isFinal {
      isFinal = try reader.bits(1) == 1
      switch try reader.bits(2) {
      case 0: try copyStoredBlock(&reader, to: &output, limit: limit)
      case 1:
        try inflateBlock(&reader, codes: fixedCodes, to: &output, limit: limit)
      case 2:
        try inflateBlock(&reader, codes: try dynamicCodes(&reader), to: &output, limit: limit)
      default: throw .invalid("block type 3")
      }
    }
    reader.alignToByte()
    return (output, reader.position)
  }

  private static func copyStoredBlock(
    _ reader: inout BitReader, to output: inout [UInt8], limit: Int
  ) throws(DeflateError) {
    reader.alignToByte()
    let length = try reader.bits(16)
    guard try reader.bits(16) == length ^ 0xFFFF else {
      throw .invalid("a stored block's length and its complement disagree")
    }
    guard reader.position + length <= reader.bytes.count else { throw .truncated }
    guard output.count + length <= limit else { throw .tooLarge(limit: limit) }
    output.append(contentsOf: reader.bytes[reader.position..<reader.position + length])
    reader = BitReader(reader.bytes, from: reader.position + length)
  }

  /// The codes of a fixed-code block (RFC 1951, §3.2.6).
  private static let fixedCodes: (HuffmanDecoder, HuffmanDecoder) = {
    var lengths = [UInt8](repeating: 8, count: 288)
    for symbol in 144..<256 { lengths[symbol] = 9 }
    for symbol in 256..<280 { lengths[symbol] = 7 }
    let distances = [UInt8](repeating: 5, count: 30)
    return (
      try! HuffmanDecoder(lengths: lengths[...]), try! HuffmanDecoder(lengths: distances[...])
    )
  }()

  /// Reads a dynamic block's header: its code-length code, then the lengths of its
  /// literal/length and distance codes.
  private static func dynamicCodes(_ reader: inout BitReader)
    throws(DeflateError) -> (HuffmanDecoder, HuffmanDecoder)
  {
    let literalCount = try reader.bits(5) + 257
    let distanceCount = try reader.bits(5) + 1
    let codeLengthCount = try reader.bits(4) + 4
    guard literalCount <= DeflateAlphabet.literalLengthSymbols,
      distanceCount <= DeflateAlphabet.distanceSymbols
    else { throw .invalid("\(literalCount) literal/length or \(distanceCount) distance codes") }
    var codeLengthLengths = [UInt8](repeating: 0, count: 19)
    for index in 0..<codeLengthCount {
      codeLengthLengths[DeflateAlphabet.codeLengthOrder[index]] = UInt8(try reader.bits(3))
    }
    let codeLengthCode = try HuffmanDecoder(lengths: codeLengthLengths[...])
    var lengths: [UInt8] = []
    lengths.reserveCapacity(literalCount + distanceCount)
    while lengths.count < literalCount + distanceCount {
      let symbol = try codeLengthCode.decode(from: &reader)
      let (value, repeats): (UInt8, Int)
      switch symbol {
      case 0..<16: (value, repeats) = (UInt8(symbol), 1)
      case 16:
        guard let previous = lengths.last else {
          throw .invalid("a repeat of the previous length before any length")
        }
        (value, repeats) = (previous, 3 + (try reader.bits(2)))
      case 17: (value, repeats) = (0, 3 + (try reader.bits(3)))
      default: (value, repeats) = (0, 11 + (try reader.bits(7)))
      }
      guard lengths.count + repeats <= literalCount + distanceCount else {
        throw .invalid("code lengths run past the alphabets")
      }
      lengths.append(contentsOf: repeatElement(value, count: repeats))
    }
    guard lengths[DeflateAlphabet.endOfBlock] > 0 else {
      throw .invalid("no code for the end of the block")
    }
    return (
      try HuffmanDecoder(lengths: lengths[..<literalCount]),
      try HuffmanDecoder(lengths: lengths[literalCount...])
    )
  }

  private static func inflateBlock(
    _ reader: inout BitReader, codes: (literals: HuffmanDecoder, distances: HuffmanDecoder),
    to output: inout [UInt8], limit: Int
  ) throws(DeflateError) {
    while true {
      let symbol = try codes.literals.decode(from: &reader)
      if symbol < 256 {
        guard output.count < limit else { throw .tooLarge(limit: limit) }
        output.append(UInt8(symbol))
        continue
      }
      if symbol == DeflateAlphabet.endOfBlock { return }
      let lengthIndex = symbol - 257
      guard lengthIndex < DeflateAlphabet.lengthBase.count else {
        throw .invalid("length symbol \(symbol)")
      }
      let length =
        DeflateAlphabet.lengthBase[lengthIndex]
        + (try reader.bits(DeflateAlphabet.lengthExtraBits[lengthIndex]))
      let distanceIndex = try codes.distances.decode(from: &reader)
      guard distanceIndex < DeflateAlphabet.distanceSymbols else {
        throw .invalid("distance symbol \(distanceIndex)")
      }
      let distance =
        DeflateAlphabet.distanceBase[distanceIndex]
        + (try reader.bits(DeflateAlphabet.distanceExtraBits[distanceIndex]))
      guard distance <= output.count else {
        throw .invalid("a distance of \(distance) after \(output.count) bytes")
      }
      guard output.count + length <= limit else { throw .tooLarge(limit: limit) }
      // Byte by byte: a match may overlap the bytes it produces (distance < length).
      var from = output.count - distance
      for _ in 0..<length {
        output.append(output[from])
        from += 1
      }
    }
  }
}
