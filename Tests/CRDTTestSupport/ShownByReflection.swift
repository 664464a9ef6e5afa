import SemanticCRDT

/// Whether `a` and `b`, two values of one type, show the same, found by reflection: the parts
/// that conform to `ShowsValue` by what they show, structures part by part, anything else by
/// `==` (and a part that is not `Equatable` as different).
///
/// The library compares records through their declarations
/// (`DeclaredRecord.showsSame(as:)`); this walks the values' layout instead, knowing nothing of
/// declarations, so a test can check the two against each other. Slow: for tests only.
package func showSameByReflection<Value>(_ a: Value, _ b: Value) -> Bool {
  sameShown(a, b)
}

private func sameShown(_ a: Any, _ b: Any) -> Bool {
  if let shown = a as? any ShowsValue { return shown.showsSame(asAny: b) }
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

extension ShowsValue {
  fileprivate func showsSame(asAny other: Any) -> Bool {
    (other as? Self).map(showsSame(as:)) ?? false
  }
}

extension Equatable {
  fileprivate func isEqual(toAny other: Any) -> Bool {
    (other as? Self) == self
  }
}
