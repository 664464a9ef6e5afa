/// A scan over JSON bytes that follows only brackets and strings: how deep it is, and whether it
/// is inside a string. It finds where values end (``JSONReader/locateValue()``) and where the
/// elements of a long array lie (for reading it in halves), checking only what finding them
/// needs: brackets balance (not their kinds), strings end, escapes are stepped over. UTF-8 and
/// the grammar are the validating reader's to check, which reads the same bytes afterwards.
///
/// It steps eight bytes at a time where it can. For a word with no backslash, it flags the
/// word's quotes, brackets and braces in parallel, marks which bytes lie inside a string from
/// the quotes (a prefix XOR: a byte is inside when an odd number of quotes come at or before
/// it), and so finds the brackets outside strings without a branch per byte. It looks at those
/// one by one only where they could close the value being scanned. A word with a backslash, an
/// escape carried over from the word before, and the last bytes are stepped a byte at a time,
/// which gives the same answer: the word path is a faster way to the byte path's result.
///
/// - Complexity: O(*n*) in the bytes scanned, with no recursion at any depth.
struct StructuralScan {
  /// The next byte to scan.
  private(set) var position: Int
  /// How many brackets are open at `position`, counted from where the scan began.
  private(set) var depth: Int
  /// Whether `position` is inside a string.
  private(set) var inString = false
  /// Whether the byte at `position` is escaped: it follows a backslash inside a string.
  private(set) var escaped = false

  /// A scan from `position`, outside any string, with `depth` brackets open.
  init(at position: Int, depth: Int) {
    self.position = position
    self.depth = depth
  }

  /// Scans to just past the bracket that closes the last one open (`depth` reaching 0) and
  /// returns where that is; `nil` when `bytes` end first (`position` is then their end) or
  /// `checkpoint` stops the scan (`position` is then where it stopped, and the scan may go on
  /// from there).
  ///
  /// - Parameter checkpoint: Called with the scan about every `checkpointBytes` bytes, for a
  ///   caller that scans part of the way again later from the nearest one; returns whether to
  ///   go on.
  mutating func skipToClose(
    in bytes: UnsafeBufferPointer<UInt8>, checkpointBytes: Int = .max,
    checkpoint: (StructuralScan) -> Bool = { _ in true }
  ) -> Int? {
    // Scanned in a local copy, which the compiler keeps in registers: stepping `self` through
    // its address stored the state after every word.
    var scan = self
    let end = scan.scanToClose(in: bytes, checkpointBytes: checkpointBytes, checkpoint: checkpoint)
    self = scan
    return end
  }

  @inline(__always)
  private mutating func scanToClose(
    in bytes: UnsafeBufferPointer<UInt8>, checkpointBytes: Int,
    checkpoint: (StructuralScan) -> Bool
  ) -> Int? {
    guard depth > 0 else { return position }
    var nextCheckpoint = position &+ checkpointBytes
    while position < bytes.count {
      if position >= nextCheckpoint {
        guard checkpoint(self) else { return nil }
        nextCheckpoint = position &+ checkpointBytes
      }
      if !escaped, position + 8 <= bytes.count {
        switch stepWord(in: bytes) {
        case .closed(let end): return end
        case .stepped: continue
        case .holdsBackslash: break
        }
      }
      // A word with a backslash, an escape carried into this one, or the last bytes.
      let stop = min(position + 8, bytes.count)
      while position < stop {
        if stepByte(bytes[position]) { return position }
      }
    }
    return nil
  }

  /// From here, outside any string, the first element of the array this scan is directly
  /// inside (at depth 1) that starts at or after `boundary`: its first byte, past the comma
  /// and any whitespace before it. `nil` when the array closes first, or the bytes end.
  mutating func elementStart(atOrAfter boundary: Int, in bytes: UnsafeBufferPointer<UInt8>)
    -> Int?
  {
    while position < bytes.count {
      let byte = bytes[position]
      let separates = depth == 1 && !inString && byte == UInt8(ascii: ",")
      if stepByte(byte) { return nil }
      guard separates else { continue }
      while position < bytes.count, Self.isWhitespace(bytes[position]) { position += 1 }
      if position >= boundary && position < bytes.count { return position }
    }
    return nil
  }

  /// Steps over one byte; returns whether it closed the last open bracket.
  @inline(__always)
  private mutating func stepByte(_ byte: UInt8) -> Bool {
    position += 1
    if inString {
      if escaped {
        escaped = false
      } else if byte == UInt8(ascii: "\\") {
        escaped = true
      } else if byte == UInt8(ascii: "\"") {
        inString = false
      }
      return false
    }
    switch byte {
    case UInt8(ascii: "\""): inString = true
    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
    case UInt8(ascii: "}"), UInt8(ascii: "]"):
      depth -= 1
      return depth == 0
    default: break
    }
    return false
  }

  /// What ``stepWord(in:)`` did.
  private enum WordStep {
    /// One of the bytes closed the last open bracket; the scan stands just past it.
    case closed(Int)
    /// It stepped over all eight bytes.
    case stepped
    /// It stepped over none: one of them is a backslash.
    case holdsBackslash
  }

  /// Steps over the eight bytes at `position` when none is a backslash, stopping past the one
  /// that closes the last open bracket.
  @inline(__always)
  private mutating func stepWord(in bytes: UnsafeBufferPointer<UInt8>) -> WordStep {
    let word = UInt64(
      littleEndian: UnsafeRawPointer(bytes.baseAddress! + position).loadUnaligned(
        as: UInt64.self))
    guard Self.flags(word, equalTo: UInt8(ascii: "\\")) == 0 else { return .holdsBackslash }
    // Each byte's high bit: set when an odd number of quotes come at or before it. With the
    // string state carried in, that is "inside a string" for every byte but quotes, which
    // are not brackets.
    var inside = Self.flags(word, equalTo: UInt8(ascii: "\""))
    inside ^= inside << 8
    inside ^= inside << 16
    inside ^= inside << 32
    if inString { inside ^= Self.highBits }
    // `[` and `]` are `{` and `}` with bit 5 clear, and no other bytes are.
    let folded = word | (JSONReader.ones &* 0x20)
    let opens = Self.flags(folded, equalTo: UInt8(ascii: "{")) & ~inside
    let closes = Self.flags(folded, equalTo: UInt8(ascii: "}")) & ~inside
    inString = inside >> 63 != 0
    let closing = Self.count(closes)
    if closing >= depth {
      // These closes could close the last bracket open: take them in order.
      var brackets = opens | closes
      while brackets != 0 {
        let bit = brackets & (0 &- brackets)
        if opens & bit != 0 {
          depth += 1
        } else {
          depth -= 1
          if depth == 0 {
            // Past the close, outside a string (whatever quotes follow it in the word).
            inString = false
            position += (bit.trailingZeroBitCount >> 3) + 1
            return .closed(position)
          }
        }
        brackets &= brackets - 1
      }
    } else {
      depth += Self.count(opens) - closing
    }
    position += 8
    return .stepped
  }

  /// JSON's whitespace: space, tab, line feed, carriage return.
  static func isWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
  }

  static let highBits: UInt64 = 0x8080_8080_8080_8080

  /// How many bytes `flags` flags by their high bits: their low bits summed into the top byte
  /// by one multiplication (at most eight, so no sum carries). Cheaper than `nonzeroBitCount`
  /// where the build's target has no population count instruction (x86-64's baseline).
  @inline(__always)
  static func count(_ flags: UInt64) -> Int {
    Int(truncatingIfNeeded: ((flags >> 7) &* JSONReader.ones) >> 56)
  }

  /// The bytes of `word` equal to `byte`, each by its high bit, exactly: no carry crosses a
  /// byte (the seven low bits are added with room to spare, the high bit is ORed in).
  @inline(__always)
  static func flags(_ word: UInt64, equalTo byte: UInt8) -> UInt64 {
    let difference = word ^ (JSONReader.ones &* UInt64(byte))
    let lowBits = ~highBits
    return ~(((difference & lowBits) &+ lowBits) | difference) & highBits
  }
}
