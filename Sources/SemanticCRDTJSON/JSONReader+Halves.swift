internal import SharedSupport

// Inlining: `readArrayInHalves` is @usableFromInline, not @inlinable: the maps' inlinable
// readers call it once per array, and keeping its body here keeps the concurrency helper
// internal to this module.

extension JSONReader {
  /// Reads an array whose elements are independent of each other, on two cores when the caller
  /// gave the reader ``Cores/two`` and the array is long: a second thread finds an element near
  /// the middle (``scanToMiddleElement(ofArrayFrom:minimumBytes:)``) and reads from there to
  /// the end, while this thread reads up to that element. Each half gathers its elements into a
  /// part of its own; the parts come back in document order (one part when the array was read
  /// whole).
  ///
  /// The second thread finds the elements with a scan that checks only brackets and strings,
  /// several times faster than reading them, and tells this thread where to stop as soon as it
  /// knows; it starts only where this thread, reading and validating every byte, stops. Where
  /// the two disagree (damaged input), or this thread has passed the element by the time it
  /// hears, this thread reads the rest itself. Errors are those of reading the array in one
  /// pass: the first in document order is thrown.
  ///
  /// - Parameters:
  ///   - minimumBytes: An array shorter than this is read on one thread; so is any array when
  ///     the input left after its start is shorter.
  ///   - whileTheSecondReads: What this thread does with its part once it has read its half,
  ///     while the second thread may still be reading the other: called only when the array
  ///     is split, before the second half's part exists. Whatever it leaves in the part stays
  ///     first in document order; elements this thread reads after it (where the threads
  ///     disagree) are read into the same part.
  ///   - element: Reads one element into a part. It may run on two threads at once, so it is
  ///     `@Sendable`: it changes nothing but its reader and its part.
  /// - Complexity: O(*n*) in the bytes of the array, about half of it on each core, and a scan
  ///   of the first half (of all of it, for an array followed by as many bytes again) on the
  ///   second.
  ///
  /// Not inlinable: it is called once per array, and keeping it here keeps the concurrency
  /// helper internal to this module.
  @usableFromInline
  mutating func readArrayInHalves<Part>(
    minimumBytes: Int, empty: @Sendable () -> Part,
    whileTheSecondReads: (inout Part) -> Void = { _ in },
    _ element: @Sendable (inout JSONReader, inout Part) throws(JSONError) -> Void
  ) throws(JSONError) -> [Part] {
    let arrayStart = position
    try enter(UInt8(ascii: "["), "an array")
    var first = empty()
    if try peek() == UInt8(ascii: "]") {
      position += 1
      depth -= 1
      return [first]
    }
    guard cores == .two, bytes.count - position >= minimumBytes else {
      _ = try readElements(into: &first, stoppingAt: nil, element)
      depth -= 1
      return [first]
    }
    let (shared, start, startDepth, table, compactly) = (
      BorrowedBytes(bytes), position, depth, replicaTable, readsCompactly
    )
    let middle = Announcement<Int?>()
    let (stop, second) = try concurrently { () throws(JSONError) in
      if waitsForTheMiddle { middle.wait() }
      let stop = try readElements(into: &first, stoppingAt: middle, element)
      // The second thread scanned the whole array before it started reading its half, so this
      // one, reading the first, is usually done first: it works on its part meanwhile.
      if stop != nil { whileTheSecondReads(&first) }
      return stop
    } _: {
      var reader = JSONReader(bytes: shared.buffer, at: start, depth: startDepth, cores: .one)
      reader.replicaTable = table
      reader.readsCompactly = compactly
      var part = empty()
      let found = reader.scanToMiddleElement(ofArrayFrom: arrayStart, minimumBytes: minimumBytes)
      // Posted whatever was found, so that this thread stops asking.
      middle.post(found)
      return SecondHalf(
        start: found,
        read: { () throws(JSONError) in
          reader.position = found!
          _ = try reader.readElements(into: &part, stoppingAt: nil, element)
          return reader.position
        }, part: { part })
    }
    // The second half counts only where both threads agree it starts; its error then is the
    // next in the document.
    if let stop, second.start == stop {
      position = try second.end.get()
      depth -= 1
      return [first, second.part]
    }
    if stop != nil { _ = try readElements(into: &first, stoppingAt: nil, element) }
    depth -= 1
    return [first]
  }

  /// Reads elements up to the array's closing bracket (consumed), or, once `middle` has been
  /// announced with a boundary, stops at the first element that starts there or later and
  /// returns where it starts. It reads to the end when there is no announcement, when the
  /// announcement is `nil`, or when it comes after this reader has passed the boundary.
  mutating func readElements<Part>(
    into part: inout Part, stoppingAt middle: Announcement<Int?>?,
    _ element: @Sendable (inout JSONReader, inout Part) throws(JSONError) -> Void
  ) throws(JSONError) -> Int? {
    var boundary: Int?
    var listening = middle != nil
    var read = 0
    while true {
      try element(&self, &part)
      let next = try peek()
      position += 1
      if next == UInt8(ascii: "]") { return nil }
      guard next == UInt8(ascii: ",") else {
        throw JSONError(.unexpectedByte(next, expected: "',' or ']'"), at: position - 1)
      }
      read += 1
      // Asked after the first element and every 16th after it: asking costs atomic
      // operations, an element a few hundred bytes of reading.
      if listening, read % 16 == 1, let announced = middle?.value {
        listening = false
        // A boundary already passed is let go: this thread reads on to the end.
        if let announced, try peekStart() <= announced { boundary = announced }
      }
      if let boundary, try peekStart() >= boundary { return position }
    }
  }

  /// Where the next token starts, after any whitespace; not consumed.
  mutating func peekStart() throws(JSONError) -> Int {
    _ = try peek()
    return position
  }

  /// From the first element of the array that opens at `arrayStart`: where the second thread
  /// starts reading, or `nil` when the array is shorter than `minimumBytes`, never closes, or
  /// no element starts where it would split it (one element, or a second half that is one
  /// long element).
  ///
  /// A ``StructuralScan`` looks for where the array closes, keeping where it stood every
  /// 16 KiB, and stops at the middle of what is left of the input (or at `minimumBytes`, if
  /// that is farther). The array is then split at its middle where it closed first; where it
  /// did not, at the middle of what is left, which for a household's one long map is the
  /// array's middle too, found with half the scan. From the last place kept before it, the
  /// scan finds the first element that starts there or later.
  ///
  /// For an array followed by fewer bytes than its own, the split falls past its middle, and
  /// this thread reads less: 3/4 of the way in for an array followed by half as much. Scanning
  /// to the end to find the middle would cost this thread the second half of the scan
  /// instead. Not further than the middle: the first thread checks its part into the kernel's
  /// table as the second reads, so its bytes cost more (ADR 0050, docs/benchmarks.md).
  mutating func scanToMiddleElement(ofArrayFrom arrayStart: Int, minimumBytes: Int) -> Int? {
    let first = StructuralScan(at: position, depth: 1)
    var scan = first
    // At most about 1,200 of them for a 38 MB input, 24 bytes each.
    var checkpoints: [StructuralScan] = []
    let farthest = arrayStart + max((bytes.count - arrayStart) / 2, minimumBytes)
    var stoppedShort = false
    let end = scan.skipToClose(in: bytes, checkpointBytes: 16_384) { scan in
      guard scan.position < farthest else {
        stoppedShort = true
        return false
      }
      checkpoints.append(scan)
      return true
    }
    // Closed: its length is known. Open at `farthest`: at least `minimumBytes` long.
    if let end {
      guard end - arrayStart >= minimumBytes else { return nil }
    } else if !stoppedShort {
      return nil
    }
    let middle = arrayStart + ((end ?? bytes.count) - arrayStart) / 2
    var nearest = checkpoints.last { $0.position <= middle } ?? first
    return nearest.elementStart(atOrAfter: middle, in: bytes)
  }
}

/// What the second thread of
/// ``JSONReader/readArrayInHalves(minimumBytes:empty:whileTheSecondReads:_:)`` found: where its
/// first element starts (`nil` when the array is read whole), where it ended or why reading
/// failed, and the elements it read.
struct SecondHalf<Part> {
  let start: Int?
  let end: Result<Int, JSONError>
  let part: Part

  init(
    start: Int?, read: () throws(JSONError) -> Int, part: () -> Part
  ) {
    self.start = start
    if start != nil {
      end = Result { () throws(JSONError) in try read() }
    } else {
      end = .success(0)
    }
    self.part = part()
  }
}
