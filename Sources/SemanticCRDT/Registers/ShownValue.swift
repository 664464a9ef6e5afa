// Inlining: a merge asks whether each changed field shows the same value, generic over the
// register's value. Inlined, the question is specialized for the caller's value type in the
// caller's module; not inlined, each comparison goes through the value's witnesses.

/// A CRDT whose stamps say when and where it was written, apart from what it shows: two show
/// the same when their values do, whatever wrote them. Change events use it to tell a write
/// that changes what a view shows from one that writes the value already there.
///
/// Public, not `package` (docs/decisions/0047): a module that calls it through a conformance
/// declared here, as a merge of records asks it of every field, gets the conformance
/// specialized for its own values only when the protocol is public.
public protocol ShowsValue {
  /// Whether `other` shows what this one shows.
  ///
  /// - Complexity: O(1) for a register with one write; O(writes) for a multi-value register.
  func showsSame(as other: Self) -> Bool
}

extension LWWRegister: ShowsValue where Value: Equatable {
  /// The values are equal; the stamps may differ.
  @inlinable public func showsSame(as other: Self) -> Bool { other.value == value }
}

extension MVRegister: ShowsValue {
  /// The same values, the winner first; the stamps and dots may differ.
  @inlinable public func showsSame(as other: Self) -> Bool {
    // One write each, as a register holds but while a conflict lasts: no arrays to build.
    switch (kernel.entries[SingleKey()], other.kernel.entries[SingleKey()]) {
    case (nil, nil): return true
    case (let mine?, let theirs?) where mine.isSingle && theirs.isSingle:
      return mine.value.value == theirs.value.value
    default: break
    }
    let (mine, theirs) = (writes, other.writes)
    return mine.count == theirs.count && zip(mine, theirs).allSatisfy { $0.value == $1.value }
  }
}

/// Compared whole: a merge or an increment that changes a counter changes its total.
extension GCounter: ShowsValue {
  public func showsSame(as other: Self) -> Bool { self == other }
}

/// A max register holds nothing but its value.
extension MaxRegister: ShowsValue {
  public func showsSame(as other: Self) -> Bool { self == other }
}
