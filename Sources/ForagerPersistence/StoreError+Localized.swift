import Foundation

/// What a person reads when the replica's file cannot be used: what happened to the data on
/// this device, and what to do. ``StoreError/description`` keeps the path and the details, for
/// logs.
extension StoreError: LocalizedError {
  public var errorDescription: String? {
    switch problem {
    case .unreadable: "The household's data on this device cannot be read."
    case .malformed, .checksumMismatch, .invalidContent, .unsound, .journalWithoutSnapshot,
      .refusedLine:
      "The household's data on this device is damaged."
    case .newerFormat, .newerNormalizer:
      "The household's data on this device was saved by a newer version of the app."
    case .unknownFormat: "The household's data on this device is not in a format the app knows."
    case .differentHousehold: "The data on this device belongs to another household."
    case .tooLarge: "The household's data on this device is too large to open."
    case .clockSkew: "The household's data is dated too far ahead of this device's clock."
    case .locked: "The household's data is in use by another copy of the app."
    case .writeFailed: "The household's changes could not be saved on this device."
    case .householdNotCreatedOnCache:
      "This device keeps the household only in a cache, so it cannot start a new one."
    case .suspended: "The household's changes are not saved while the app is in the background."
    }
  }

  public var recoverySuggestion: String? {
    switch problem {
    case .unreadable, .writeFailed:
      "Check that the device has free space, then try again. Nothing saved before was lost."
    case .malformed, .checksumMismatch, .invalidContent, .unsound, .unknownFormat,
      .journalWithoutSnapshot, .refusedLine:
      "The file was left as it is. Sync from another device to restore the household."
    case .newerFormat, .newerNormalizer: "Update the app on this device."
    case .differentHousehold: "Join this household again, or open the other household."
    case .tooLarge: "Sync from another device, or contact support with the file."
    case .clockSkew: "Check the date and time settings of this device."
    case .locked: "Close the other copy of the app, then try again."
    case .householdNotCreatedOnCache: "Join the household from another device."
    case .suspended: "Open the app again; its changes are saved then."
    }
  }
}
