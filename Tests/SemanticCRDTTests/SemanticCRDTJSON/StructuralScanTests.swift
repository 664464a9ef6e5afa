import CRDTTestSupport
import SharedSupport
import Testing

@testable import SemanticCRDTJSON

/// `StructuralScan` steps eight bytes at a time where a word holds no backslash. On any bytes at
/// all (valid JSON, damaged JSON, random bytes), it must stop where a scan of one byte at a
/// time stops, in the same state, and its checkpoints must be states that scan passes through;
/// a scan stopped at a checkpoint must go on from there to the same end.
@Suite struct StructuralScanTests {
  /// The byte-at-a-time scan the word path must agree with, written from the rules alone:
  /// brackets of either kind balance, strings end at an unescaped quote, a backslash in a
  /// string escapes the byte after it.
  struct ByteScan: Equatable {
    var position: Int
    var depth: Int
    var inString = false
    var escaped = false

    /// Steps one byte; returns whether it closed the last open bracket.
    mutating func step(_ byte: UInt8) -> Bool {
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
      case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
      case UInt8(ascii: "]"), UInt8(ascii: "}"):
        depth -= 1
        return depth == 0
      default: break
      }
      return false
    }
  }

  static func state(_ scan: StructuralScan) -> ByteScan {
    ByteScan(
      position: scan.position, depth: scan.depth, inString: scan.inString, escaped: scan.escaped)
  }

  /// Bytes mostly of what the scan looks at, runs of letters of every length (so that each
  /// byte it stops at falls at every place of a word), multi-byte text, and every byte value.
  static func bytes(_ random: inout SplitMix64) -> [UInt8] {
    let pieces = [
      "[", "]", "{", "}", "\"", "\\", "\\\\", "\\\"", ",", " ", "\n", "é", "😀", "[[", "]]",
      "\"k\":",
    ]
    var bytes: [UInt8] = []
    for _ in 0..<random.int(in: 0...60) {
      switch random.int(in: 0...5) {
      case 0: bytes += Array(String(repeating: "x", count: random.int(in: 0...17)).utf8)
      case 1: bytes.append(UInt8(truncatingIfNeeded: random.next()))
      default: bytes += Array(random.pick(pieces).utf8)
      }
    }
    return bytes
  }

  @Test func stopsWhereAByteAtATimeScanStops() {
    var random = SplitMix64(seed: PropertyEnvironment.replaySeed ?? 31)
    var (closed, stopped) = (0, 0)
    for _ in 0..<PropertyEnvironment.iterations(default: 20_000) {
      let bytes = Self.bytes(&random)
      let depth = random.int(in: 1...3)
      var expected = ByteScan(position: 0, depth: depth)
      var expectedEnd: Int?
      for byte in bytes where expectedEnd == nil {
        if expected.step(byte) { expectedEnd = expected.position }
      }
      var checkpoints: [StructuralScan] = []
      // Half the scans are stopped at a checkpoint, and then go on from where they stopped.
      let stopAt = random.int(in: 0..<2) == 0 ? random.int(in: 1...4) : nil
      var scan = StructuralScan(at: 0, depth: depth)
      let checkpointBytes = random.int(in: 1...20)
      var end = bytes.withUnsafeBufferPointer { buffer in
        scan.skipToClose(in: buffer, checkpointBytes: checkpointBytes) {
          checkpoints.append($0)
          return checkpoints.count != stopAt
        }
      }
      if checkpoints.count == stopAt {
        stopped += 1
        #expect(end == nil, "\(bytes)")
        #expect(scan.position == checkpoints.last!.position, "\(bytes)")
        #expect(Self.state(scan) == Self.state(checkpoints.last!), "\(bytes)")
        end = bytes.withUnsafeBufferPointer { scan.skipToClose(in: $0) }
      }
      #expect(end == expectedEnd, "\(bytes)")
      if expectedEnd != nil {
        closed += 1
        // Past the close, the scan stands as the byte scan does, outside any string.
        #expect(Self.state(scan) == expected, "\(bytes)")
      } else {
        #expect(scan.position == bytes.count, "\(bytes)")
        #expect(Self.state(scan) == expected, "\(bytes)")
      }
      for checkpoint in checkpoints {
        var replay = ByteScan(position: 0, depth: depth)
        for byte in bytes[..<checkpoint.position] { _ = replay.step(byte) }
        #expect(Self.state(checkpoint) == replay, "\(bytes) at \(checkpoint.position)")
      }
    }
    // Both outcomes, and stops, come up often enough to mean something.
    #expect(closed > 1_000)
    #expect(stopped > 1_000)
  }

  /// From any state the byte scan passes through, the element start found is the first byte,
  /// past a comma at depth 1 outside strings and the whitespace after it, at or after the
  /// boundary.
  @Test func findsTheFirstElementStartPastABoundary() {
    var random = SplitMix64(seed: PropertyEnvironment.replaySeed ?? 32)
    var found = 0
    for _ in 0..<PropertyEnvironment.iterations(default: 20_000) {
      let bytes = Self.bytes(&random)
      let boundary = random.int(in: 0...bytes.count + 1)
      var expected: Int?
      var reference = ByteScan(position: 0, depth: 1)
      var index = 0
      while index < bytes.count {
        let separates =
          reference.depth == 1 && !reference.inString && bytes[index] == UInt8(ascii: ",")
        if reference.step(bytes[index]) { break }
        index += 1
        guard separates else { continue }
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        reference.position = index
        if index >= boundary && index < bytes.count {
          expected = index
          break
        }
      }
      var scan = StructuralScan(at: 0, depth: 1)
      let start = bytes.withUnsafeBufferPointer { scan.elementStart(atOrAfter: boundary, in: $0) }
      #expect(start == expected, "\(bytes) from \(boundary)")
      if expected != nil { found += 1 }
    }
    #expect(found > 400)
  }
}
