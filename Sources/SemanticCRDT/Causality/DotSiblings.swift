// Inlining: the code marked @inlinable is generic over keys and values and runs per key or
// per dot in merges, deltas and reads. Inlined, it is specialized for the caller's types in
// the caller's module; not inlined, every comparison, hash and copy of a key or value goes
// through witness tables. @usableFromInline marks the stored state and helpers that inlined
// code reads; each stays `package` or internal, out of the public API.

/// A value written by the event `dot`.
@usableFromInline
package struct DottedValue<Value> {
  @usableFromInline package let dot: Dot
  @usableFromInline package let value: Value

  @usableFromInline
  package init(dot: Dot, value: Value) {
    self.dot = dot
    self.value = value
  }
}

extension DottedValue: Equatable where Value: Equatable {
  @inlinable
  package static func == (lhs: DottedValue, rhs: DottedValue) -> Bool {
    lhs.dot == rhs.dot && lhs.value == rhs.value
  }
}
extension DottedValue: Sendable where Value: Sendable {}

/// The live dots of one key of a dot store, each with the value its event wrote; never empty.
///
/// One dot is by far the common case and is stored inline, without an allocation. Several dots
/// (concurrent writes not yet superseded) are kept sorted by dot, so equal sets are equal values.
/// A dot names one event, so two copies of the same dot always carry the same value.
@usableFromInline
package enum DotSiblings<Value> {
  case one(Dot, Value)
  /// At least two, sorted by dot, no dot twice.
  case many([DottedValue<Value>])

  /// Builds siblings from values sorted by dot without repeats; `nil` when there are none.
  @inlinable
  init?(sorted values: [DottedValue<Value>]) {
    switch values.count {
    case 0: return nil
    case 1: self = .one(values[0].dot, values[0].value)
    default: self = .many(values)
    }
  }

  /// Siblings as decoded, in any order and perhaps with a dot twice: only for
  /// ``DotKernel/init(validating:context:)``, which sorts and checks them.
  @inlinable
  package init?(unsorted values: [DottedValue<Value>]) {
    self.init(sorted: values)
  }

  @inlinable
  var count: Int {
    switch self {
    case .one: 1
    case .many(let values): values.count
    }
  }

  /// The siblings in dot order.
  @inlinable
  package var elements: [DottedValue<Value>] {
    switch self {
    case .one(let dot, let value): [DottedValue(dot: dot, value: value)]
    case .many(let values): values
    }
  }

  /// Calls `body` with each sibling's dot and value, in dot order, without building an array.
  @inlinable
  package func forEachElement(_ body: (Dot, Value) -> Void) {
    switch self {
    case .one(let dot, let value): body(dot, value)
    case .many(let values): for element in values { body(element.dot, element.value) }
    }
  }

  @inlinable
  package func forEachDot(_ body: (Dot) -> Void) {
    switch self {
    case .one(let dot, _): body(dot)
    case .many(let values): for element in values { body(element.dot) }
    }
  }

  @inlinable
  func contains(_ dot: Dot) -> Bool {
    switch self {
    case .one(let own, _): own == dot
    case .many(let values): values.contains { $0.dot == dot }
    }
  }

  /// Whether some dot satisfies `predicate`.
  @inlinable
  func containsDot(where predicate: (Dot) -> Bool) -> Bool {
    switch self {
    case .one(let dot, _): predicate(dot)
    case .many(let values): values.contains { predicate($0.dot) }
    }
  }

  func allDots(satisfy predicate: (Dot) -> Bool) -> Bool {
    switch self {
    case .one(let dot, _): predicate(dot)
    case .many(let values): values.allSatisfy { predicate($0.dot) }
    }
  }

  /// Whether both hold the same dots (and so, by construction, the same values).
  @inlinable
  func hasSameDots(as other: DotSiblings) -> Bool {
    // One switch per side: switching on the pair would copy both values into a tuple.
    switch self {
    case .one(let mine, _):
      guard case .one(let theirs, _) = other else { return false }
      return mine == theirs
    case .many(let mine):
      guard case .many(let theirs) = other else { return false }
      return mine.count == theirs.count && zip(mine, theirs).allSatisfy { $0.dot == $1.dot }
    }
  }

  /// The siblings whose dot satisfies `isIncluded`, or `nil` when none does.
  @inlinable
  func filter(_ isIncluded: (Dot) -> Bool) -> DotSiblings? {
    switch self {
    case .one(let dot, _): return isIncluded(dot) ? self : nil
    case .many(let values):
      let kept = values.filter { isIncluded($0.dot) }
      return kept.count == values.count ? self : DotSiblings(sorted: kept)
    }
  }

  /// The causal join of two sibling sets of one key.
  ///
  /// A dot survives when both sides hold it, or when one side holds it and the other side's
  /// context has not seen it; a dot that one side holds and the other has seen but dropped was
  /// removed or overwritten, and stays removed.
  ///
  /// - Complexity: O(*s* log *s*) for *s* siblings; O(1) for single siblings.
  @inlinable
  static func join(
    _ mine: DotSiblings, seenBy myContext: inout ContextMembership,
    _ theirs: DotSiblings, seenBy theirContext: inout ContextMembership
  ) -> DotSiblings? {
    // One write on each side, the common case: decide both without building arrays.
    if case .one(let myDot, let myValue) = mine, case .one(let theirDot, let theirValue) = theirs {
      if myDot == theirDot { return mine }
      let keepMine = !theirContext.contains(myDot)
      let keepTheirs = !myContext.contains(theirDot)
      switch (keepMine, keepTheirs) {
      case (true, true):
        return .many(
          myDot < theirDot
            ? [
              DottedValue(dot: myDot, value: myValue),
              DottedValue(dot: theirDot, value: theirValue),
            ]
            : [
              DottedValue(dot: theirDot, value: theirValue),
              DottedValue(dot: myDot, value: myValue),
            ])
      case (true, false): return mine
      case (false, true): return theirs
      case (false, false): return nil
      }
    }
    if mine.hasSameDots(as: theirs) { return mine }
    var kept: [DottedValue<Value>] = []
    for element in mine.elements
    where theirs.contains(element.dot) || !theirContext.contains(element.dot) {
      kept.append(element)
    }
    for element in theirs.elements
    where !mine.contains(element.dot) && !myContext.contains(element.dot) {
      kept.append(element)
    }
    kept.sort { $0.dot < $1.dot }
    return DotSiblings(sorted: kept)
  }
}

extension DotSiblings: Equatable where Value: Equatable {
  /// Written out and inlinable, as ``LWWRegister``'s is: the synthesized one stays generic.
  @inlinable
  package static func == (lhs: DotSiblings, rhs: DotSiblings) -> Bool {
    switch (lhs, rhs) {
    case (.one(let dot, let value), .one(let otherDot, let otherValue)):
      dot == otherDot && value == otherValue
    case (.many(let values), .many(let otherValues)): values == otherValues
    default: false
    }
  }
}
extension DotSiblings: Sendable where Value: Sendable {}
