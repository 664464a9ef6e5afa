/// The word lists of the ingredient pipeline, per normalizer version.
///
/// Changing a list changes keys: add a new ``NormalizerVersion`` and keep the old lists
/// reachable, so stores keyed by an older version can be re-keyed deterministically.
struct IngredientVocabulary: Sendable {
  /// Measures dropped when something else remains ("2 cups flour" → "flour", but "cloves"
  /// alone stays the spice).
  let units: WordList
  /// Words describing preparation or size, dropped when something else remains.
  let preparation: WordList
  /// Counting words dropped at the start of a line ("a", "two", "half").
  let quantityWords: WordList

  static func forVersion(_ version: NormalizerVersion) -> IngredientVocabulary {
    version >= .v2 ? v2 : v1
  }

  static let v1 = IngredientVocabulary(
    units: [
      "cup", "cups", "c",
      "tablespoon", "tablespoons", "tbsp", "tbsps", "tbs", "tbl",
      "teaspoon", "teaspoons", "tsp", "tsps",
      "g", "gram", "grams", "gr", "kg", "kilogram", "kilograms", "mg",
      "oz", "ounce", "ounces", "fl", "lb", "lbs", "pound", "pounds",
      "ml", "milliliter", "milliliters", "millilitre", "millilitres",
      "l", "liter", "liters", "litre", "litres", "dl", "cl",
      "pint", "pints", "pt", "quart", "quarts", "qt", "gallon", "gallons", "gal",
      "clove", "cloves", "can", "cans", "jar", "jars", "package", "packages", "pkg", "packet",
      "packets", "bag", "bags", "box", "boxes", "bottle", "bottles",
      "slice", "slices", "piece", "pieces", "bunch", "bunches", "stick", "sticks",
      "head", "heads", "stalk", "stalks", "sheet", "sheets", "loaf", "loaves",
    ],
    preparation: [
      "fresh", "freshly", "chopped", "diced", "minced", "sliced", "grated", "shredded",
      "crushed", "peeled", "seeded", "pitted", "halved", "quartered", "cubed", "julienned",
      "trimmed", "rinsed", "drained", "softened", "melted", "beaten", "sifted", "packed",
      "finely", "roughly", "coarsely", "thinly", "thickly", "lightly", "large", "medium",
      "small", "optional", "divided", "heaping", "level", "about", "approximately",
    ],
    quantityWords: [
      "a", "an", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
      "eleven", "twelve", "dozen", "half", "quarter", "couple", "few", "several",
    ])

  static let v2 = IngredientVocabulary(
    units: v1.units.union([
      "pinch", "pinches", "dash", "dashes", "sprig", "sprigs", "handful", "handfuls", "knob",
      "knobs",
    ]),
    preparation: v1.preparation,
    quantityWords: v1.quantityWords)

  /// Plural words that are their own singular.
  static let invariantPlurals: WordList = [
    "asparagus", "hummus", "couscous", "molasses", "citrus", "octopus", "hibiscus", "swiss",
    "bass", "grass", "lemongrass", "oats", "grits", "greens", "series", "species", "schnapps",
    "pastis", "anise", "chips",
  ]

  /// Plurals no suffix rule gets right.
  static let irregularPlurals: [String: String] = [
    "leaves": "leaf", "loaves": "loaf", "halves": "half", "knives": "knife", "calves": "calf",
    "cookies": "cookie", "brownies": "brownie", "veggies": "veggie", "pies": "pie",
    "quiches": "quiche", "brioches": "brioche", "geese": "goose", "mice": "mouse",
    "teeth": "tooth", "feet": "foot", "children": "child",
  ]

  /// The keys of ``irregularPlurals``, for the quick refusal of the many words that are none.
  static let irregularPluralWords = WordList(irregularPlurals.keys)
}

/// A small set of words that refuses most words without hashing them: the pipeline asks
/// several lists about every word of every name (each key of a file is checked on load), and
/// most words are in none. A bit per pair of length and first byte says whether a listed
/// word has them; only a word whose bit is set is looked up.
struct WordList: ExpressibleByArrayLiteral, Sendable {
  let words: Set<String>
  /// Bit `min(length, 31) * 256 + first byte` of the UTF-8 of each listed word.
  private let shapes: [UInt64]

  init(_ words: some Sequence<String>) {
    self.words = Set(words)
    var shapes = [UInt64](repeating: 0, count: 32 * 256 / 64)
    for word in self.words {
      let bit = Self.shapeBit(of: word)
      shapes[bit / 64] |= 1 << UInt64(bit % 64)
    }
    self.shapes = shapes
  }

  init(arrayLiteral words: String...) {
    self.init(words)
  }

  /// The words of both lists.
  func union(_ more: some Sequence<String>) -> WordList {
    WordList(words.union(more))
  }

  /// Whether `word` is listed.
  ///
  /// - Complexity: O(1) for a word no listed word shares a length and first byte with; one
  ///   hash of the word otherwise.
  func contains(_ word: String) -> Bool {
    let bit = Self.shapeBit(of: word)
    return shapes[bit / 64] & (1 << UInt64(bit % 64)) != 0 && words.contains(word)
  }

  private static func shapeBit(of word: String) -> Int {
    min(word.utf8.count, 31) * 256 + Int(word.utf8.first ?? 0)
  }
}
