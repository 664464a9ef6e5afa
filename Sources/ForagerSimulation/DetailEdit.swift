import ForagerSync
import Foundation
import SemanticCRDT

/// One edit of a detail the app's design gives a record beyond its name and key (a category's
/// color, a recipe's instructions and times, a meal's notes, a plan's days, a list's notes):
/// **the one list of them** that the simulator's workload, the random households of the tests
/// and the reference model of the property kit all draw from.
///
/// Each edit names the fields of its record's declaration (ADR 0036) it writes and the value
/// each then shows, so a test checks that every declared field is reached by some edit, and
/// the reference model predicts what a device shows without knowing the edit.
package enum DetailEdit: CaseIterable, Sendable, CustomStringConvertible {
  case categoryColor
  case recipeInstructions, recipeTimes, recipeServings, recipeSource, recipeFavorite
  case mealNotes, mealServings, mealScale, mealCompleted
  case planDays, planActive, planCompleted
  case listNotes, listCompleted

  /// The kind of record an edit changes.
  package enum Target: Sendable, CaseIterable {
    case category, recipe, meal, plan, list
  }

  /// What one edit writes, drawn by its caller: a small count, a flag and a text.
  package struct Value: Sendable, Hashable, CustomStringConvertible {
    /// From 1 to 12: minutes, servings, days, a color's digit, a quarter of a scale.
    package var count: Int64
    package var flag: Bool
    package var text: String

    package init(count: Int64, flag: Bool, text: String) {
      self.count = count
      self.flag = flag
      self.text = text
    }

    package var description: String { "\(count)/\(flag)/\(text.debugDescription)" }
  }

  package var target: Target {
    switch self {
    case .categoryColor: .category
    case .recipeInstructions, .recipeTimes, .recipeServings, .recipeSource, .recipeFavorite:
      .recipe
    case .mealNotes, .mealServings, .mealScale, .mealCompleted: .meal
    case .planDays, .planActive, .planCompleted: .plan
    case .listNotes, .listCompleted: .list
    }
  }

  package var description: String {
    switch self {
    case .categoryColor: "colors"
    case .recipeInstructions: "writes how to make"
    case .recipeTimes: "times"
    case .recipeServings, .mealServings: "gives the servings of"
    case .recipeSource: "gives the source of"
    case .recipeFavorite: "stars"
    case .mealNotes, .listNotes: "notes"
    case .mealScale: "scales"
    case .mealCompleted, .planCompleted, .listCompleted: "marks done"
    case .planDays: "dates"
    case .planActive: "activates"
    }
  }

  /// The edits of records of `target`.
  package static func edits(of target: Target) -> [DetailEdit] {
    allCases.filter { $0.target == target }
  }

  /// Performs the edit of `record`, which must be of the edit's ``target``: the replica's
  /// typed edit, which refuses a record it does not show.
  package func perform(_ value: Value, on record: RecordKey, of replica: inout HouseholdReplica)
    throws(HouseholdError)
  {
    let count = value.count
    let flag = value.flag
    switch (self, record) {
    case (.categoryColor, .category(let key)):
      try replica.setColor(Self.color(value), ofCategory: key)
    case (.recipeInstructions, .recipe(let id)):
      try replica.setInstructions(value.text, ofRecipe: id)
    case (.recipeTimes, .recipe(let id)):
      try replica.setTimes(prepMinutes: count * 5, cookMinutes: flag ? nil : count, ofRecipe: id)
    case (.recipeServings, .recipe(let id)):
      try replica.setServings(flag ? count : nil, ofRecipe: id)
    case (.recipeSource, .recipe(let id)):
      try replica.setSourceURL(Self.source(value), ofRecipe: id)
    case (.recipeFavorite, .recipe(let id)): try replica.setFavorite(flag, ofRecipe: id)
    case (.mealNotes, .meal(let slot)): try replica.setNotes(value.text, ofMealIn: slot)
    case (.mealServings, .meal(let slot)): try replica.setServings(count, ofMealIn: slot)
    case (.mealScale, .meal(let slot)):
      try replica.setScaleFactor(Double(count) / 4, ofMealIn: slot)
    case (.mealCompleted, .meal(let slot)): try replica.setCompleted(flag, mealIn: slot)
    case (.planDays, .plan(let id)):
      try replica.setDays(startingOn: Self.start(value), count: count, ofPlan: id)
    case (.planActive, .plan(let id)): try replica.setActive(flag, ofPlan: id)
    case (.planCompleted, .plan(let id)): try replica.setCompleted(flag, ofPlan: id)
    case (.listNotes, .list(let id)): try replica.setNotes(value.text, ofList: id)
    case (.listCompleted, .list(let id)): try replica.setCompleted(flag, ofList: id)
    default: preconditionFailure("\(self) edits a \(target), not \(record)")
    }
  }

  /// The declared fields the edit writes, by their keys, each with the value it then shows as
  /// ``HouseholdState/field(_:)`` reads it; `stamp` is the edit's (a completion holds its
  /// moment).
  package func writes(_ value: Value, at stamp: HybridTimestamp) -> [(key: String, shown: String)] {
    let count = value.count
    let flag = value.flag
    let done: Int64? = flag ? Int64(stamp.wallMilliseconds) : nil
    let written: [(String, Any)] =
      switch self {
      case .categoryColor: [("color:lww", Self.color(value) as Any)]
      case .recipeInstructions: [("directions:lww", value.text)]
      case .recipeTimes:
        [
          ("prepMinutes:lww", Optional(count * 5) as Any),
          ("cookMinutes:lww", (flag ? nil : count) as Any),
        ]
      case .recipeServings: [("serves:lww", (flag ? count : nil) as Any)]
      case .recipeSource: [("source:lww", Self.source(value)?.absoluteString as Any)]
      case .recipeFavorite: [("favorite:lww", flag)]
      case .mealNotes: [("note:lww", value.text)]
      case .mealServings: [("serves:lww", Optional(count) as Any)]
      case .mealScale: [("scale:lww", count * 250)]
      case .mealCompleted, .planCompleted, .listCompleted: [("completion:lww", done as Any)]
      case .planDays:
        [("start:lww", Self.start(value) as Any), ("days:lww", Optional(count) as Any)]
      case .planActive: [("active:lww", flag)]
      case .listNotes: [("note:lww", value.text)]
      }
    return written.map { (key: $0.0, shown: FieldRef.shown($0.1)) }
  }

  /// The declared keys of the fields the edit writes.
  package var keys: [String] {
    writes(Value(count: 1, flag: true, text: ""), at: HouseholdState.genesis).map(\.key)
  }

  /// The declared keys the edits of `target` write, together.
  package static func fieldKeys(of target: Target) -> Set<String> {
    Set(edits(of: target).flatMap(\.keys))
  }

  /// The details of `record` in `state` that some edit wrote, by key, each as it shows: the
  /// fields the edits of its kind write that hold more than their unchosen default. Empty for
  /// an absent record and a kind no edit changes.
  package static func writtenDetails(of record: RecordKey, in state: HouseholdState)
    -> [String: String]
  {
    guard let target = Target(record) else { return [:] }
    var result: [String: String] = [:]
    for key in fieldKeys(of: target) {
      if let (stamp, shown) = state.field(FieldRef(record: record, key: key)),
        stamp != HouseholdState.genesis
      {
        result[key] = shown
      }
    }
    return result
  }

  private static func color(_ value: Value) -> String? {
    value.flag ? "#\(value.count)0\(value.count)" : nil
  }

  private static func source(_ value: Value) -> URL? {
    URL(string: "https://example.com/recipes/\(value.count)")
  }

  private static func start(_ value: Value) -> CalendarDay? {
    value.flag ? CalendarDay(year: 2024, month: 12, day: Int(value.count)) : nil
  }
}

extension DetailEdit.Target {
  /// The kind of `record`, or `nil` for one no edit changes (a template, an item, a member).
  package init?(_ record: RecordKey) {
    switch record {
    case .category: self = .category
    case .recipe: self = .recipe
    case .meal: self = .meal
    case .plan: self = .plan
    case .list: self = .list
    case .ingredient, .item, .member: return nil
    }
  }

  /// The records of this kind `replica` shows, in its order.
  package func records(shownBy replica: HouseholdReplica) -> [RecordKey] {
    switch self {
    case .category: replica.categories().map { .category($0.key) }
    case .recipe: replica.recipes().map { .recipe($0.id) }
    case .meal: replica.plannedMeals().map { .meal($0.slot) }
    case .plan: replica.mealPlans().map { .plan($0.id) }
    case .list: replica.weeklyLists().map { .list($0.id) }
    }
  }
}
