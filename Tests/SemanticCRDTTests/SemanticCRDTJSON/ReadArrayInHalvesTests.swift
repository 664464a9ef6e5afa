import CRDTTestSupport
import SharedSupport
import Testing

@testable import SemanticCRDT
@testable import SemanticCRDTJSON

/// Long arrays of map entries are read in two halves on two threads. Whatever the input —
/// valid, or damaged so that the bracket-and-string scan and the validating reader disagree —
/// the outcome must be exactly that of reading the array in one pass: the same elements in the
/// same order, or the same error at the same offset.
@Suite struct ReadArrayInHalvesTests {
  /// `[[key, [[replica, counter], …]], …]` with keys that hold brackets, commas, quotes and
  /// escapes, so a scan that mishandles strings would split in the wrong place.
  static func entries(_ count: Int, _ random: inout SplitMix64) -> [UInt8] {
    let tricky = ["plain", "com,ma", "br]ack[et", "quo\\\"te", "back\\\\", "{brace}", "ü"]
    var writer = JSONWriter(capacity: 64 * count)
    writer.beginArray()
    for index in 0..<count {
      writer.beginArray()
      writer.string("\(random.pick(tricky)) \(index)")
      writer.beginArray()
      for dot in 0..<random.int(in: 1...2) {
        writer.beginArray()
        writer.string("r\(dot)")
        writer.unsigned(UInt64(random.int(in: 1...1_000)))
        writer.endArray()
      }
      writer.endArray()
      writer.endArray()
    }
    writer.endArray()
    return writer.bytes
  }

  typealias Entry = (key: String, dots: [[String]])

  static func readEntry(_ reader: inout JSONReader) throws(JSONError) -> Entry {
    try reader.readTuple { reader throws(JSONError) in
      let key = try reader.readString()
      try reader.nextElement()
      var dots: [[String]] = []
      try reader.readArray { reader throws(JSONError) in
        dots.append(
          try reader.readTuple { reader throws(JSONError) in
            let replica = try reader.readString()
            try reader.nextElement()
            return [replica, String(try reader.read(UInt64.self))]
          })
      }
      return (key, dots)
    }
  }

  /// The outcome of one pass, and of two halves (the halves' parts concatenated), with where
  /// each reader stopped. The array is the first element of `[array, "tail"]`, a tail of
  /// `tail` bytes, so that the input goes on after it as a file's does after a map.
  /// `waiting`: the first thread waits for the second to find the middle, so that whether a
  /// long array is split does not depend on which thread runs first.
  static func outcomes(
    _ array: [UInt8], cores: Cores = .two, tail: Int = 0, waiting: Bool = true,
    minimumBytes: Int = 0
  ) -> (oneByOne: Result<[String], JSONError>, halves: Result<[String], JSONError>, parts: Int) {
    func flat(_ entries: [Entry]) -> [String] { entries.map { "\($0.key)=\($0.dots)" } }
    let bytes = Array("[".utf8) + array + Array(",\"\(String(repeating: "t", count: tail))\"]".utf8)
    func withTail(
      _ buffer: UnsafeBufferPointer<UInt8>, cores: Cores,
      _ body: (inout JSONReader) throws(JSONError) -> [Entry]
    ) throws(JSONError) -> [String] {
      try JSONReader.read(buffer, cores: cores) { reader throws(JSONError) in
        try reader.readTuple { reader throws(JSONError) in
          let entries = try body(&reader)
          let end = reader.offset
          try reader.nextElement()
          let tail = try reader.readString()
          return flat(entries) + ["end \(end)", "tail \(tail.count)"]
        }
      }
    }
    var parts = 0
    let oneByOne = Result { () throws(JSONError) -> [String] in
      try bytes.withUnsafeBufferPointer { buffer throws(JSONError) in
        try withTail(buffer, cores: .one) { reader throws(JSONError) in
          var entries: [Entry] = []
          try reader.readArray { reader throws(JSONError) in
            entries.append(try readEntry(&reader))
          }
          return entries
        }
      }
    }
    let halves = Result { () throws(JSONError) -> [String] in
      try bytes.withUnsafeBufferPointer { buffer throws(JSONError) in
        try withTail(buffer, cores: cores) { reader throws(JSONError) in
          reader.waitsForTheMiddle = waiting
          let read = try reader.readArrayInHalves(minimumBytes: minimumBytes, empty: { [Entry]() })
          {
            reader, part throws(JSONError) in part.append(try readEntry(&reader))
          }
          parts = read.count
          return read.flatMap { $0 }
        }
      }
    }
    return (oneByOne, halves, parts)
  }

  static func same(_ lhs: Result<[String], JSONError>, _ rhs: Result<[String], JSONError>) -> Bool {
    switch (lhs, rhs) {
    case (.success(let a), .success(let b)): a == b
    case (.failure(let a), .failure(let b)): a == b
    default: false
    }
  }

  /// Split wherever the input goes on after the array: with the array at the end, or followed
  /// by ten times its length. (Splitting at the middle of the input left, rather than of the
  /// array, read every map but the file's last on one core.)
  @Test(arguments: [0, 10]) func validArraysReadAsInOnePass(tailTimesTheArray: Int) {
    var random = SplitMix64(seed: 2)
    for count in [0, 1, 2, 3, 10, 500, 3_000] {
      let bytes = Self.entries(count, &random)
      let tail = bytes.count * tailTimesTheArray
      for waiting in [true, false] {
        let (oneByOne, halves, parts) = Self.outcomes(bytes, tail: tail, waiting: waiting)
        #expect(Self.same(oneByOne, halves), "count \(count)")
        if waiting && count >= 10 {
          #expect(parts == 2, "a long array must be split, count \(count)")
        }
      }
    }
  }

  /// An array shorter than the minimum is read whole, however much input follows it.
  @Test func aShortArrayIsReadWhole() {
    var random = SplitMix64(seed: 4)
    let array = Self.entries(500, &random)
    let (oneByOne, halves, parts) = Self.outcomes(
      array, tail: 100_000, minimumBytes: array.count + 1)
    #expect(Self.same(oneByOne, halves))
    #expect(parts == 1)
  }

  /// Without a second core from the caller, the reader never splits: one part, one thread.
  @Test func oneCoreReadsInOnePart() {
    var random = SplitMix64(seed: 3)
    let bytes = Self.entries(3_000, &random)
    let (oneByOne, halves, parts) = Self.outcomes(bytes, cores: .one)
    #expect(Self.same(oneByOne, halves))
    #expect(parts == 1)
  }

  /// Bit flips, truncations, inserted and deleted bytes anywhere, including in the second
  /// half and at the split: the two readings agree on every outcome.
  @Test func damagedArraysFailAsInOnePass() {
    let iterations = PropertyEnvironment.iterations(default: 1_000)
    var random = SplitMix64(seed: PropertyEnvironment.replaySeed ?? 22)
    let clean = Self.entries(400, &random)
    let specials = Array("[]{},\"\\ x1".utf8)
    var failures = 0
    for iteration in 0..<iterations {
      var bytes = clean
      // Damage near the middle half the time: that is where the halves meet.
      let position =
        iteration % 2 == 0
        ? random.int(in: bytes.count * 2 / 5..<bytes.count * 3 / 5)
        : random.int(in: 0..<bytes.count)
      switch random.int(in: 0..<4) {
      case 0: bytes[position] = random.pick(specials)
      case 1: bytes.removeSubrange(position...)
      case 2: bytes.insert(random.pick(specials), at: position)
      default: bytes.remove(at: position)
      }
      // Half the time the input goes on after the array, and half of those the first thread
      // does not wait for the middle.
      let (oneByOne, halves, _) = Self.outcomes(
        bytes, tail: iteration % 4 < 2 ? 0 : clean.count, waiting: iteration % 8 < 4)
      #expect(Self.same(oneByOne, halves), "iteration \(iteration)")
      if case .failure = oneByOne { failures += 1 }
    }
    // The damage must reach the reader, not only leave valid arrays behind.
    #expect(failures > iterations / 4)
  }
}
