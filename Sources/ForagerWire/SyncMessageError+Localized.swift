import ForagerModel
import Foundation

/// What a person reads when a message from another device was refused. Nothing of it was
/// applied; the device's own data is unchanged.
extension SyncMessageError: LocalizedError {
  public var errorDescription: String? {
    switch self {
    case .malformed, .damagedCompression:
      "A change from another device arrived damaged and was not applied."
    case .newerFormat:
      "Another device sent changes from a newer version of the app, and they were not applied."
    case .unknownFormat: "Another device sent data this app does not know, and it was not applied."
    case .tooLarge: "Another device sent more data than the app accepts at once."
    }
  }

  public var recoverySuggestion: String? {
    switch self {
    case .malformed, .damagedCompression, .tooLarge:
      "Sync again. Nothing on this device changed."
    case .newerFormat: "Update the app on this device, then sync again."
    case .unknownFormat: "Check that both devices run this app, then sync again."
    }
  }
}
