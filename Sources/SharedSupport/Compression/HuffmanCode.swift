/// A canonical prefix code (RFC 1951, §3.2.2), given by the length of each symbol's code: the
/// encoder's side (lengths from frequencies, codes from lengths). The decoder's side is
/// ``HuffmanDecoder``.
struct HuffmanCode {
  /// The length of each symbol's code in bits; 0 for a symbol that is never sent.
  let lengths: [UInt8]
  /// Each symbol's code, bit-reversed, because DEFLATE packs bits from the least significant
  /// end while codes are defined from their most significant bit.
  let reversedCodes: [UInt16]

  init(lengths: [UInt8]) {
    self.lengths = lengths
    var countOfLength = [Int](repeating: 0, count: DeflateAlphabet.maximumCodeLength + 1)
    for length in lengths where length > 0 { countOfLength[Int(length)] += 1 }
    var nextCode = [Int](repeating: 0, count: DeflateAlphabet.maximumCodeLength + 2)
    var code = 0
    for length in 1...DeflateAlphabet.maximumCodeLength {
      code = (code + countOfLength[length - 1]) << 1
      nextCode[length] = code
    }
    var reversed = [UInt16](repeating: 0, count: lengths.count)
    for (symbol, length) in lengths.enumerated() where length > 0 {
      let code = nextCode[Int(length)]
      nextCode[Int(length)] += 1
      var value: UInt16 = 0
      for bit in 0..<Int(length) where code & (1 << bit) != 0 {
        value |= 1 << (Int(length) - 1 - bit)
      }
      reversed[symbol] = value
    }
    reversedCodes = reversed
  }

  /// The code that sends symbols with `frequencies` in the fewest bits with no code longer than
  /// `limit`: Huffman's construction, then, if a code came out longer, the lengths moved up to
  /// the limit keeping the code complete (the adjustment of JPEG, ITU T.81 Annex K.3), longer
  /// codes going to rarer symbols.
  ///
  /// Every symbol with a nonzero frequency gets a code; at least two symbols must have one.
  static func lengths(for frequencies: [Int], limit: Int) -> [UInt8] {
    let used = frequencies.indices.filter { frequencies[$0] > 0 }
      .sorted { (frequencies[$0], $0) < (frequencies[$1], $1) }
    precondition(used.count >= 2 && used.count <= 1 << limit, "\(used.count) symbols")
    // Huffman's construction with two queues: the leaves in order of frequency, and the
    // internal nodes, made in order of weight. Nodes 0..<n are the leaves.
    let leafCount = used.count
    var weight = used.map { frequencies[$0] }
    var parent = [Int](repeating: -1, count: 2 * leafCount - 1)
    var (nextLeaf, nextInternal) = (0, leafCount)
    func takeLightest() -> Int {
      if nextLeaf < leafCount
        && (nextInternal >= weight.count || weight[nextLeaf] <= weight[nextInternal])
      {
        nextLeaf += 1
        return nextLeaf - 1
      }
      nextInternal += 1
      return nextInternal - 1
    }
    while weight.count < 2 * leafCount - 1 {
      let (first, second) = (takeLightest(), takeLightest())
      parent[first] = weight.count
      parent[second] = weight.count
      weight.append(weight[first] + weight[second])
    }
    // Depths from the root down: a node's parent is made after it.
    var depth = [Int](repeating: 0, count: weight.count)
    for node in stride(from: weight.count - 2, through: 0, by: -1) {
      depth[node] = depth[parent[node]] + 1
    }
    var countOfLength = [Int](repeating: 0, count: max(limit, depth.max()!) + 1)
    for leaf in 0..<leafCount { countOfLength[depth[leaf]] += 1 }
    // Two codes of a too-long length become one a bit shorter and one a bit longer than a
    // shorter code, which moves with it: the code stays complete (Kraft's sum stays 1).
    for length in stride(from: countOfLength.count - 1, to: limit, by: -1) {
      while countOfLength[length] > 0 {
        var shorter = length - 2
        while countOfLength[shorter] == 0 { shorter -= 1 }
        countOfLength[length] -= 2
        countOfLength[length - 1] += 1
        countOfLength[shorter + 1] += 2
        countOfLength[shorter] -= 1
      }
    }
    // The shortest codes to the most frequent symbols.
    var lengths = [UInt8](repeating: 0, count: frequencies.count)
    var symbolIndex = leafCount - 1
    for length in 1...limit {
      for _ in 0..<countOfLength[length] {
        lengths[used[symbolIndex]] = UInt8(length)
        symbolIndex -= 1
      }
    }
    return lengths
  }
}
