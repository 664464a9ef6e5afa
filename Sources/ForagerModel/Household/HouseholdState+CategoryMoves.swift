import SemanticCRDT

extension HouseholdState {
  /// The live category a reference to `key` means: `key` itself while a category lives there,
  /// otherwise where the moves of `key` lead; `nil` when they lead nowhere live.
  ///
  /// A key with a live record resolves to itself, so a category renamed back to an old name
  /// (a cycle of moves) resolves to where it lives now.
  ///
  /// - Complexity: O(*m*) hash lookups for a chain of *m* moves; O(1) for a live key.
  package func resolvedCategory(_ key: CategoryKey) -> CategoryKey? {
    var current = key
    var steps = 0
    while !categories.contains(current) {
      guard let next = categoryMoves?[current]?.value, steps < moves.count else { return nil }
      current = next
      steps += 1
    }
    return current
  }
}
