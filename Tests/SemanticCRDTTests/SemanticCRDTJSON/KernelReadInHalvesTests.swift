import CRDTTestSupport
import SharedSupport
import Testing

@testable import SemanticCRDT
@testable import SemanticCRDTJSON

/// A long map or set is read in two halves, and the thread that reads the first half checks
/// its entries into the kernel's table while the other thread still reads (ADR 0048). The
/// outcome must be that of reading and checking on one core: the same set, or the same error —
/// a key listed twice, within a half or one in each; a dot twice; a key without dots; a dot
/// the context has not seen; damaged bytes anywhere, which must win over a problem of the
/// kernel's found earlier in the input, as they do on one core.
@Suite struct KernelReadInHalvesTests {
  /// Enough entries that they pass the size above which two cores read them in halves.
  static let count = 40_000

  /// One way an entry is written wrong.
  enum Damage: CaseIterable {
    /// The key of an earlier entry, written again.
    case keyOfEntry
    /// The dot of an earlier entry, live twice.
    case dotOfEntry
    /// No dots.
    case noDots
    /// One dot listed twice.
    case dotListedTwice
    /// A dot past the context.
    case unseenDot
  }

  /// `{"context": …, "entries": […]}` of an `ORSet<String>` with `count` entries, each key with
  /// one dot of `a` (its number plus one), with `damages` at their entries: each names an
  /// entry and, for `keyOfEntry` and `dotOfEntry`, the earlier entry it repeats.
  ///
  /// With `retiredTail`, a delta: `"retired"` follows the entries, longer than they are, so
  /// that the array closes before the middle of what is left of the input and is split at its
  /// own middle; without it the second thread stops its scan at the input's middle and splits
  /// there (`JSONReader.scanToMiddleElement(ofArrayFrom:minimumBytes:)`).
  static func setBytes(damages: [Int: (Damage, earlier: Int)], retiredTail: Bool = false)
    -> [UInt8]
  {
    func key(_ index: Int) -> String { "key \(100_000 + index)" }
    var writer = JSONWriter(capacity: 40 * count)
    writer.beginObject()
    writer.key("context")
    writer.beginObject()
    writer.key("a")
    writer.beginArray()
    writer.beginArray()
    writer.unsigned(1)
    writer.unsigned(UInt64(count))
    writer.endArray()
    writer.endArray()
    writer.endObject()
    writer.key("entries")
    writer.beginArray()
    for index in 0..<count {
      let damage = damages[index]
      writer.beginArray()
      writer.string(damage?.0 == .keyOfEntry ? key(damage!.earlier) : key(index))
      writer.beginArray()
      var dots: [UInt64] =
        switch damage?.0 {
        case .dotOfEntry: [UInt64(damage!.earlier + 1)]
        case .noDots: []
        case .dotListedTwice: [UInt64(index + 1), UInt64(index + 1)]
        case .unseenDot: [UInt64(count + 1 + index)]
        default: [UInt64(index + 1)]
        }
      dots.sort()
      for counter in dots {
        writer.beginArray()
        writer.string("a")
        writer.unsigned(counter)
        writer.endArray()
      }
      writer.endArray()
      writer.endArray()
    }
    writer.endArray()
    if retiredTail {
      writer.key("retired")
      writer.beginArray()
      for index in 0..<2 * count { writer.string("retired \(100_000 + index)") }
      writer.endArray()
    }
    writer.endObject()
    return writer.bytes
  }

  /// The set read on one core, and read in halves split at the middle.
  static func outcomes(_ bytes: [UInt8]) -> (
    one: Result<ORSet<String>, JSONError>, halves: Result<ORSet<String>, JSONError>
  ) {
    func read(_ cores: Cores) -> Result<ORSet<String>, JSONError> {
      Result { () throws(JSONError) in
        try bytes.withUnsafeBufferPointer { buffer throws(JSONError) in
          try JSONReader.read(buffer, cores: cores) { reader throws(JSONError) in
            reader.waitsForTheMiddle = true
            return try ORSet<String>(from: &reader)
          }
        }
      }
    }
    return (read(.one), read(.two))
  }

  static func same(
    _ lhs: Result<ORSet<String>, JSONError>, _ rhs: Result<ORSet<String>, JSONError>
  ) -> Bool {
    switch (lhs, rhs) {
    case (.success(let a), .success(let b)): a == b
    case (.failure(let a), .failure(let b)): a == b
    default: false
    }
  }

  /// An outcome in a line: the error, or how many elements were read.
  static func summary(_ outcome: Result<ORSet<String>, JSONError>) -> String {
    switch outcome {
    case .success(let set): "\(set.count) elements"
    case .failure(let error): "\(error)"
    }
  }

  @Test(arguments: [false, true]) func aSoundSetReadsAsOnOneCore(retiredTail: Bool) throws {
    let bytes = Self.setBytes(damages: [:], retiredTail: retiredTail)
    #expect(bytes.count > 1 << 20, "the entries must be long enough to be read in halves")
    let (one, halves) = Self.outcomes(bytes)
    let agree = Self.same(one, halves)
    #expect(agree, "\(Self.summary(one)) on one core, \(Self.summary(halves)) in halves")
    #expect(try halves.get().count == Self.count)
  }

  /// The second thread starts at an element near the entries' middle, whether it stopped its
  /// scan at the middle of what is left of the input or found the array's end first. The reads
  /// above agree with one core's even where no split is made; this shows that one is.
  @Test(arguments: [false, true]) func theSecondThreadStartsNearTheMiddle(retiredTail: Bool) {
    let bytes = Self.setBytes(damages: [:], retiredTail: retiredTail)
    func offset(of text: String) -> Int {
      let needle = Array(text.utf8)
      return bytes.indices.first { (index: Int) in bytes[index...].starts(with: needle) }!
    }
    // `[` after `"entries":`, and the `]` that closes it: before `,"retired"` or the last `}`.
    let arrayStart = offset(of: #""entries":["#) + 10
    let arrayEnd = retiredTail ? offset(of: #","retired""#) - 1 : bytes.count - 2
    #expect(bytes[arrayStart] == UInt8(ascii: "[") && bytes[arrayEnd] == UInt8(ascii: "]"))
    let start = bytes.withUnsafeBufferPointer { buffer in
      var reader = JSONReader(bytes: buffer, at: arrayStart + 1, depth: 1, cores: .one)
      return reader.scanToMiddleElement(
        ofArrayFrom: arrayStart, minimumBytes: JSONReader.entriesReadInHalvesAbove)
    }
    guard let start else {
      Issue.record("no split")
      return
    }
    let share = Double(start - arrayStart) / Double(arrayEnd + 1 - arrayStart)
    #expect((0.45...0.55).contains(share), "the second part starts \(share) of the way")
    // An entry, `["key …", …]`, just past the comma that ends the one before.
    let entry = Array(#",["key "#.utf8)
    #expect(Array(bytes[start - 1..<start - 1 + entry.count]) == entry)
  }

  /// Which live-dot problem a kernel names must not depend on how much room its table was
  /// given: a read in halves reserves room from the first half's count, a read on one core
  /// from all of them, and a table's order changes with its room. Two dots past the context,
  /// built into tables of four sizes, must give one error. It was the first problem in the
  /// table's order, which differed (found when a split of 9 to 1 made the rooms differ).
  @Test func aKernelsProblemIsTheSameWhateverRoomItsTableHas() {
    var random = SplitMix64(seed: PropertyEnvironment.replaySeed ?? 51)
    for _ in 0..<PropertyEnvironment.iterations(default: 20) {
      let count = random.int(in: 100...3_000)
      let unseen = Set((0..<random.int(in: 2...4)).map { _ in random.int(in: 0..<count) })
      let context = CausalContext(replicas: ["a": CounterSet([1...UInt64(count)])])
      let problems = [1, 2, 5, 9].map { room in
        var entries: [DotKernel<String, Bool>.DecodedEntry?] = (0..<count).map { index in
          let counter = UInt64(unseen.contains(index) ? 2 * count + index : index + 1)
          return (key: "key \(index)", siblings: DotSiblings(dot: Dot("a", counter), value: true))
        }
        var builder = DotKernel<String, Bool>.Builder(reservingCapacity: room * count)
        builder.add(&entries)
        return Result { () throws(KernelShapeError) in
          try builder.kernel(context: context, retiredKeys: nil)
        }.map { _ in "no problem" }
      }
      let descriptions = problems.map { outcome in
        switch outcome {
        case .success(let text): text
        case .failure(let error): error.description
        }
      }
      #expect(Set(descriptions).count == 1, "\(descriptions)")
      #expect(descriptions[0].contains("not in context"), "\(descriptions[0])")
    }
  }

  /// One to three damaged entries, each in either half or at the split, an earlier entry
  /// repeated from either half; a quarter of the inputs also have a byte damaged anywhere, and
  /// half are followed by a long list of retired keys (see ``setBytes(damages:retiredTail:)``).
  @Test func damagedSetsFailAsOnOneCore() {
    let iterations = PropertyEnvironment.iterations(default: 16)
    var random = SplitMix64(seed: PropertyEnvironment.replaySeed ?? 50)
    var (kernelProblems, byteProblems) = (0, 0)
    for iteration in 0..<iterations {
      var damages: [Int: (Damage, earlier: Int)] = [:]
      for _ in 0..<random.int(in: 1...3) {
        // Near the middle half the time: that is where the halves meet.
        let index =
          random.int(in: 0..<2) == 0
          ? random.int(in: Self.count * 2 / 5..<Self.count * 3 / 5)
          : random.int(in: 1..<Self.count)
        damages[index] = (random.pick(Damage.allCases), random.int(in: 0..<index))
      }
      var bytes = Self.setBytes(damages: damages, retiredTail: iteration / 4 % 2 == 1)
      if iteration % 4 == 3 {
        let position = random.int(in: 0..<bytes.count)
        bytes[position] = random.pick(Array("[]{},\"x1".utf8))
      }
      let (one, halves) = Self.outcomes(bytes)
      let agree = Self.same(one, halves)
      #expect(
        agree,
        """
        iteration \(iteration), damages \(damages): \(Self.summary(one)) on one core, \
        \(Self.summary(halves)) in halves
        """)
      if case .failure(let error) = one {
        if case .invalidValue = error.problem { kernelProblems += 1 } else { byteProblems += 1 }
      }
    }
    // Both kinds of problem must reach the reader.
    #expect(kernelProblems > iterations / 2)
    #expect(byteProblems > 0)
  }
}
