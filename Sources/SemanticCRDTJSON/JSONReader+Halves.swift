internal import SharedSupport

// Inlining: `readArrayInHalves` is @usableFromInline, not @inlinable: the maps' inlinable
// readers call it once per array, and keeping its body here keeps the concurrency helper
// internal to this module.

extension JSONReader {
  /// Reads an array whose elements are independent of each other, on two cores when the caller
  /// gave the reader ``Cores/two`` and the array is long: a second thread finds the first
  /// element that starts in the second half of the remaining input and reads from there to the
  /// end of the array, while this thread reads up to that element. Each half gathers its
  /// elements into a part of its own; the parts come back in document order (one part when the
  /// array was read whole).
  ///
  /// The second thread finds its starting element with a scan that checks only brackets and
  /// strings; it starts only where this thread, reading and validating every byte, stops.
  /// Where the two disagree (damaged input), this thread reads the rest itself. Errors are
  /// those of reading the array in one pass: the first in document order is thrown.
  ///
  /// - Parameters:
  ///   - minimumBytes: Input shorter than this after the array's start is read on one thread.
  ///   - element: Reads one element into a part. It may run on two threads at once, so it is
  ///     `@Sendable`: it changes nothing but its reader and its part.
  /// - Complexity: O(*n*) in the bytes of the array, about half of it on each core.
  ///
  /// Not inlinable: it is called once per array, and keeping it here keeps the concurrency
  /// helper internal to this module.
  @usableFromInline
  mutating func readArrayInHalves<Part>(
    minimumBytes: Int, empty: @Sendable () -> Part,
    _ element: @Sendable (inout JSONReader, inout Part) throws(JSONError) -> Void
  ) throws(JSONError) -> [Part] {
    try enter(UInt8(ascii: "["), "an array")
    var first = empty()
    if try peek() == UInt8(ascii: "]") {
      position += 1
      depth -= 1
      return [first]
    }
    let middle = position + (bytes.count - position) / 2
    guard cores == .two, bytes.count - position >= minimumBytes else {
      _ = try readElements(into: &first, stoppingAt: nil, element)
      depth -= 1
      return [first]
    }
    let (shared, start, startDepth, table, compactly) = (
      BorrowedBytes(bytes), position, depth, replicaTable, readsCompactly
    )
    let (stop, second) = try concurrently { () throws(JSONError) in
      try readElements(into: &first, stoppingAt: middle, element)
    } _: {
      var reader = JSONReader(bytes: shared.buffer, at: start, depth: startDepth, cores: .one)
      reader.replicaTable = table
      reader.readsCompactly = compactly
      var part = empty()
      return SecondHalf(
        start: Result { () throws(JSONError) in try reader.scanToElement(atOrAfter: middle) },
        read: { () throws(JSONError) in
          _ = try reader.readElements(into: &part, stoppingAt: nil, element)
          return reader.position
        }, part: { part })
    }
    // The second half counts only where both threads agree it starts; its error then is the
    // next in the document.
    if let stop, case .success(let secondStart) = second.start, secondStart == stop {
      position = try second.end.get()
      depth -= 1
      return [first, second.part]
    }
    if stop != nil { _ = try readElements(into: &first, stoppingAt: nil, element) }
    depth -= 1
    return [first]
  }

  /// Reads elements up to the array's closing bracket (consumed), or stops at the first
  /// element that starts at `boundary` or later and returns where it starts.
  mutating func readElements<Part>(
    into part: inout Part, stoppingAt boundary: Int?,
    _ element: @Sendable (inout JSONReader, inout Part) throws(JSONError) -> Void
  ) throws(JSONError) -> Int? {
    while true {
      try element(&self, &part)
      let next = try peek()
      position += 1
      if next == UInt8(ascii: "]") { return nil }
      guard next == UInt8(ascii: ",") else {
        throw JSONError(.unexpectedByte(next, expected: "',' or ']'"), at: position - 1)
      }
      if let boundary {
        let start = try peekStart()
        if start >= boundary { return start }
      }
    }
  }

  /// Where the next token starts, after any whitespace; not consumed.
  mutating func peekStart() throws(JSONError) -> Int {
    _ = try peek()
    return position
  }

  /// From inside an array, where the first element that starts at `boundary` or later begins,
  /// or `nil` when the array ends first. Steps over elements with ``locateValue()``, which
  /// checks brackets and strings only.
  mutating func scanToElement(atOrAfter boundary: Int) throws(JSONError) -> Int? {
    var nothing: Void = ()
    return try readElements(into: &nothing, stoppingAt: boundary) { reader, _ throws(JSONError) in
      _ = try reader.locateValue()
    }
  }
}

/// What the second thread of ``JSONReader/readArrayInHalves(minimumBytes:empty:_:)`` found:
/// where its first element starts (`nil` when the array ended first), where it ended or why
/// reading failed, and the elements it read.
struct SecondHalf<Part> {
  let start: Result<Int?, JSONError>
  let end: Result<Int, JSONError>
  let part: Part

  init(
    start: Result<Int?, JSONError>, read: () throws(JSONError) -> Int, part: () -> Part
  ) {
    self.start = start
    if case .success(.some) = start {
      end = Result { () throws(JSONError) in try read() }
    } else {
      end = .success(0)
    }
    self.part = part()
  }
}
