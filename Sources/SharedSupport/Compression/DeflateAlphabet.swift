/// The fixed tables of DEFLATE (RFC 1951, §3.2.5): how match lengths and distances map to
/// symbols and extra bits, and the order the code-length code's lengths are sent in. One place
/// for both directions, so the encoder and the decoder cannot disagree.
enum DeflateAlphabet {
  /// The end-of-block symbol of the literal/length alphabet.
  static let endOfBlock = 256
  /// Literal/length symbols a block may use (257…285 are lengths; 286 and 287 are never used).
  static let literalLengthSymbols = 286
  /// Distance symbols a block may use (30 and 31 are never used).
  static let distanceSymbols = 30
  /// The shortest and longest match.
  static let minimumMatch = 3
  static let maximumMatch = 258
  /// How far back a match may reach.
  static let window = 32_768
  /// The longest code of the literal/length and distance alphabets, and of the code-length
  /// code.
  static let maximumCodeLength = 15
  static let maximumCodeLengthCodeLength = 7

  /// The shortest length of each length symbol 257…285, and its extra bits.
  static let lengthBase: [Int] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115,
    131, 163, 195, 227, 258,
  ]
  static let lengthExtraBits: [Int] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
  ]
  /// The shortest distance of each distance symbol, and its extra bits.
  static let distanceBase: [Int] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
  ]
  static let distanceExtraBits: [Int] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
  ]
  /// The order in which a dynamic block sends the code-length code's lengths.
  static let codeLengthOrder: [Int] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
  ]

  /// The length symbol's index (symbol − 257) of each match length 3…258, at `length − 3`.
  static let lengthIndex: [UInt8] = {
    var table = [UInt8](repeating: 0, count: maximumMatch - minimumMatch + 1)
    for index in lengthBase.indices {
      let end = index + 1 < lengthBase.count ? lengthBase[index + 1] : maximumMatch + 1
      // 258 has a symbol of its own (285), not the last range of 284.
      for length in lengthBase[index]..<min(end, maximumMatch + 1) {
        table[length - minimumMatch] = UInt8(index)
      }
    }
    return table
  }()

  /// The distance symbol of each distance 1…32,768, at `distance − 1`.
  static let distanceIndex: [UInt8] = {
    var table = [UInt8](repeating: 0, count: window)
    for index in distanceBase.indices {
      let end = index + 1 < distanceBase.count ? distanceBase[index + 1] : window + 1
      for distance in distanceBase[index]..<end { table[distance - 1] = UInt8(index) }
    }
    return table
  }()
}
