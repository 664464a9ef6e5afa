import Foundation

/// What a person reads when importing the old app's data fails; nothing was imported then.
/// ``LegacyImportError/description`` keeps the records' identifiers, for logs.
extension LegacyImportError: LocalizedError {
  public var errorDescription: String? {
    switch self {
    case .malformed: "The old app's data cannot be read."
    case .invalidSlot(_, let date, let mealType):
      "A planned meal in the old app's data has no valid day and meal (“\(date)”, “\(mealType)”)."
    case .danglingReference(_, let field, _):
      "A record in the old app's data refers to one that is missing (by \(field))."
    case .household(let error): error.errorDescription
    }
  }

  public var recoverySuggestion: String? {
    switch self {
    case .malformed, .invalidSlot, .danglingReference:
      "Nothing was imported. Export the data from the old app again, then import it."
    case .household(let error): error.recoverySuggestion
    }
  }
}
