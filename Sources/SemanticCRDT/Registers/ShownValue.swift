/// A part of a record whose stamps say when and where it was written, apart from what it shows:
/// two show the same when their values do, whatever wrote them. Change events use it to tell
/// a write that changes what a view shows from one that writes the value already there.
package protocol ShowsValue {
  /// Whether `other`, a value of the same type, shows what this one shows.
  func showsSame(as other: Any) -> Bool
}

extension LWWRegister: ShowsValue where Value: Equatable {
  /// The values are equal; the stamps may differ.
  package func showsSame(as other: Any) -> Bool {
    (other as? Self)?.value == value
  }
}

extension MVRegister: ShowsValue {
  /// The same values, the winner first; the stamps and dots may differ.
  package func showsSame(as other: Any) -> Bool {
    guard let other = other as? Self else { return false }
    return writes.map(\.value) == other.writes.map(\.value)
  }
}

/// Whether `a` and `b`, two values of one type, show the same: the parts that conform to
/// ``ShowsValue`` by what they show, structures part by part, anything else by `==` (and a
/// part that is not `Equatable` as different).
///
/// - Complexity: O(size of the values), through reflection: for one record at a time.
package func showSame<Value>(_ a: Value, _ b: Value) -> Bool {
  sameShown(a, b)
}

private func sameShown(_ a: Any, _ b: Any) -> Bool {
  if let shown = a as? any ShowsValue { return shown.showsSame(as: b) }
  let mirror = Mirror(reflecting: a)
  if mirror.displayStyle == .struct, !mirror.children.isEmpty {
    let other = Mirror(reflecting: b)
    guard other.displayStyle == .struct, other.children.count == mirror.children.count else {
      return false
    }
    return zip(mirror.children, other.children).allSatisfy { sameShown($0.value, $1.value) }
  }
  guard let equatable = a as? any Equatable else { return false }
  return equatable.isEqual(toAny: b)
}

extension Equatable {
  fileprivate func isEqual(toAny other: Any) -> Bool {
    (other as? Self) == self
  }
}
