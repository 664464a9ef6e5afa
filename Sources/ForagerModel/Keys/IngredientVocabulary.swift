/// The word lists of the ingredient pipeline, per normalizer version.
///
/// Changing a list changes keys: add a new ``NormalizerVersion`` and keep the old lists
/// reachable, so stores keyed by an older version can be re-keyed deterministically.
struct IngredientVocabulary: Sendable {
  /// Measures dropped when something else remains ("2 cups flour" → "flour", but "cloves"
  /// alone stays the spice).
  let units: Set<String>
  /// Words describing preparation or size, dropped when something else remains.
  let preparation: Set<String>
  /// Counting words dropped at the start of a line ("a", "two", "half").
  let quantityWords: Set<String>

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
  static let invariantPlurals: Set<String> = [
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
}
