extension DotKernel where Value: Equatable {
  /// This store as the new write of a map key whose store was `previous` (see ``Nestable``).
  ///
  /// A live dot that `previous` holds at the same key with the same value is the same event
  /// and keeps its name. Every other live dot is an event of this write, whatever its current
  /// name, and gets a dot minted from `scope`; `committing` then commits the value it carries.
  /// The context becomes `previous`'s and the scope's: the writer has seen all of it.
  ///
  /// - Complexity: O(*n* + *s* log *s*) for *n* live dots and *s* siblings per key.
  func committed(
    over previous: DotKernel?, in scope: inout NestingScope,
    committing: (Key, Value, inout NestingScope) -> Value = { _, value, _ in value }
  ) -> DotKernel {
    var result: [Key: DotSiblings<Value>] = [:]
    result.reserveCapacity(entries.count)
    for (key, siblings) in entries {
      let before = previous?.entries[key]
      var elements: [DottedValue<Value>] = []
      elements.reserveCapacity(siblings.count)
      for element in siblings.elements {
        if let before, before.holds(element) {
          elements.append(element)
        } else {
          let value = committing(key, element.value, &scope)
          elements.append(DottedValue(dot: scope.mint(), value: value))
        }
      }
      elements.sort { $0.dot < $1.dot }
      result[key] = DotSiblings(sorted: elements)
    }
    var context = scope.context
    if let previous { context.formUnion(previous.context) }
    return DotKernel(entries: result, context: context)
  }
}

extension DotSiblings where Value: Equatable {
  /// Whether `element`'s dot is live here with the same value: the same event.
  func holds(_ element: DottedValue<Value>) -> Bool {
    (dot == element.dot && value == element.value) || rest?.contains(element) == true
  }
}
