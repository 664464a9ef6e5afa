import ForagerSync
import Foundation
import SemanticCRDT
import SharedSupport
import Testing

/// The golden table of normalization: every example of docs/keys.md and its edge cases.
/// A change of rules shows up here as a failing row.
@Suite("Normalization golden table")
struct NormalizationGoldenTests {
  static let categories: [(String, String)] = [
    ("Produce", "produce"),
    ("  test   CATEGORY ", "test category"),
    ("Test Category", "test category"),
    ("PRODUCE", "produce"),
    ("Dairy & Eggs", "dairy & eggs"),
    ("Meat\tand\nSeafood", "meat and seafood"),
    ("Frozen\u{00A0}Foods", "frozen foods"),
    ("Frozen\u{3000}Foods", "frozen foods"),
    ("Cafe\u{301}", "café"),
    ("Café", "café"),
    ("Cafe", "cafe"),
    ("ÉPICERIE", "épicerie"),
    ("Bakery ", "bakery"),
    ("\u{2003}Pantry\u{2009}Staples\u{2003}", "pantry staples"),
    ("İstanbul Spices", "i̇stanbul spices"),
    ("Snacks 2", "snacks 2"),
    ("", ""),
  ]

  static let ingredients: [(String, String)] = [
    ("2 cups Fresh Basil", "basil"),
    ("basil", "basil"),
    ("Basil leaves, chopped", "basil leaf"),
    ("Cilantro", "cilantro"),
    ("cilantro", "cilantro"),
    ("1/2 cup sugar", "sugar"),
    ("½ cup sugar", "sugar"),
    ("1½ cups milk", "milk"),
    ("2-3 tomatoes", "tomato"),
    ("2–3 tomatoes", "tomato"),
    ("2 to 3 tomatoes", "tomato"),
    ("200g flour", "flour"),
    ("200 g flour", "flour"),
    ("1.5kg potatoes", "potato"),
    ("12oz can tomatoes", "tomato"),
    ("2 cloves garlic, minced", "garlic"),
    ("cloves", "clove"),
    ("3 large eggs", "egg"),
    ("1 egg", "egg"),
    ("Salt, to taste", "salt"),
    ("salt to taste", "salt"),
    ("pepper as needed", "pepper"),
    ("1 cup flour (sifted)", "flour"),
    ("flour [optional]", "flour"),
    ("2 cups of flour", "flour"),
    ("a cup of rice", "rice"),
    ("one onion, finely diced", "onion"),
    ("two onions", "onion"),
    ("Cherry Tomatoes", "cherry tomato"),
    ("bay leaves", "bay leaf"),
    ("asparagus", "asparagus"),
    ("Hummus", "hummus"),
    ("couscous", "couscous"),
    ("molasses", "molasses"),
    ("berries", "berry"),
    ("fresh raspberries", "raspberry"),
    ("peaches", "peach"),
    ("radishes", "radish"),
    ("olives", "olive"),
    ("green onions", "green onion"),
    ("cookies", "cookie"),
    ("2 loaves of bread", "bread"),
    ("loaves", "loaf"),
    ("oats", "oats"),
    ("1 (14 oz) can black beans, drained", "black bean"),
    ("3 tbsp olive oil", "olive oil"),
    ("1 tsp. vanilla extract", "vanilla extract"),
    ("2 Tbsp butter, softened", "butter"),
    ("1 lb ground beef", "ground beef"),
    ("dried oregano", "dried oregano"),
    ("jalapeños", "jalapeño"),
    ("Jalapen\u{303}os", "jalapeño"),
    ("half-and-half", "half-and-half"),
    ("1 bunch kale", "kale"),
    ("2 heads lettuce", "lettuce"),
    ("potato taste enhancer", "potato taste enhancer"),
    ("  FRESH   Basil  ", "basil"),
    ("mangoes", "mango"),
    ("anchovies", "anchovy"),
    // Found by the fixed-point property (seeds in NormalizationPropertyTests.regressionSeeds).
    ("'a é", "é"),
    ("!2-3é", "é"),
    ("ß's", "ß's"),
    ("cups-s", "cups-s"),
    ("cup2a2-3asparagus", "asparagus"),
    ("fresh a basil", "basil"),
    ("ß  choppeds", "ß"),
    ("to 1/2 taste 1/2 leaves", "leaf"),
    ("to taste a salt", "salt"),
  ]

  static let recipeTitles: [(String, String)] = [
    ("Grandma's Banana Bread", "grandmas banana bread"),
    ("Banana Bread", "banana bread"),
    ("  banana   BREAD!!", "banana bread"),
    ("Mac & Cheese", "mac cheese"),
    ("Crème Brûlée", "creme brulee"),
    ("Cre\u{300}me Bru\u{302}le\u{301}e", "creme brulee"),
    ("Pad Thai (Quick)", "pad thai quick"),
    ("7-Layer Dip", "7layer dip"),
    ("餃子", "餃子"),
  ]

  @Test func categoryNames() {
    for (input, expected) in Self.categories {
      #expect(
        CategoryKey(normalizing: input).rawValue == expected, "category \(input.debugDescription)")
    }
  }

  @Test func ingredientNames() {
    for (input, expected) in Self.ingredients {
      #expect(
        IngredientKey(normalizing: input).rawValue == expected,
        "ingredient \(input.debugDescription)")
    }
  }

  @Test func recipeTitles() {
    for (input, expected) in Self.recipeTitles {
      #expect(
        RecipeTitleKey(normalizing: input).rawValue == expected, "title \(input.debugDescription)")
    }
  }

  /// Whatever calendar a person reads (on Apple platforms `Calendar.current` is the one chosen
  /// in Settings), a slot's day is the Gregorian day in that calendar's time zone: two devices
  /// of one household, one set to Japanese and one to Gregorian, plan one dinner into one slot.
  /// Fails on a `CalendarDay` that took year, month and day from the calendar given (the
  /// Japanese calendar makes 2024 the year 6).
  @Test(arguments: [
    Calendar.Identifier.japanese, .buddhist, .hebrew, .islamic, .islamicUmmAlQura, .persian,
    .chinese, .indian, .republicOfChina,
  ])
  func slotDaysAreGregorianWhateverTheCalendar(_ identifier: Calendar.Identifier) throws {
    let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
    var gregorian = Calendar(identifier: .gregorian)
    gregorian.timeZone = tokyo
    var chosen = Calendar(identifier: identifier)
    chosen.timeZone = tokyo
    // Instants around the clock and the year, 2024 and 2025 (a leap day among them).
    for hours in stride(from: 0, to: 24 * 800, by: 37) {
      let instant = Date(timeIntervalSince1970: 1_704_067_200 + Double(hours) * 3_600)
      let key = SlotKey(date: instant, mealType: .dinner, calendar: chosen)
      #expect(key == SlotKey(date: instant, mealType: .dinner, calendar: gregorian), "\(instant)")
      #expect(SlotKey(rawValue: key.rawValue) == key)
    }
    // A person's own calendar still decides the time zone, and so the day.
    let lateEvening = Date(timeIntervalSince1970: 1_733_891_400)
    chosen.timeZone = try #require(TimeZone(identifier: "America/New_York"))
    #expect(CalendarDay(lateEvening, in: chosen).description == "2024-12-10")
  }

  @Test func slotKeysTakeTheDayInTheGivenCalendar() throws {
    let day = try #require(CalendarDay(year: 2024, month: 12, day: 10))
    #expect(SlotKey(day: day, mealType: .breakfast).rawValue == "2024-12-10-breakfast")
    #expect(SlotKey(rawValue: "2024-12-10-breakfast") == SlotKey(day: day, mealType: .breakfast))
    #expect(MealType(parsing: " Breakfast ") == .breakfast)
    // The order of the day is the order of the cases.
    #expect(MealType.allCases.sorted() == MealType.allCases)
    #expect(zip(MealType.allCases, MealType.allCases.dropFirst()).allSatisfy { $0 < $1 })

    // 23:30 on 10 December in New York is 04:30 on the 11th in UTC.
    let lateEvening = Date(timeIntervalSince1970: 1_733_891_400)
    var newYork = Calendar(identifier: .gregorian)
    newYork.timeZone = try #require(TimeZone(identifier: "America/New_York"))
    var utc = Calendar(identifier: .gregorian)
    utc.timeZone = try #require(TimeZone(identifier: "UTC"))
    #expect(
      SlotKey(date: lateEvening, mealType: .dinner, calendar: newYork).rawValue
        == "2024-12-10-dinner")
    #expect(
      SlotKey(date: lateEvening, mealType: .dinner, calendar: utc).rawValue == "2024-12-11-dinner")

    for invalid in [
      "2024-13-01-lunch", "2024-02-30-lunch", "2024-12-10-brunch", "2024-12-10", "24-12-10-lunch",
      "2024-12-10lunch", "+024-12-10-dinner", "2024-+1-10-lunch", "2024-12-10-Dinner",
    ] {
      #expect(SlotKey(rawValue: invalid) == nil, "\(invalid)")
    }
    #expect(
      SlotKey(rawValue: "2024-02-29-snack")?.day == CalendarDay(year: 2024, month: 2, day: 29))
  }

  /// Days after 1582 are checked by arithmetic, not by Foundation's calendar: the two must
  /// agree on every day, leap days and impossible days included.
  @Test func dayValidityAgreesWithFoundationsCalendar() {
    var utc = Calendar(identifier: .gregorian)
    utc.timeZone = TimeZone(identifier: "UTC")!
    var random = SplitMix64(seed: 20_261_122)
    let years =
      [1583, 1600, 1700, 1900, 2000, 2023, 2024, 2100, 2400, 9999]
      + (0..<40).map { _ in random.int(in: 1583..<10_000) }
    var checked = 0
    for year in years {
      for month in 0...13 {
        for day in 0...32 {
          let foundation = DateComponents(year: year, month: month, day: day).isValidDate(in: utc)
          #expect(
            (CalendarDay(year: year, month: month, day: day) != nil) == foundation,
            "\(year)-\(month)-\(day)")
          checked += foundation ? 1 : 0
        }
      }
    }
    #expect(
      checked == years.count * 365
        + years.filter { $0 % 4 == 0 && ($0 % 100 != 0 || $0 % 400 == 0) }.count)
  }

  @Test func isoWeeksAreAHelperAcrossTheYearBoundary() throws {
    #expect(
      ISOWeek(try #require(CalendarDay(year: 2024, month: 12, day: 10))).description == "2024-W50")
    #expect(
      ISOWeek(try #require(CalendarDay(year: 2024, month: 12, day: 30))).description == "2025-W01")
    #expect(
      ISOWeek(try #require(CalendarDay(year: 2021, month: 1, day: 3))).description == "2020-W53")
  }

  @Test func versionTwoAddsSmallMeasures() {
    #expect(IngredientKey(normalizing: "a pinch of salt", version: .v1).rawValue == "pinch of salt")
    #expect(IngredientKey(normalizing: "a pinch of salt", version: .v2).rawValue == "salt")
    #expect(IngredientKey(normalizing: "2 sprigs thyme", version: .v1).rawValue == "sprigs thyme")
    #expect(IngredientKey(normalizing: "2 sprigs thyme", version: .v2).rawValue == "thyme")
    #expect(IngredientKey(normalizing: "a dash of hot sauce").rawValue == "hot sauce")
    #expect(NormalizerVersion.current == .v2)
  }

  @Test func theTableHasAtLeastEightyCases() {
    #expect(Self.categories.count + Self.ingredients.count + Self.recipeTitles.count >= 80)
  }
}
