import Foundation

/// What a person reads when syncing through the shared folder stopped. What it merged before
/// stopping stays merged.
extension SyncFolderError: LocalizedError {
  public var errorDescription: String? {
    switch self {
    case .notAFolder: "The household's shared folder cannot be found."
    case .publishFailed: "This device's changes could not be written to the shared folder."
    }
  }

  public var recoverySuggestion: String? {
    switch self {
    case .notAFolder: "Check that the shared folder exists and that this device can reach it."
    case .publishFailed(let error): error.recoverySuggestion
    }
  }
}
