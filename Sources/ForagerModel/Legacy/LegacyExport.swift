import Foundation

/// The export of the old app: UUID-keyed records with no semantic keys, where two devices'
/// offline creations of one thing are separate records (docs/household-model.md, "Legacy import",
/// has the format).
public struct LegacyExport: Codable, Sendable {
  public struct Category: Codable, Sendable {
    public var id: UUID
    public var name: String
    public var sortOrder: Int64?
    public var createdAt: Date
  }

  public struct IngredientTemplate: Codable, Sendable {
    public var id: UUID
    public var name: String
    public var categoryID: UUID?
    public var isStaple: Bool?
    public var usageCount: UInt64?
    public var createdAt: Date
  }

  public struct Recipe: Codable, Sendable {
    public var id: UUID
    public var title: String
    public var ingredients: [String]?
    public var usageCount: UInt64?
    public var createdAt: Date
  }

  public struct WeeklyList: Codable, Sendable {
    public var id: UUID
    public var name: String
    public var createdAt: Date
  }

  public struct GroceryItem: Codable, Sendable {
    public var id: UUID
    public var listID: UUID
    public var name: String
    public var templateID: UUID?
    public var categoryID: UUID?
    public var recipeID: UUID?
    public var isChecked: Bool?
    public var createdAt: Date
  }

  public struct PlannedMeal: Codable, Sendable {
    public var id: UUID
    /// `yyyy-MM-dd`, the day as the old app stored it.
    public var date: String
    public var mealType: String
    public var recipeID: UUID?
    public var createdAt: Date
  }

  public var categories: [Category] = []
  public var ingredientTemplates: [IngredientTemplate] = []
  public var recipes: [Recipe] = []
  public var weeklyLists: [WeeklyList] = []
  public var groceryItems: [GroceryItem] = []
  public var plannedMeals: [PlannedMeal] = []

  /// Decodes an export; dates are ISO 8601.
  ///
  /// - Throws: ``LegacyImportError/malformed(_:)`` naming what could not be read.
  public static func decode(_ data: Data) throws(LegacyImportError) -> LegacyExport {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    do {
      return try decoder.decode(LegacyExport.self, from: data)
    } catch let error as DecodingError {
      throw .malformed(describe(error))
    } catch {
      throw .malformed("\(error)")
    }
  }

  private static func describe(_ error: DecodingError) -> String {
    func path(_ codingPath: [any CodingKey]) -> String {
      codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
    switch error {
    case .keyNotFound(let key, let context): return "missing \(path(context.codingPath + [key]))"
    case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
      return "\(path(context.codingPath)): \(context.debugDescription)"
    @unknown default: return "\(error)"
    }
  }
}

/// Why a legacy export was refused. Nothing is imported when one is thrown.
public enum LegacyImportError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The export is not valid JSON of the expected shape.
  case malformed(String)
  /// A planned meal's day or meal type cannot be read.
  case invalidSlot(recordID: UUID, date: String, mealType: String)
  /// A record refers to a record the export does not contain.
  case danglingReference(recordID: UUID, field: String, target: UUID)
  /// The household was dissolved.
  case household(HouseholdError)

  public var description: String {
    switch self {
    case .malformed(let problem): "The legacy export cannot be read: \(problem)"
    case .invalidSlot(let id, let date, let mealType):
      "Planned meal \(id) has no valid slot: date \(date.debugDescription), meal type \(mealType.debugDescription)"
    case .danglingReference(let id, let field, let target):
      "Record \(id) refers by \(field) to \(target), which the export does not contain"
    case .household(let error): error.description
    }
  }
}
