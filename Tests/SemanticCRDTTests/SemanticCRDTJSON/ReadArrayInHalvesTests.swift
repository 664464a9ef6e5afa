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
  /// each reader stopped.
  static func outcomes(_ bytes: [UInt8], cores: Cores = .two) -> (
    oneByOne: Result<[String], JSONError>, halves: Result<[String], JSONError>, parts: Int
  ) {
    func flat(_ entries: [Entry]) -> [String] { entries.map { "\($0.key)=\($0.dots)" } }
    var parts = 0
    let oneByOne = Result { () throws(JSONError) -> [String] in
      try bytes.withUnsafeBufferPointer { buffer throws(JSONError) in
        try JSONReader.read(buffer) { reader throws(JSONError) in
          var entries: [Entry] = []
          try reader.readArray { reader throws(JSONError) in
            entries.append(try readEntry(&reader))
          }
          return flat(entries) + ["end \(reader.offset)"]
        }
      }
    }
    let halves = Result { () throws(JSONError) -> [String] in
      try bytes.withUnsafeBufferPointer { buffer throws(JSONError) in
        try JSONReader.read(buffer, cores: cores) { reader throws(JSONError) in
          let read = try reader.readArrayInHalves(minimumBytes: 0, empty: { [Entry]() }) {
            reader, part throws(JSONError) in part.append(try readEntry(&reader))
          }
          parts = read.count
          return flat(read.flatMap { $0 }) + ["end \(reader.offset)"]
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

  @Test func validArraysReadAsInOnePass() {
    var random = SplitMix64(seed: 2)
    for count in [0, 1, 2, 3, 10, 500, 3_000] {
      let bytes = Self.entries(count, &random)
      let (oneByOne, halves, parts) = Self.outcomes(bytes)
      #expect(Self.same(oneByOne, halves), "count \(count)")
      if count >= 10 { #expect(parts == 2, "a long array must be split, count \(count)") }
    }
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
      let (oneByOne, halves, _) = Self.outcomes(bytes)
      #expect(Self.same(oneByOne, halves), "iteration \(iteration)")
      if case .failure = oneByOne { failures += 1 }
    }
    // The damage must reach the reader, not only leave valid arrays behind.
    #expect(failures > iterations / 4)
  }
}
