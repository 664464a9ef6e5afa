import Foundation
import SemanticCRDT

// The details the app's design gives its records beyond their names and keys: a recipe's
// instructions and times, a meal's notes and servings, a plan's dates, a list's notes, a
// category's color. Each is one field of its record (Entities.swift says which CRDT and why),
// and each edit refuses a record that does not show and a value out of range (ADR 0019).

extension HouseholdReplica {
  // MARK: Categories

  /// Sets the color the app shows a category in (as the app writes it), or none; last write
  /// wins.
  ///
  /// - Throws: ``HouseholdError/unknownCategory(_:)`` when no category has `key` (or had it
  ///   before a rename).
  public mutating func setColor(_ color: String?, ofCategory key: CategoryKey)
    throws(HouseholdError)
  {
    let live = try liveCategory(key)
    let stamp = clock.tick()
    edit(\.categories, live) { $0.color.assign(color, at: stamp) }
  }

  // MARK: Recipes

  /// Sets how to make a recipe; last write wins.
  ///
  /// - Throws: ``HouseholdError/unknownRecipe(_:)`` when no recipe has `id`.
  public mutating func setInstructions(_ instructions: String, ofRecipe id: RecipeID)
    throws(HouseholdError)
  {
    try requireRecipe(id)
    let stamp = clock.tick()
    edit(\.recipes, id) { $0.directions.assign(instructions, at: stamp) }
  }

  /// Sets a recipe's preparation and cooking times in minutes, each `nil` for not given; last
  /// write wins, for each time apart.
  ///
  /// - Throws: ``HouseholdError/unknownRecipe(_:)``, and
  ///   ``HouseholdError/invalidValue(field:value:allowed:)`` for a time outside
  ///   ``minutesAllowed``.
  public mutating func setTimes(prepMinutes: Int64?, cookMinutes: Int64?, ofRecipe id: RecipeID)
    throws(HouseholdError)
  {
    try requireRecipe(id)
    try Self.require(prepMinutes, in: Self.minutesAllowed, "preparation time in minutes")
    try Self.require(cookMinutes, in: Self.minutesAllowed, "cooking time in minutes")
    let stamp = clock.tick()
    edit(\.recipes, id) {
      $0.prepMinutes.assign(prepMinutes, at: stamp)
      $0.cookMinutes.assign(cookMinutes, at: stamp)
    }
  }

  /// Sets how many a recipe serves, or `nil` for not given; last write wins.
  ///
  /// - Throws: ``HouseholdError/unknownRecipe(_:)``, and
  ///   ``HouseholdError/invalidValue(field:value:allowed:)`` outside ``servingsAllowed``.
  public mutating func setServings(_ servings: Int64?, ofRecipe id: RecipeID)
    throws(HouseholdError)
  {
    try requireRecipe(id)
    try Self.require(servings, in: Self.servingsAllowed, "number of servings")
    let stamp = clock.tick()
    edit(\.recipes, id) { $0.serves.assign(servings, at: stamp) }
  }

  /// Sets where a recipe came from, or `nil` for nowhere given; last write wins.
  ///
  /// - Throws: ``HouseholdError/unknownRecipe(_:)`` when no recipe has `id`.
  public mutating func setSourceURL(_ url: URL?, ofRecipe id: RecipeID) throws(HouseholdError) {
    try requireRecipe(id)
    let stamp = clock.tick()
    edit(\.recipes, id) { $0.source.assign(url?.absoluteString, at: stamp) }
  }

  /// Marks a recipe as a favorite, or not; last write wins.
  ///
  /// - Throws: ``HouseholdError/unknownRecipe(_:)`` when no recipe has `id`.
  public mutating func setFavorite(_ isFavorite: Bool, ofRecipe id: RecipeID)
    throws(HouseholdError)
  {
    try requireRecipe(id)
    let stamp = clock.tick()
    edit(\.recipes, id) { $0.favorite.assign(isFavorite, at: stamp) }
  }

  // MARK: Planned meals

  /// Sets the notes of the meal in `slot`; last write wins.
  ///
  /// - Throws: ``HouseholdError/emptySlot(_:)`` when no meal is planned there.
  public mutating func setNotes(_ notes: String, ofMealIn slot: SlotKey) throws(HouseholdError) {
    try requireMeal(slot)
    let stamp = clock.tick()
    edit(\.meals, slot) { $0.note.assign(notes, at: stamp) }
  }

  /// Sets how many the meal in `slot` is for, or `nil` for not given; last write wins.
  ///
  /// - Throws: ``HouseholdError/emptySlot(_:)``, and
  ///   ``HouseholdError/invalidValue(field:value:allowed:)`` outside ``servingsAllowed``.
  public mutating func setServings(_ servings: Int64?, ofMealIn slot: SlotKey)
    throws(HouseholdError)
  {
    try requireMeal(slot)
    try Self.require(servings, in: Self.servingsAllowed, "number of servings")
    let stamp = clock.tick()
    edit(\.meals, slot) { $0.serves.assign(servings, at: stamp) }
  }

  /// Sets how much of its recipe the meal in `slot` makes (1 for as written), kept to the
  /// thousandth; last write wins.
  ///
  /// - Throws: ``HouseholdError/emptySlot(_:)``, and
  ///   ``HouseholdError/invalidValue(field:value:allowed:)`` for a factor that is not a number
  ///   from 0.001 to 1,000.
  public mutating func setScaleFactor(_ factor: Double, ofMealIn slot: SlotKey)
    throws(HouseholdError)
  {
    try requireMeal(slot)
    let thousandths = factor.isFinite ? (factor * 1_000).rounded() : 0
    guard (1...1_000_000).contains(thousandths) else {
      throw .invalidValue(
        field: "scale factor", value: "\(factor)", allowed: "a number from 0.001 to 1,000")
    }
    let stamp = clock.tick()
    edit(\.meals, slot) { $0.scale.assign(Int64(thousandths), at: stamp) }
  }

  /// Marks the meal in `slot` as made, now, or as not made; last write wins, and the time
  /// changes with the flag.
  ///
  /// - Throws: ``HouseholdError/emptySlot(_:)`` when no meal is planned there.
  public mutating func setCompleted(_ isCompleted: Bool, mealIn slot: SlotKey)
    throws(HouseholdError)
  {
    try requireMeal(slot)
    let stamp = clock.tick()
    edit(\.meals, slot) { $0.completion.assign(Self.completion(isCompleted, at: stamp), at: stamp) }
  }

  // MARK: Meal plans

  /// Sets the days a plan covers: its first day and how many, each `nil` for not given; last
  /// write wins, for each apart.
  ///
  /// - Throws: ``HouseholdError/unknownMealPlan(_:)``, and
  ///   ``HouseholdError/invalidValue(field:value:allowed:)`` for a duration outside
  ///   ``daysAllowed``.
  public mutating func setDays(startingOn start: CalendarDay?, count: Int64?, ofPlan id: MealPlanID)
    throws(HouseholdError)
  {
    try requireContainer(\.plans, id, unknown: .unknownMealPlan(id))
    try Self.require(count, in: Self.daysAllowed, "number of days")
    let stamp = clock.tick()
    edit(\.plans, id) {
      $0.start.assign(start, at: stamp)
      $0.days.assign(count, at: stamp)
    }
  }

  /// Marks a plan as the one the household follows, or not; last write wins. Several may be
  /// active: the app decides what that means.
  ///
  /// - Throws: ``HouseholdError/unknownMealPlan(_:)`` when no plan has `id`.
  public mutating func setActive(_ isActive: Bool, ofPlan id: MealPlanID) throws(HouseholdError) {
    try requireContainer(\.plans, id, unknown: .unknownMealPlan(id))
    let stamp = clock.tick()
    edit(\.plans, id) { $0.active.assign(isActive, at: stamp) }
  }

  /// Marks a plan as done, now, or as not done; last write wins, and the time changes with
  /// the flag.
  ///
  /// - Throws: ``HouseholdError/unknownMealPlan(_:)`` when no plan has `id`.
  public mutating func setCompleted(_ isCompleted: Bool, ofPlan id: MealPlanID)
    throws(HouseholdError)
  {
    try requireContainer(\.plans, id, unknown: .unknownMealPlan(id))
    let stamp = clock.tick()
    edit(\.plans, id) { $0.completion.assign(Self.completion(isCompleted, at: stamp), at: stamp) }
  }

  // MARK: Weekly lists

  /// Sets the notes of a list; last write wins.
  ///
  /// - Throws: ``HouseholdError/unknownList(_:)`` when no list has `id`.
  public mutating func setNotes(_ notes: String, ofList id: WeeklyListID) throws(HouseholdError) {
    try requireContainer(\.lists, id, unknown: .unknownList(id))
    let stamp = clock.tick()
    edit(\.lists, id) { $0.note.assign(notes, at: stamp) }
  }

  /// Marks a list as done, now, or as not done; last write wins, and the time changes with
  /// the flag.
  ///
  /// - Throws: ``HouseholdError/unknownList(_:)`` when no list has `id`.
  public mutating func setCompleted(_ isCompleted: Bool, ofList id: WeeklyListID)
    throws(HouseholdError)
  {
    try requireContainer(\.lists, id, unknown: .unknownList(id))
    let stamp = clock.tick()
    edit(\.lists, id) { $0.completion.assign(Self.completion(isCompleted, at: stamp), at: stamp) }
  }

  // MARK: Bounds

  /// The times a recipe takes that an edit accepts: up to a week, in minutes.
  public static let minutesAllowed: ClosedRange<Int64> = 0...10_080
  /// The servings an edit accepts.
  public static let servingsAllowed: ClosedRange<Int64> = 1...1_000
  /// The number of days a plan may cover.
  public static let daysAllowed: ClosedRange<Int64> = 1...366

  /// Refuses `value` outside `range`, naming it `field`; `nil` is always allowed.
  private static func require(_ value: Int64?, in range: ClosedRange<Int64>, _ field: String)
    throws(HouseholdError)
  {
    guard let value, !range.contains(value) else { return }
    throw .invalidValue(
      field: field, value: "\(value)",
      allowed: "a number from \(range.lowerBound) to \(range.upperBound)")
  }

  /// A completion register's value: the moment of `stamp` when done, `nil` when not.
  private static func completion(_ isCompleted: Bool, at stamp: HybridTimestamp) -> Int64? {
    isCompleted ? Int64(stamp.wallMilliseconds) : nil
  }

  /// Refuses an edit of an empty slot.
  private func requireMeal(_ slot: SlotKey) throws(HouseholdError) {
    try requireOpen()
    guard plannedMeal(slot) != nil else { throw .emptySlot(slot) }
  }
}
