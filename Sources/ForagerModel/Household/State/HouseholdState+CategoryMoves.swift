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
    while !showsCategory(at: current) {
      guard let next = categoryMoves?[current]?.value, steps < moves.count else { return nil }
      current = next
      steps += 1
    }
    return current
  }

  /// Whether the category record under `key` shows: it exists, and it is not a creation no one
  /// chose left under a key a person moved away from.
  ///
  /// Seeding the defaults is no one's choice (docs/decisions/0013): it writes a category whose
  /// every field is stamped at ``genesis``. A device that seeds before it has seen a rename of
  /// a default (offline since before) creates the old key again, as a write the rename never
  /// saw, so both survive the merge. Such a record, all genesis, under a key with a move,
  /// does not show: references to the key follow the move, as they do when the key holds
  /// nothing. Any person's write to it (a new spelling, a position) makes it show.
  ///
  /// - Complexity: O(1).
  package func showsCategory(at key: CategoryKey) -> Bool {
    guard let record = categories[key] else { return false }
    return record.greatestTimestamp != Self.genesis || categoryMoves?[key] == nil
  }
}
