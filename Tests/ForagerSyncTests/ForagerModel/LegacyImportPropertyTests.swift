import CRDTTestSupport
import ForagerSync
import Foundation
import SemanticCRDT
import SharedSupport
import Testing

/// Any permutation of a legacy export imports to the same state, byte for byte, and every
/// template is as old as the oldest record that names it.
@Suite("Legacy import properties")
struct LegacyImportPropertyTests {
  /// A random export: a few records under colliding names, with references between them.
  struct Export: CustomStringConvertible {
    var records: [String: [[String: Any]]]
    var description: String {
      let data = try! JSONSerialization.data(withJSONObject: records, options: [.sortedKeys])
      return String(decoding: data, as: UTF8.self)
    }

    static func random(using random: inout SplitMix64) -> Export {
      func id() -> String { UUID(uuid: uuidBytes(random.next(), random.next())).uuidString }
      func date() -> String {
        let day = Date(
          timeIntervalSince1970: 1_704_067_200 + Double(random.int(in: 0...9)) * 86_400)
        return ISO8601DateFormatter().string(from: day)
      }
      func some(_ ids: [String]) -> String? {
        ids.isEmpty || random.chance(0.3) ? nil : random.pick(ids)
      }
      let categories = (0..<random.int(in: 1...4)).map { _ -> [String: Any] in
        var record: [String: Any] = [
          "id": id(), "name": random.pick(["Produce", "produce ", "PRODUCE", "Dairy", "dairy"]),
          "createdAt": date(),
        ]
        if random.chance(0.5) { record["sortOrder"] = random.int(in: 0...3) }
        return record
      }
      let categoryIDs = categories.map { $0["id"] as! String }
      let templates = (0..<random.int(in: 0...5)).map { _ -> [String: Any] in
        var record: [String: Any] = [
          "id": id(), "name": random.pick(["Basil", "basil", "2 cups basil", "Milk", "milk"]),
          "createdAt": date(), "usageCount": random.int(in: 0...3), "isStaple": random.chance(0.3),
        ]
        record["categoryID"] = some(categoryIDs)
        return record
      }
      let templateIDs = templates.map { $0["id"] as! String }
      let recipes = (0..<random.int(in: 0...3)).map { _ -> [String: Any] in
        [
          "id": id(), "title": random.pick(["Banana Bread", "banana bread"]), "createdAt": date(),
          "usageCount": random.int(in: 0...2), "ingredients": ["2 cups flour"],
        ]
      }
      let recipeIDs = recipes.map { $0["id"] as! String }
      let lists = (0..<random.int(in: 1...2)).map { _ -> [String: Any] in
        ["id": id(), "name": "This Week", "createdAt": date()]
      }
      let items = (0..<random.int(in: 0...6)).map { _ -> [String: Any] in
        var record: [String: Any] = [
          "id": id(), "listID": random.pick(lists.map { $0["id"] as! String }),
          "name": random.pick(["basil", "2 cups flour", "Milk", "salt", "Salt"]),
          "createdAt": date(), "isChecked": random.chance(0.3),
        ]
        record["templateID"] = some(templateIDs)
        record["categoryID"] = some(categoryIDs)
        record["recipeID"] = some(recipeIDs)
        return record
      }
      let meals = (0..<random.int(in: 0...4)).map { _ -> [String: Any] in
        var record: [String: Any] = [
          "id": id(), "date": random.pick(["2024-12-10", "2024-12-11"]),
          "mealType": random.pick(["Breakfast", "breakfast ", "Dinner"]), "createdAt": date(),
        ]
        record["recipeID"] = some(recipeIDs)
        return record
      }
      return Export(records: [
        "categories": categories, "ingredientTemplates": templates, "recipes": recipes,
        "weeklyLists": lists, "groceryItems": items, "plannedMeals": meals,
      ])
    }

    func reordered(by random: inout SplitMix64) -> Export {
      var copy = self
      for key in records.keys {
        var array = records[key]!
        for index in array.indices.reversed() {
          array.swapAt(index, random.int(in: 0...index))
        }
        copy.records[key] = array
      }
      return copy
    }

    func decoded() throws -> LegacyExport {
      try LegacyExport.decode(try JSONSerialization.data(withJSONObject: records))
    }
  }

  static func uuidBytes(_ high: UInt64, _ low: UInt64) -> uuid_t {
    withUnsafeBytes(of: (high, low)) { raw in
      var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
      withUnsafeMutableBytes(of: &bytes) { $0.copyMemory(from: raw) }
      return bytes
    }
  }

  static let household = HouseholdID(uuid: UUID(uuid: uuidBytes(1, 1)))

  /// The state a fresh device with a fixed id and clock reaches by importing `export`.
  static func imported(_ export: Export) throws -> HouseholdState {
    var device = HouseholdReplica(
      joining: household, member: MemberID(uuid: UUID(uuid: uuidBytes(2, 2))), replica: "phone",
      wallClock: .fixed(1_735_689_600_000))
    try device.importLegacy(try export.decoded())
    return device.state
  }

  @Test func anyPermutationImportsToTheSameBytes() {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let failure = checkProperty(
      "legacy import ignores record order",
      iterations: PropertyEnvironment.iterations(default: 300),
      generate: { random in
        let export = Export.random(using: &random)
        return [export, export.reordered(by: &random)]
      },
      check: { exports in
        guard exports.count == 2 else { return nil }
        do {
          let (first, second) = (try Self.imported(exports[0]), try Self.imported(exports[1]))
          if first != second { return "the two orders give different states" }
          if try encoder.encode(first) != encoder.encode(second) {
            return "the two orders give different bytes"
          }
        } catch LegacyImportError.invalidSlot {
          return nil
        } catch {
          return "import threw \(error)"
        }
        return nil
      })
    if let failure { Issue.record("\(failure)") }
  }

  @Test func aTemplateIsAsOldAsTheOldestRecordThatNamesIt() throws {
    func record(_ fields: [String: Any]) -> [String: Any] { fields }
    let list = UUID().uuidString
    let export = Export(records: [
      "categories": [], "ingredientTemplates": [], "recipes": [], "plannedMeals": [],
      "weeklyLists": [
        record(["id": list, "name": "This Week", "createdAt": "2024-12-01T09:00:00Z"])
      ],
      "groceryItems": [
        record([
          "id": UUID().uuidString, "listID": list, "name": "2 cups flour",
          "createdAt": "2024-12-03T09:00:00Z",
        ]),
        record([
          "id": UUID().uuidString, "listID": list, "name": "flour",
          "createdAt": "2024-12-02T09:00:00Z",
        ]),
      ],
    ])
    for order in [export, Export(records: export.records.mapValues { $0.reversed() })] {
      let state = try Self.imported(order)
      let device = HouseholdReplica(
        state: state, member: MemberID(), clock: HybridClock(replica: "x"))
      let flour = try #require(device.ingredient(named: "flour"))
      #expect(flour.createdAt.wallMilliseconds == 1_733_130_000_000)  // 2024-12-02T09:00Z
    }
  }
}
