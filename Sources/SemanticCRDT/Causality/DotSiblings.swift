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
/// Kept sorted by dot, so equal sets are equal values: the first sibling inline, the rest (the
/// concurrent writes not yet superseded, none by far most often) in an array. A struct, not an
/// enum of one sibling or many: reading a part of a key's writes where they are stored reads
/// that field in place, where matching a generic enum's case copied the whole value first,
/// through the runtime's witnesses (ADR 0046). A dot names one event, so two copies of the
/// same dot always carry the same value.
@usableFromInline
package struct DotSiblings<Value> {
  /// The first sibling's dot: the least.
  @usableFromInline package let dot: Dot
  /// The first sibling's value.
  @usableFromInline package let value: Value
  /// The siblings after the first, in dot order, no dot twice; `nil` when there are none,
  /// never empty.
  @usableFromInline package let rest: [DottedValue<Value>]?

  /// One sibling.
  @inlinable
  package init(dot: Dot, value: Value) {
    self.dot = dot
    self.value = value
    rest = nil
  }

  /// The first sibling of `first`, followed by `rest`.
  @inlinable
  init(first: DotSiblings, rest: [DottedValue<Value>]) {
    dot = first.dot
    value = first.value
    self.rest = rest
  }

  /// Builds siblings from values sorted by dot without repeats; `nil` when there are none.
  @inlinable
  init?(sorted values: [DottedValue<Value>]) {
    guard let first = values.first else { return nil }
    dot = first.dot
    value = first.value
    rest = values.count > 1 ? Array(values.dropFirst()) : nil
  }

  /// Siblings as decoded, in any order and perhaps with a dot twice: only for
  /// ``DotKernel/init(validating:context:)``, which sorts and checks them
  /// (``sortedIfUnique()``).
  @inlinable
  package init?(unsorted values: [DottedValue<Value>]) {
    self.init(sorted: values)
  }

  /// Whether there is one sibling only.
  @inlinable
  var isSingle: Bool { rest == nil }

  @inlinable
  var count: Int { 1 + (rest?.count ?? 0) }

  /// The siblings in dot order.
  @inlinable
  package var elements: [DottedValue<Value>] {
    [DottedValue(dot: dot, value: value)] + (rest ?? [])
  }

  /// These siblings sorted by dot, or `nil` when a dot comes twice: for siblings made by
  /// ``init(unsorted:)``.
  @inlinable
  package func sortedIfUnique() -> DotSiblings? {
    guard rest != nil else { return self }
    var values = elements
    values.sort { $0.dot < $1.dot }
    if zip(values, values.dropFirst()).contains(where: { $0.dot == $1.dot }) { return nil }
    return DotSiblings(sorted: values)
  }

  /// Calls `body` with each sibling's dot and value, in dot order, without building an array.
  @inlinable
  package func forEachElement(_ body: (Dot, Value) -> Void) {
    body(dot, value)
    if let rest { for element in rest { body(element.dot, element.value) } }
  }

  @inlinable
  package func forEachDot(_ body: (Dot) -> Void) {
    body(dot)
    if let rest { for element in rest { body(element.dot) } }
  }

  @inlinable
  func contains(_ dot: Dot) -> Bool {
    self.dot == dot || rest?.contains { $0.dot == dot } == true
  }

  /// Whether some dot satisfies `predicate`.
  @inlinable
  func containsDot(where predicate: (Dot) -> Bool) -> Bool {
    Self.containsDot(dot, rest, where: predicate)
  }

  /// ``containsDot(where:)`` of siblings given by their first dot and `rest`: for a caller that
  /// reads those two fields where the siblings are stored, without copying out the value.
  @inlinable
  static func containsDot(
    _ dot: Dot, _ rest: [DottedValue<Value>]?, where predicate: (Dot) -> Bool
  ) -> Bool {
    predicate(dot) || rest?.contains { predicate($0.dot) } == true
  }

  /// Whether every dot satisfies `predicate`.
  @inlinable
  func allDots(satisfy predicate: (Dot) -> Bool) -> Bool {
    predicate(dot) && rest?.allSatisfy { predicate($0.dot) } != false
  }

  /// Whether both hold the same dots (and so, by construction, the same values).
  @inlinable
  func hasSameDots(as other: DotSiblings) -> Bool {
    Self.hasSameDots(dot, rest, as: other)
  }

  /// ``hasSameDots(as:)`` of siblings given by their first dot and `rest`, read in place as for
  /// ``containsDot(_:_:where:)``.
  @inlinable
  static func hasSameDots(_ dot: Dot, _ rest: [DottedValue<Value>]?, as other: DotSiblings)
    -> Bool
  {
    guard dot == other.dot else { return false }
    guard let rest else { return other.rest == nil }
    guard let theirs = other.rest, rest.count == theirs.count else { return false }
    return zip(rest, theirs).allSatisfy { $0.dot == $1.dot }
  }

  /// The siblings whose dot satisfies `isIncluded`, or `nil` when none does.
  @inlinable
  func filter(_ isIncluded: (Dot) -> Bool) -> DotSiblings? {
    guard rest != nil else { return isIncluded(dot) ? self : nil }
    let values = elements
    let kept = values.filter { isIncluded($0.dot) }
    return kept.count == values.count ? self : DotSiblings(sorted: kept)
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
    if mine.isSingle && theirs.isSingle {
      if mine.dot == theirs.dot { return mine }
      let keepMine = !theirContext.contains(mine.dot)
      let keepTheirs = !myContext.contains(theirs.dot)
      switch (keepMine, keepTheirs) {
      case (true, true):
        let (first, second) = mine.dot < theirs.dot ? (mine, theirs) : (theirs, mine)
        return DotSiblings(
          first: first, rest: [DottedValue(dot: second.dot, value: second.value)])
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
    lhs.dot == rhs.dot && lhs.value == rhs.value && lhs.rest == rhs.rest
  }
}
extension DotSiblings: Sendable where Value: Sendable {}
