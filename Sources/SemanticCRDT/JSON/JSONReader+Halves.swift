import Dispatch

extension JSONReader {
  /// Reads an array whose elements are independent of each other, on two cores when it is
  /// long: a second thread finds the first element that starts in the second half of the
  /// remaining input and reads from there to the end of the array, while this thread reads up
  /// to that element. Each half gathers its elements into a part of its own; the parts come
  /// back in document order (one part when the array was read whole).
  ///
  /// The second thread finds its starting element with a scan that checks only brackets and
  /// strings; it starts only where this thread, reading and validating every byte, stops.
  /// Where the two disagree (damaged input), this thread reads the rest itself. Errors are
  /// those of reading the array in one pass: the first in document order is thrown.
  ///
  /// - Parameters:
  ///   - minimumBytes: Input shorter than this after the array's start is read on one thread.
  ///   - element: Reads one element into a part. It runs on two threads at once, so it must
  ///     change nothing but its reader and its part.
  /// - Complexity: O(*n*) in the bytes of the array, about half of it on each core.
  @inlinable
  mutating func readArrayInHalves<Part>(
    minimumBytes: Int, empty: () -> Part,
    _ element: (inout JSONReader, inout Part) throws(JSONError) -> Void
  ) throws(JSONError) -> [Part] {
    try enter(UInt8(ascii: "["), "an array")
    var first = empty()
    if try peek() == UInt8(ascii: "]") {
      position += 1
      depth -= 1
      return [first]
    }
    let middle = position + (bytes.count - position) / 2
    guard bytes.count - position >= minimumBytes else {
      try readElements(into: &first, stoppingAt: nil, element)
      depth -= 1
      return [first]
    }
    return try withoutActuallyEscaping(element) { element throws(JSONError) in
      let second = SecondHalf(reader: self, middle: middle, part: empty(), element: element)
      let stop: Int?
      do throws(JSONError) {
        stop = try readElements(into: &first, stoppingAt: middle, element)
      } catch {
        // The second thread reads these bytes and runs `element`: it must be done first.
        second.wait()
        throw error
      }
      let (secondPart, secondEnd) = try second.result(startingAt: stop)
      if let secondPart, let secondEnd {
        position = secondEnd
        depth -= 1
        return [first, secondPart]
      }
      if stop != nil { try readElements(into: &first, stoppingAt: nil, element) }
      depth -= 1
      return [first]
    }
  }

  /// Reads elements up to the array's closing bracket (consumed), or stops at the first
  /// element that starts at `boundary` or later and returns where it starts.
  @inlinable
  mutating func readElements<Part>(
    into part: inout Part, stoppingAt boundary: Int?,
    _ element: (inout JSONReader, inout Part) throws(JSONError) -> Void
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
  @usableFromInline
  mutating func peekStart() throws(JSONError) -> Int {
    _ = try peek()
    return position
  }

  /// From inside an array, where the first element that starts at `boundary` or later begins,
  /// or `nil` when the array ends first. Checks brackets and strings only, like
  /// ``locateValue()``.
  @usableFromInline
  mutating func scanToElement(atOrAfter boundary: Int) throws(JSONError) -> Int? {
    var nesting = 0
    while position < bytes.count {
      let byte = bytes[position]
      position += 1
      switch byte {
      case UInt8(ascii: "\""):
        while true {
          guard position < bytes.count else { throw JSONError(.unexpectedEnd, at: position) }
          let inner = bytes[position]
          position += 1
          if inner == UInt8(ascii: "\"") { break }
          if inner == UInt8(ascii: "\\") { position = min(position + 1, bytes.count) }
        }
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        nesting += 1
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        if nesting == 0 { return nil }
        nesting -= 1
      case UInt8(ascii: ",") where nesting == 0:
        skipWhitespace()
        if position >= boundary { return position }
      default:
        break
      }
    }
    throw JSONError(.unexpectedEnd, at: position)
  }
}

/// The second half of an array, read on another thread; see
/// ``JSONReader/readArrayInHalves(minimumBytes:empty:_:)``.
///
/// Unchecked sendability: the reader's bytes outlive the thread (the first thread waits for
/// it before returning), the element closure changes only its own reader and part, and every
/// stored property the thread writes is read only after `done` has signalled.
@usableFromInline
final class SecondHalf<Part>: @unchecked Sendable {
  private var reader: JSONReader
  private var part: Part
  /// Released by the thread before it signals `done`, so that nothing holds the closure once
  /// the first thread has waited (it does not escape the reader's call).
  private var element: ((inout JSONReader, inout Part) throws(JSONError) -> Void)?
  /// Where the scan found the second half's first element; `nil` when the array ended first
  /// or the scan failed.
  private var start: Int?
  /// Where the second half ended (after the closing bracket), or why reading it failed.
  private var end: Result<Int, JSONError> = .success(0)
  private let done = DispatchSemaphore(value: 0)

  @usableFromInline
  init(
    reader: JSONReader, middle: Int, part: Part,
    element: @escaping (inout JSONReader, inout Part) throws(JSONError) -> Void
  ) {
    self.reader = reader
    self.part = part
    self.element = element
    DispatchQueue.global(qos: .userInitiated).async { [self] in
      do throws(JSONError) {
        start = try self.reader.scanToElement(atOrAfter: middle)
        if start != nil, let element = self.element {
          _ = try self.reader.readElements(into: &self.part, stoppingAt: nil, element)
          end = .success(self.reader.position)
        }
      } catch {
        end = .failure(error)
      }
      self.element = nil
      done.signal()
    }
  }

  /// Waits for the second half. Its part and end when it started at `firstStop`, where the
  /// first half stopped; `nil`s when the first half read the whole array (`firstStop` is
  /// `nil`) or the two disagree on where the second half starts, and the first half goes on
  /// alone. When they agree, an error of the second half is the next in the document, and is
  /// thrown.
  @usableFromInline
  func result(startingAt firstStop: Int?) throws(JSONError) -> (Part?, Int?) {
    wait()
    guard let firstStop, start == firstStop else { return (nil, nil) }
    return (part, try end.get())
  }

  /// Waits until the second thread is done with the bytes and the element closure.
  @usableFromInline
  func wait() {
    done.wait()
  }
}
