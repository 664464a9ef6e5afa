import SemanticCRDT

// How each record commits its fields when a household map writes it (see `Nestable`). A
// field that holds dots (an `MVRegister`) is committed over the previous record's field;
// registers and counters hold none. A new record kind, or a new dot-holding field, goes here.

extension PlannedMeal {
  /// The meal with its assignment's writes named by the household map (see `Nestable`), so
  /// that a slot cleared and assigned again never reuses the dot of an assignment peers have
  /// seen.
  public func committed(
    over previous: @autoclosure () -> PlannedMeal?, in scope: inout NestingScope
  ) -> PlannedMeal {
    var result = self
    result.assignment = assignment.committed(over: previous()?.assignment, in: &scope)
    return result
  }

  /// Whether an assignment of one of `replicas` is live.
  package func holdsNestedDot(of replicas: Set<ReplicaID>) -> Bool {
    assignment.holdsDot(of: replicas)
  }

  /// The meal with the assignments of `replicas` stamped for `replica` (ADR 0029).
  package func reissued(restamping replicas: Set<ReplicaID>, as replica: ReplicaID)
    -> PlannedMeal
  {
    var result = self
    result.assignment = assignment.restamping(replicas, as: replica)
    return result
  }
}

extension GroceryCategory {
  /// The record itself: its fields hold no dots.
  public func committed(
    over previous: @autoclosure () -> GroceryCategory?, in scope: inout NestingScope
  ) -> GroceryCategory { self }
}

extension IngredientTemplate {
  /// The record itself: its fields hold no dots.
  public func committed(
    over previous: @autoclosure () -> IngredientTemplate?, in scope: inout NestingScope
  ) -> IngredientTemplate { self }
}

extension Recipe {
  /// The record itself: its fields hold no dots.
  public func committed(
    over previous: @autoclosure () -> Recipe?, in scope: inout NestingScope
  ) -> Recipe { self }
}

extension NamedContainer {
  /// The record itself: its fields hold no dots.
  public func committed(
    over previous: @autoclosure () -> NamedContainer?, in scope: inout NestingScope
  ) -> NamedContainer { self }
}

extension GroceryListItem {
  /// The record itself: its fields hold no dots.
  public func committed(
    over previous: @autoclosure () -> GroceryListItem?, in scope: inout NestingScope
  ) -> GroceryListItem { self }
}

extension Member {
  /// The record itself: its fields hold no dots.
  public func committed(
    over previous: @autoclosure () -> Member?, in scope: inout NestingScope
  ) -> Member { self }
}
