/// Compresses bytes as a raw DEFLATE stream (RFC 1951): matches found by hash chains with one
/// step of lazy evaluation, as zlib finds them, sent in dynamic-code blocks.
///
/// How hard it looks for matches scales down with the input: a delta of a few kilobytes is
/// worth every byte saved, a full state of tens of megabytes is worth finishing quickly.
enum Deflater {
  /// Tokens per block: each block gets codes fitted to its own symbols.
  private static let tokensPerBlock = 1 << 16

  /// How hard the match search tries: zlib's four parameters, with its meanings.
  struct Effort {
    /// The candidates one search visits at most.
    var chain: Int
    /// A match this long makes the lazy search (the next position's) visit a quarter of that.
    var good: Int
    /// A match this long is taken without looking at the next position.
    var lazy: Int
    /// A match this long ends a search.
    var nice: Int
  }

  /// The effort for an input of `count` bytes: zlib's level 6 (its default) up to 256 KiB,
  /// which covers deltas, less above, where a full state is worth finishing quickly.
  static func effort(forInputOf count: Int) -> Effort {
    switch count {
    case ..<(256 << 10): Effort(chain: 128, good: 8, lazy: 16, nice: 128)
    case ..<(4 << 20): Effort(chain: 32, good: 8, lazy: 16, nice: 32)
    default: Effort(chain: 8, good: 4, lazy: 4, nice: 16)
    }
  }

  /// `input` as a raw DEFLATE stream.
  static func deflate(_ input: UnsafeBufferPointer<UInt8>, effort: Effort) -> [UInt8] {
    var writer = BitWriter()
    var tokens = MatchTokens()
    tokens.reserve(min(tokensPerBlock, input.count + 1))
    let finder = MatchFinder(input)
    defer { finder.deallocate() }
    var position = 0
    // A match found at the position before, waiting to see whether the next one is longer.
    var pending: Match?
    while position < input.count {
      var found: Match?
      if pending.map({ $0.length < effort.lazy }) ?? true {
        let chain =
          pending.map { $0.length >= effort.good } == true ? effort.chain / 4 : effort.chain
        found = finder.longestMatch(
          at: position, beating: pending?.length ?? DeflateAlphabet.minimumMatch - 1,
          chain: max(chain, 1), nice: effort.nice)
      }
      finder.insert(position)
      if let previous = pending {
        if found != nil {
          tokens.appendLiteral(input[position - 1])
        } else {
          tokens.appendMatch(length: previous.length, distance: previous.distance)
          // The match covers this position too; index the rest of it.
          for covered in position + 1..<position - 1 + previous.length { finder.insert(covered) }
          position += previous.length - 1
          pending = nil
          if tokens.count >= tokensPerBlock { writeBlock(&tokens, to: &writer, isFinal: false) }
          continue
        }
      }
      pending = found
      if found == nil { tokens.appendLiteral(input[position]) }
      position += 1
      if tokens.count >= tokensPerBlock { writeBlock(&tokens, to: &writer, isFinal: false) }
    }
    if let previous = pending {
      tokens.appendMatch(length: previous.length, distance: previous.distance)
    }
    writeBlock(&tokens, to: &writer, isFinal: true)
    return writer.finish()
  }

  /// Writes `tokens` as one dynamic-code block and empties them.
  private static func writeBlock(
    _ tokens: inout MatchTokens, to writer: inout BitWriter, isFinal: Bool
  ) {
    var literalFrequencies = [Int](repeating: 0, count: DeflateAlphabet.literalLengthSymbols)
    var distanceFrequencies = [Int](repeating: 0, count: DeflateAlphabet.distanceSymbols)
    tokens.forEach { token in
      switch token {
      case .literal(let byte): literalFrequencies[Int(byte)] += 1
      case .match(let length, let distance):
        literalFrequencies[257 + Int(DeflateAlphabet.lengthIndex[length - 3])] += 1
        distanceFrequencies[Int(DeflateAlphabet.distanceIndex[distance - 1])] += 1
      }
    }
    literalFrequencies[DeflateAlphabet.endOfBlock] = 1
    // Two codes at least in each alphabet: a code of one symbol is not complete.
    ensureTwoSymbols(&literalFrequencies)
    ensureTwoSymbols(&distanceFrequencies)
    let literals = HuffmanCode(
      lengths: HuffmanCode.lengths(
        for: literalFrequencies, limit: DeflateAlphabet.maximumCodeLength))
    let distances = HuffmanCode(
      lengths: HuffmanCode.lengths(
        for: distanceFrequencies, limit: DeflateAlphabet.maximumCodeLength))
    writer.write(isFinal ? 1 : 0, bits: 1)
    writer.write(2, bits: 2)
    writeCodes(literals, distances, to: &writer)
    tokens.forEach { token in
      switch token {
      case .literal(let byte): writer.write(literals, Int(byte))
      case .match(let length, let distance):
        let lengthIndex = Int(DeflateAlphabet.lengthIndex[length - 3])
        writer.write(literals, 257 + lengthIndex)
        writer.write(
          length - DeflateAlphabet.lengthBase[lengthIndex],
          bits: DeflateAlphabet.lengthExtraBits[lengthIndex])
        let distanceIndex = Int(DeflateAlphabet.distanceIndex[distance - 1])
        writer.write(distances, distanceIndex)
        writer.write(
          distance - DeflateAlphabet.distanceBase[distanceIndex],
          bits: DeflateAlphabet.distanceExtraBits[distanceIndex])
      }
    }
    writer.write(literals, DeflateAlphabet.endOfBlock)
    tokens.removeAll()
  }

  private static func ensureTwoSymbols(_ frequencies: inout [Int]) {
    for symbol in 0..<2 where frequencies.lazy.filter({ $0 > 0 }).count < 2 {
      if frequencies[symbol] == 0 { frequencies[symbol] = 1 }
    }
  }

  /// A dynamic block's header: the two codes' lengths, run-length coded (RFC 1951, §3.2.7),
  /// and the code-length code that sends them.
  private static func writeCodes(
    _ literals: HuffmanCode, _ distances: HuffmanCode, to writer: inout BitWriter
  ) {
    let literalCount = max(257, (literals.lengths.lastIndex { $0 > 0 } ?? 0) + 1)
    let distanceCount = max(1, (distances.lengths.lastIndex { $0 > 0 } ?? 0) + 1)
    let runs = lengthRuns(
      Array(literals.lengths[..<literalCount]) + distances.lengths[..<distanceCount])
    var frequencies = [Int](repeating: 0, count: 19)
    for run in runs { frequencies[run.symbol] += 1 }
    ensureTwoSymbols(&frequencies)
    let code = HuffmanCode(
      lengths: HuffmanCode.lengths(
        for: frequencies, limit: DeflateAlphabet.maximumCodeLengthCodeLength))
    let sentCount = max(
      4, (DeflateAlphabet.codeLengthOrder.lastIndex { code.lengths[$0] > 0 } ?? 0) + 1)
    writer.write(literalCount - 257, bits: 5)
    writer.write(distanceCount - 1, bits: 5)
    writer.write(sentCount - 4, bits: 4)
    for symbol in DeflateAlphabet.codeLengthOrder.prefix(sentCount) {
      writer.write(Int(code.lengths[symbol]), bits: 3)
    }
    for run in runs {
      writer.write(code, run.symbol)
      if run.extraBits > 0 { writer.write(run.extra, bits: run.extraBits) }
    }
  }

  /// A code-length symbol and the value of its extra bits.
  private typealias LengthRun = (symbol: Int, extra: Int, extraBits: Int)

  /// Code lengths as the code-length alphabet sends them: 0–15 themselves, 16 to repeat the
  /// previous length 3–6 times, 17 and 18 for 3–10 and 11–138 zeros.
  private static func lengthRuns(_ lengths: [UInt8]) -> [LengthRun] {
    var runs: [LengthRun] = []
    var index = 0
    while index < lengths.count {
      let value = lengths[index]
      var run = 1
      while index + run < lengths.count && lengths[index + run] == value { run += 1 }
      index += run
      if value == 0 {
        while run >= 11 {
          let taken = min(run, 138)
          runs.append((18, taken - 11, 7))
          run -= taken
        }
        if run >= 3 {
          runs.append((17, run - 3, 3))
          run = 0
        }
      } else {
        runs.append((Int(value), 0, 0))
        run -= 1
        while run >= 3 {
          let taken = min(run, 6)
          runs.append((16, taken - 3, 2))
          run -= taken
        }
      }
      for _ in 0..<run { runs.append((Int(value), 0, 0)) }
    }
    return runs
  }
}

/// The literals and matches of one block, packed: a literal is its byte; a match has the top
/// bit set, then its length − 3 and its distance − 1.
private struct MatchTokens {
  private var packed: [UInt32] = []

  enum Token {
    case literal(UInt8)
    case match(length: Int, distance: Int)
  }

  var count: Int { packed.count }

  mutating func reserve(_ count: Int) { packed.reserveCapacity(count) }
  mutating func appendLiteral(_ byte: UInt8) { packed.append(UInt32(byte)) }
  mutating func appendMatch(length: Int, distance: Int) {
    packed.append(1 << 31 | UInt32(length - 3) << 15 | UInt32(distance - 1))
  }
  mutating func removeAll() { packed.removeAll(keepingCapacity: true) }

  func forEach(_ body: (Token) -> Void) {
    for value in packed {
      if value & 1 << 31 == 0 {
        body(.literal(UInt8(value)))
      } else {
        body(.match(length: Int(value >> 15 & 0xFF) + 3, distance: Int(value & 0x7FFF) + 1))
      }
    }
  }
}

/// A repeat of earlier bytes.
private struct Match {
  var length: Int
  var distance: Int
}

/// Finds earlier occurrences of the bytes at a position: positions chained by the hash of their
/// first three bytes, within the window. Its tables are allocated once and freed by
/// ``deallocate()``: written at every position, they are the compressor's inner loop.
private struct MatchFinder {
  /// The bits of a hash: the multiplicative hash's top bits, and the head table's size.
  private static let hashBits = 15
  private let input: UnsafeBufferPointer<UInt8>
  /// The latest position of each hash, and, per position in the window, the one before it
  /// with the same hash; −1 for none.
  private let head: UnsafeMutableBufferPointer<Int32>
  private let previous: UnsafeMutableBufferPointer<Int32>

  init(_ input: UnsafeBufferPointer<UInt8>) {
    self.input = input
    head = .allocate(capacity: 1 << Self.hashBits)
    head.initialize(repeating: -1)
    previous = .allocate(capacity: DeflateAlphabet.window)
    previous.initialize(repeating: -1)
  }

  func deallocate() {
    head.deallocate()
    previous.deallocate()
  }

  private func hash(at position: Int) -> Int {
    let word =
      UInt32(input[position]) | UInt32(input[position + 1]) << 8 | UInt32(input[position + 2]) << 16
    return Int((word &* 2_654_435_761) >> (32 - Self.hashBits))
  }

  func insert(_ position: Int) {
    guard position + 2 < input.count else { return }
    let bucket = hash(at: position)
    previous[position & (DeflateAlphabet.window - 1)] = head[bucket]
    head[bucket] = Int32(position)
  }

  /// The longest match for the bytes at `position` longer than `beating` among the earlier
  /// positions indexed so far, visiting at most `chain` of them and stopping at one of `nice`
  /// bytes; `nil` for none.
  func longestMatch(at position: Int, beating: Int, chain: Int, nice: Int) -> Match? {
    let available = min(DeflateAlphabet.maximumMatch, input.count - position)
    guard available > beating, available >= DeflateAlphabet.minimumMatch else { return nil }
    var best = Match(length: beating, distance: 0)
    var candidate = Int(head[hash(at: position)])
    var visited = 0
    while candidate >= 0 && position - candidate <= DeflateAlphabet.window && visited < chain {
      // The byte that would make this candidate the longest decides cheaply.
      if input[candidate + best.length] == input[position + best.length] {
        let length = commonPrefix(candidate, position, upTo: available)
        if length > best.length {
          best = Match(length: length, distance: position - candidate)
          if length >= min(nice, available) { break }
        }
      }
      let next = Int(previous[candidate & (DeflateAlphabet.window - 1)])
      // A slot of the ring overwritten by a later position ends the chain.
      guard next < candidate else { break }
      candidate = next
      visited += 1
    }
    return best.distance == 0 ? nil : best
  }

  /// How many bytes from `first` and `second` agree, up to `limit`: eight at a time.
  private func commonPrefix(_ first: Int, _ second: Int, upTo limit: Int) -> Int {
    let raw = UnsafeRawBufferPointer(input)
    var length = 0
    while length + 8 <= limit {
      let difference =
        UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: first + length, as: UInt64.self))
        ^ UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: second + length, as: UInt64.self))
      if difference != 0 { return length + difference.trailingZeroBitCount / 8 }
      length += 8
    }
    while length < limit && input[first + length] == input[second + length] { length += 1 }
    return length
  }
}

/// Packs bits from the least significant end of each byte, as DEFLATE reads them.
private struct BitWriter {
  private var bytes: [UInt8] = []
  private var buffer: UInt64 = 0
  private var bufferedBits = 0

  mutating func write(_ value: Int, bits count: Int) {
    buffer |= UInt64(value) << UInt64(bufferedBits)
    bufferedBits += count
    while bufferedBits >= 8 {
      bytes.append(UInt8(truncatingIfNeeded: buffer))
      buffer >>= 8
      bufferedBits -= 8
    }
  }

  mutating func write(_ code: HuffmanCode, _ symbol: Int) {
    write(Int(code.reversedCodes[symbol]), bits: Int(code.lengths[symbol]))
  }

  /// The bytes written, the last one padded with zero bits.
  mutating func finish() -> [UInt8] {
    if bufferedBits > 0 { bytes.append(UInt8(truncatingIfNeeded: buffer)) }
    (buffer, bufferedBits) = (0, 0)
    return bytes
  }
}
