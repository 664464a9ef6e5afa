import CRDTTestSupport
import ForagerSync
import Testing

/// A name that shows nothing would key a record by the empty string: every get-or-create and
/// rename refuses it with a typed error and changes nothing.
@Suite("Blank names")
struct BlankNameTests {
  /// Every Unicode White_Space scalar, and control and format characters a person cannot see.
  static let blankScalars: [Unicode.Scalar] =
    [
      0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003,
      0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F,
      0x3000, 0x00, 0x1F, 0x7F, 0x200B, 0x200D, 0x2060, 0xFEFF,
    ].map { Unicode.Scalar(UInt32($0))! }

  struct Name: CustomStringConvertible {
    let value: String
    var description: String { value.debugDescription }
  }

  /// Each entry point that names a record, applied to `name`.
  static let namingOperations:
    [(String, @Sendable (inout HouseholdReplica, String) throws -> Void)] = [
      ("getOrCreateCategory", { try $0.getOrCreateCategory(displayName: $1) }),
      ("getOrCreateIngredient", { try $0.getOrCreateIngredient(named: $1) }),
      ("recordUse", { try $0.recordUse(ofIngredient: $1) }),
      ("setStaple", { try $0.setStaple(true, ingredient: $1) }),
      ("renameCategory", { try $0.renameCategory(CategoryKey(normalizing: "Produce"), to: $1) }),
      (
        "addItem",
        { replica, name in
          let list = try replica.createWeeklyList(name: "This week").id
          try replica.addItem(name, to: list)
        }
      ),
    ]

  static func household() throws -> HouseholdReplica {
    var replica = HouseholdReplica.create(
      household: HouseholdID(), owner: MemberID(), ownerName: "Sam", replica: "phone")
    try replica.seedDefaultCategories()
    return replica
  }

  @Test func blankNamesAreRefusedEverywhere() throws {
    let failure = checkProperty(
      "blank names are refused", iterations: PropertyEnvironment.iterations(default: 300),
      generate: { random in
        let length = random.int(in: 0...6)
        var text = String.UnicodeScalarView()
        for _ in 0..<length { text.append(random.pick(Self.blankScalars)) }
        return [Name(value: String(text))]
      },
      check: { names in
        guard let name = names.first?.value else { return nil }
        for (operation, apply) in Self.namingOperations {
          guard var replica = try? Self.household() else { return "could not set up" }
          let before = replica.state
          do {
            try apply(&replica, name)
            return "\(operation) accepted \(name.debugDescription)"
          } catch let error as HouseholdError {
            guard error == .blankName(name) else { return "\(operation) threw \(error)" }
            // addItem's list is created before the refusal; nothing else may change.
            if operation != "addItem", replica.state != before {
              return "\(operation) changed the state while refusing"
            }
          } catch {
            return "\(operation) threw \(error)"
          }
        }
        return nil
      })
    if let failure { Issue.record("\(failure)") }
  }

  @Test func theRefusalSaysWhatIsWrong() throws {
    var replica = try Self.household()
    #expect(throws: HouseholdError.blankName("\u{00A0}\t")) {
      try replica.getOrCreateCategory(displayName: "\u{00A0}\t")
    }
    #expect(
      HouseholdError.blankName("\u{00A0}\t").description
        == #"A name must have a visible character; "\u{A0}\u{9}" has none"#)
  }

  @Test func visibleNamesOfEveryKindStillWork() throws {
    var replica = try Self.household()
    let names = [
      "🥑", "Épices du monde", "調味料", "Специи", "مخبز", "x", "\u{200B}Bakery\u{200B}",
      String(repeating: "Very long aisle name ", count: 500),
    ]
    for name in names {
      let category = try replica.getOrCreateCategory(displayName: name).category
      #expect(!category.key.rawValue.isEmpty)
      #expect(replica.category(named: name) == category)
      let template = try replica.getOrCreateIngredient(named: name).template
      #expect(!template.key.rawValue.isEmpty)
    }
  }

  @Test func blankRecipeLinesAreSkippedWhenAddingItems() throws {
    var replica = try Self.household()
    let recipe = try replica.addRecipe(
      title: "Pancakes", ingredientLines: ["2 cups flour", " ", ""]
    )
    .recipe.id
    let list = try replica.createWeeklyList(name: "This week").id
    let added = try replica.addItems(fromRecipe: recipe, to: list)
    #expect(added.map(\.displayName) == ["2 cups flour"])
  }
}
