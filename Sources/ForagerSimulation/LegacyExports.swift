import ForagerSync
import Foundation

/// The old app's export each household imports: categories and templates under colliding
/// spellings (one a staple with uses), a recipe with uses, a list with a checked item. Every
/// device of a household imports the same one, so imports collide with each other and with
/// the devices' own records.
enum LegacyExports {
  static func export(forHousehold household: Int) -> LegacyExport {
    exports[household % exports.count]
  }

  private static let exports = (0..<8).map(make)

  private static func make(household: Int) -> LegacyExport {
    func id(_ record: Int) -> String {
      String(format: "00000000-0000-0000-%04X-%012X", household, record)
    }
    func at(_ day: Int) -> String { String(format: "2025-01-%02dT09:00:00Z", day) }
    let records: [String: Any] = [
      "categories": [
        ["id": id(1), "name": "Produce", "sortOrder": 0, "createdAt": at(2)],
        ["id": id(2), "name": "produce ", "createdAt": at(1)],
        ["id": id(3), "name": "Spices", "createdAt": at(3)],
      ],
      "ingredientTemplates": [
        [
          "id": id(4), "name": "Salt", "categoryID": id(3), "isStaple": true, "usageCount": 4,
          "createdAt": at(1),
        ],
        ["id": id(5), "name": "salt", "usageCount": 2, "createdAt": at(2)],
        [
          "id": id(6), "name": "Tomatoes", "categoryID": id(1), "usageCount": 1, "createdAt": at(5),
        ],
      ],
      "recipes": [
        [
          "id": id(7), "title": "Lentil Soup", "ingredients": ["1 cup lentils", "salt to taste"],
          "usageCount": 3, "createdAt": at(4),
        ]
      ],
      "weeklyLists": [["id": id(8), "name": "Last Week", "createdAt": at(6)]],
      "groceryItems": [
        [
          "id": id(9), "listID": id(8), "name": "salt", "templateID": id(5), "isChecked": true,
          "createdAt": at(6),
        ],
        ["id": id(10), "listID": id(8), "name": "3 diced tomatoes", "createdAt": at(7)],
      ],
      "plannedMeals": [],
    ]
    // The records are literals: a failure here is a bug in this file, found by any run.
    return try! LegacyExport.decode(JSONSerialization.data(withJSONObject: records))
  }
}
