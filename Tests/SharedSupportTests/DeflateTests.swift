import CRDTTestSupport
import Testing

@testable import SharedSupport

/// The compressor and decompressor behind compressed sync messages: zlib's own streams decode,
/// whatever is compressed comes back, and no damaged, truncated or oversized stream traps or
/// decodes to something else.
@Suite struct DeflateTests {
  static func bytes(hex: String) -> [UInt8] {
    let digits = Array(hex.utf8).map { $0 <= 57 ? $0 - 48 : $0 - 87 }
    return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
  }

  /// JSON of 40 categories, 2,116 bytes: what the zlib fixtures below hold.
  static let categories: [UInt8] = Array(
    ("{\"categories\":["
      + (0..<40).map {
        "{\"key\":\"category \($0)\",\"name\":\"Category \($0)\",\"order\":\($0 % 7)}"
      }
      .joined(separator: ",") + "]}").utf8)

  /// Written by Python's `gzip.compress(data, compresslevel=level, mtime=0)` (zlib 1.2).
  static let zlibFixtures: [(name: String, level: Int, content: [UInt8], hex: String)] = [
    (
      "dynamic, level 1", 1, categories,
      "1f8b08000000000004037d94c14a433114057f45b2eea2f7ded7aaddfa19e2a2e84344b450dd94d27fd79c1e21"
        + "e0f0b64386c0c990737bde7fcfaf87e3dbfcd5768fe7f63e9fdaee0f9e6ed66dd53ef71ff32f7bb81ebcb2c3f1"
        + "653eb6ddfab2faa704289d5909501294ceac2428054a67560a940994ceac4ca06c40e9ccca06942d289d59d982"
        + "720b4a675668e43b503ab34223df83d299151a39e8f9052dd1cc81010c05d0d0410908fa269a3a2802414b3476"
        + "5006829668eea010042dd1e04129085ac2c92986186ac0c92987187ac0c92988188aa0c9938a105c983ca908c1"
        + "85c9938a105c983ca908c185c9938a10b444932715216889264f2a42d0124e4e45e45004559e5484a06fa2ca93"
        + "8a10b4449517152168892a2f2a42d0124d5e5484a0259abca808414b34795111829668f2a222042dd1e4454508"
        + "5ac2c9a9881a8ac0c9a9881afe089c9c8aa8e18f982e4f971f66a73d4f44080000"
    ),
    (
      "dynamic, level 9", 9, categories,
      "1f8b08000000000002038595bd4a044110065f4526be60bb7bfe76531fe330387410113d584d8ee3de5d139903"
        + "8beef4834a6a8a9e6b7a3e7d8fd7f3fe36bed276bca6f77149dbdf787958d2217d9e3ec6eff678bf9df797b1a7"
        + "6db91dfe2102884c4400514074220a8801621331403220792219900248994801a402522752016980345f7207a4"
        + "fb925740565fb2d0f3cbe26b160c407cd1420988faaa852210f3650b652039689a4290e20b174a416aa09c6290"
        + "1628a71ca407ca2908597de54a45e8e22b572a42c557ae781434382454849aaf5ca908cdbe72a522b4f8ca958a"
        + "d01a28a722b405caa908ed81722a42575fb95111b604d79b8a30f1951b1561ea2b37fc28cc576e5484655fb951"
        + "11567ce54645580d945311d602e55484f540391561ebbdf2a7db0f66a73d4f44080000"
    ),
    (
      "fixed codes, overlapping matches", 9,
      Array("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa hello hello hello".utf8),
      "1f8b08000000000002034b4c24152864a4e6e4e423930057437da544000000"
    ),
    (
      "stored", 0, Array("stored, not compressed".utf8),
      "1f8b0800000000000403011600e9ff73746f7265642c206e6f7420636f6d70726573736564cb326f9f16000000"
    ),
  ]

  @Test func zlibStreamsDecode() throws {
    for fixture in Self.zlibFixtures {
      let decoded = try Gzip.decompress(Self.bytes(hex: fixture.hex), limit: 1 << 20)
      #expect(decoded == fixture.content, "\(fixture.name)")
    }
  }

  /// zlib at its best level sent the categories in 305 bytes; this compressor may not be more
  /// than a tenth larger, or sync messages lose what compressing them is for.
  @Test func compressesAboutAsWellAsZlib() throws {
    let compressed = Gzip.compress(Self.categories)
    #expect(compressed.count <= 336, "\(compressed.count) bytes")
    #expect(try Gzip.decompress(compressed, limit: 1 << 20) == Self.categories)
  }

  /// A piece of an input: the shapes compressors get wrong (runs, matches that overlap what
  /// they produce, distances at the window's edge, bytes that do not compress).
  enum Piece: CustomStringConvertible {
    case random(count: Int, seed: UInt64)
    case run(byte: UInt8, count: Int)
    case record(Int)
    /// A copy of earlier bytes: `back` is a fraction of what came before, in thousandths.
    case copy(back: Int, count: Int)

    var description: String {
      switch self {
      case .random(let count, let seed): "\(count) random bytes (seed \(seed))"
      case .run(let byte, let count): "\(count) × \(byte)"
      case .record(let index): "record \(index)"
      case .copy(let back, let count): "copy \(count) bytes from \(back)‰ back"
      }
    }

    static func generate(_ random: inout SplitMix64) -> Piece {
      switch random.int(in: 0..<10) {
      case 0: .random(count: random.int(in: 0...300), seed: random.next())
      case 1: .run(byte: UInt8(random.int(in: 0...255)), count: random.int(in: 1...600))
      case 2...5: .record(random.int(in: 0...100_000))
      default: .copy(back: random.int(in: 1...1000), count: random.int(in: 1...700))
      }
    }

    func append(to input: inout [UInt8]) {
      switch self {
      case .random(let count, let seed):
        var random = SplitMix64(seed: seed)
        input += (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
      case .run(let byte, let count): input += repeatElement(byte, count: count)
      case .record(let index):
        input += Array("{\"key\":\"category \(index)\",\"order\":[\(index % 97),\(index)]},".utf8)
      case .copy(let back, let count):
        guard !input.isEmpty else { return }
        let start = input.count - max(1, input.count * back / 1000)
        // Byte by byte, so that a copy may overlap itself as a match does.
        for offset in 0..<count { input.append(input[start + offset]) }
      }
    }
  }

  static func input(of pieces: [Piece]) -> [UInt8] {
    var input: [UInt8] = []
    for piece in pieces { piece.append(to: &input) }
    return input
  }

  @Test func whateverIsCompressedComesBack() {
    let failure = checkProperty(
      "deflate round trip", iterations: 150,
      generate: { random in (0..<random.int(in: 0...60)).map { _ in Piece.generate(&random) } },
      check: { pieces in
        let input = Self.input(of: pieces)
        let compressed = Gzip.compress(input)
        do {
          let output = try Gzip.decompress(compressed, limit: input.count)
          return output == input
            ? nil : "decompressed \(output.count) bytes, not the \(input.count)"
        } catch {
          return "\(input.count) bytes compressed to \(compressed.count), refused: \(error)"
        }
      })
    #expect(failure == nil, "\(failure.map(String.init(describing:)) ?? "")")
  }

  /// Past one block (65,536 tokens) and past the window (32 KiB), with matches reaching back
  /// as far as the window allows, in both the thorough and the quick search.
  @Test(arguments: [
    Deflater.effort(forInputOf: 0), Deflater.effort(forInputOf: 1 << 20),
    Deflater.effort(forInputOf: 1 << 30), Deflater.Effort(chain: 1, good: 1, lazy: 1, nice: 3),
  ])
  func largeInputsSpanBlocksAndTheWindow(effort: Deflater.Effort) throws {
    var random = SplitMix64(seed: 18)
    var input: [UInt8] = []
    while input.count < 300_000 { Piece.generate(&random).append(to: &input) }
    let raw = input.withUnsafeBufferPointer { Deflater.deflate($0, effort: effort) }
    let (output, end) = try raw.withUnsafeBufferPointer { buffer in
      try Inflater.inflate(buffer, from: 0, limit: input.count)
    }
    // Compared first, so that a failure names where, not 300,000 bytes.
    let firstDifference = input.indices.first { $0 >= output.count || output[$0] != input[$0] }
    #expect(
      output.count == input.count && firstDifference == nil, "differs at \(firstDifference ?? -1)")
    #expect(end == raw.count)
    #expect(raw.count < input.count / 2, "\(raw.count) bytes")
  }

  @Test func everyTruncationIsRefused() {
    let compressed = Gzip.compress(Self.categories)
    for length in 0..<compressed.count {
      #expect(throws: DeflateError.self, "\(length) bytes") {
        try Gzip.decompress(Array(compressed[..<length]), limit: 1 << 20)
      }
    }
  }

  /// Every single-bit flip of a stream either is refused or, where the flipped bit did not
  /// matter (padding, the operating-system byte), decodes to the original.
  @Test func everyBitFlipIsRefusedOrHarmless() {
    let compressed = Gzip.compress(Self.categories)
    var harmless = 0
    for bit in 0..<compressed.count * 8 {
      var damaged = compressed
      damaged[bit / 8] ^= 1 << UInt8(bit % 8)
      guard let output = try? Gzip.decompress(damaged, limit: 1 << 20) else { continue }
      #expect(output == Self.categories, "bit \(bit)")
      harmless += 1
    }
    // The six header bytes not read, and at most seven bits of padding.
    #expect(harmless <= 6 * 8 + 7)
  }

  @Test func aBombStopsAtTheLimit() {
    let bomb = Gzip.compress([UInt8](repeating: 0, count: 4 << 20))
    #expect(bomb.count < 16 << 10)
    #expect(throws: DeflateError.tooLarge(limit: 1 << 20)) {
      try Gzip.decompress(bomb, limit: 1 << 20)
    }
  }

  /// Packs bits as DEFLATE does, for streams written by hand.
  struct Bits {
    var bytes: [UInt8] = []
    var count = 0

    /// A stream that starts a last block of `type` (0 stored, 1 fixed codes, 2 dynamic).
    init(finalBlockOfType type: Int) {
      append(1, 1)
      append(type, 2)
    }
    mutating func append(_ value: Int, _ width: Int, reversed: Bool = false) {
      for index in 0..<width {
        let bit = reversed ? (value >> (width - 1 - index)) & 1 : (value >> index) & 1
        if count % 8 == 0 { bytes.append(0) }
        bytes[bytes.count - 1] |= UInt8(bit) << UInt8(count % 8)
        count += 1
      }
    }
  }

  static func inflate(_ bits: Bits) throws(DeflateError) -> [UInt8] {
    try bits.bytes.withUnsafeBufferPointer { buffer throws(DeflateError) in
      try Inflater.inflate(buffer, from: 0, limit: 1 << 20).bytes
    }
  }

  @Test func refusesWhatTheFormatForbids() {
    let blockTypeThree = Bits(finalBlockOfType: 3)
    #expect(throws: DeflateError.invalid("block type 3")) { try Self.inflate(blockTypeThree) }

    var storedMismatch = Bits(finalBlockOfType: 0)
    storedMismatch.append(0, 5)
    storedMismatch.append(4, 16)
    storedMismatch.append(4, 16)
    #expect(throws: DeflateError.invalid("a stored block's length and its complement disagree")) {
      try Self.inflate(storedMismatch)
    }

    // A fixed-code block that starts with a match: length 3 (symbol 257, code 0000001),
    // distance 1 (code 00000), with nothing before it.
    var matchBeforeStart = Bits(finalBlockOfType: 1)
    matchBeforeStart.append(1, 7, reversed: true)
    matchBeforeStart.append(0, 5, reversed: true)
    #expect(throws: DeflateError.invalid("a distance of 1 after 0 bytes")) {
      try Self.inflate(matchBeforeStart)
    }

    // A dynamic block whose code-length code gives four symbols one-bit codes.
    var overSubscribed = Bits(finalBlockOfType: 2)
    overSubscribed.append(0, 5)
    overSubscribed.append(0, 5)
    overSubscribed.append(0, 4)
    for _ in 0..<4 { overSubscribed.append(1, 3) }
    #expect(throws: DeflateError.invalid("over-subscribed code lengths")) {
      try Self.inflate(overSubscribed)
    }
  }

  @Test func refusesOtherGzipHeadersAndTrailingBytes() {
    var named = Gzip.compress(Self.categories)
    named[3] = 8
    #expect(throws: DeflateError.invalid("gzip flags 8 (optional fields)")) {
      try Gzip.decompress(named, limit: 1 << 20)
    }
    #expect(throws: DeflateError.invalid("bytes after the gzip member")) {
      try Gzip.decompress(Gzip.compress(Self.categories) + [0], limit: 1 << 20)
    }
  }

  /// Frequencies in the Fibonacci sequence make Huffman's code as deep as it gets: one more
  /// bit per symbol. The limit must hold, and the code must stay complete.
  @Test(arguments: [(30, 15), (19, 7), (60, 15)])
  func codeLengthsRespectTheLimit(symbols: Int, limit: Int) {
    var frequencies = [1, 1]
    while frequencies.count < symbols { frequencies.append(frequencies.suffix(2).reduce(0, +)) }
    let lengths = HuffmanCode.lengths(for: frequencies, limit: limit)
    #expect(lengths.allSatisfy { $0 >= 1 && $0 <= limit })
    let kraft = lengths.reduce(0) { $0 + 1 << (limit - Int($1)) }
    #expect(kraft == 1 << limit)
    for (rarer, commoner) in zip(lengths, lengths.dropFirst()) { #expect(rarer >= commoner) }
  }
}
