import Foundation

/// What a person reads: a sentence that names records by their names where the error carries
/// them, never by identifier, and what to do about it. ``HouseholdError/description`` keeps
/// the identifiers, for logs.
extension HouseholdError: LocalizedError {
  public var errorDescription: String? {
    switch self {
    case .differentHousehold: "This data belongs to another household."
    case .clockSkew: "Another device's clock is too far ahead of this one's."
    case .notOwner(_, let action): "Only the household's owner can \(action)."
    case .ownerCannotLeave: "The household's owner cannot leave it."
    case .notAMember: "That person is not in this household."
    case .householdDissolved: "This household was dissolved."
    case .newerNormalizer: "This data was saved by a newer version of the app."
    case .unknownRecipe: "That recipe no longer exists."
    case .unknownList: "That list no longer exists."
    case .unknownMealPlan: "That meal plan no longer exists."
    case .unknownItem: "That item is no longer on a list."
    case .unknownIngredient(let key): "There is no ingredient “\(key.rawValue)”."
    case .slotOccupied(let slot, _, let title):
      "\(slot.day) \(slot.mealType.rawValue) already has “\(title)”."
    case .emptySlot(let slot): "Nothing is planned for \(slot.day) \(slot.mealType.rawValue)."
    case .ingredientRenameChangesKey(let name, let key, _):
      "“\(name)” is a different ingredient from “\(key.rawValue)”."
    case .notRecordOwner:
      "Only the person who added this, or the household's owner, can change who sees it."
    case .fixedSharingScope: "Everyone in the household always sees its members."
    case .blankName: "A name needs at least one visible character."
    case .unknownCategory(let key): "There is no category “\(key.rawValue)”."
    case .categoryNameTaken(let name, _): "A category named “\(name)” already exists."
    case .claimsUnmadeWrites: "Data from another device claims changes this device never made."
    case .implausibleClaim: "Data from another device claims more changes than any device makes."
    case .unsoundMerge: "Data from another device is damaged."
    case .massRemoval(let removed, let live):
      "Data from another device would delete \(removed) of \(live) records."
    case .removesOwnerOrEveryMember:
      "Data from another device would remove the household's owner or every member."
    case .tooManyReplicas: "Data from another device names too many devices."
    case .tooManyIntervals: "Data from another device describes its history in too many pieces."
    case .deltaSkipsChanges:
      "Changes from another device arrived out of order; they will be sent again."
    case .unknownRemoval: "Those deleted records can no longer be restored."
    case .unsoundRestore: "Those records cannot be restored alone."
    case .invalidValue(let field, let value, _): "“\(value)” is not a possible \(field)."
    }
  }

  public var recoverySuggestion: String? {
    switch self {
    case .differentHousehold: "Sync only with devices of this household."
    case .clockSkew: "Check the date and time settings on both devices, then sync again."
    case .notOwner: "Ask the household's owner to do it."
    case .ownerCannotLeave: "Dissolve the household instead, or hand it to another member first."
    case .notAMember, .unknownRecipe, .unknownList, .unknownMealPlan, .unknownItem,
      .unknownIngredient, .unknownCategory, .emptySlot:
      "Refresh: another device may have deleted it."
    case .householdDissolved: "Create a new household or join another one."
    case .newerNormalizer: "Update the app on this device."
    case .slotOccupied: "Choose another slot, or replace the meal that is there."
    case .ingredientRenameChangesKey: "Add it as a new ingredient instead."
    case .notRecordOwner: "Ask the person who added it, or the household's owner."
    case .fixedSharingScope: "Remove the member instead, if they should no longer see anything."
    case .blankName: "Type a name with letters, digits or symbols."
    case .categoryNameTaken: "Choose another name, or use the existing category."
    case .claimsUnmadeWrites, .implausibleClaim, .unsoundMerge, .tooManyReplicas,
      .tooManyIntervals:
      "Nothing was changed. Update the app on the other device, or sync from a device whose data is intact."
    case .massRemoval, .removesOwnerOrEveryMember:
      "Nothing was changed. If this was intended, confirm it on this device."
    case .deltaSkipsChanges: "Nothing was changed. Sync again: the other device sends them again."
    case .unknownRemoval: "It may have expired or been restored already."
    case .unsoundRestore: "Restore the records they refer to first."
    case .invalidValue(_, _, let allowed): "Use \(allowed)."
    }
  }
}
