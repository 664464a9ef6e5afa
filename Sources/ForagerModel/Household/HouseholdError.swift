import SemanticCRDT

/// Why a household operation or merge was refused. Nothing is applied when one is thrown.
public enum HouseholdError: Error, Hashable, Sendable {
  /// The remote state belongs to another household.
  case differentHousehold(local: HouseholdID, remote: HouseholdID)
  /// The remote state carries a timestamp too far ahead of the local clock.
  case clockSkew(ClockSkewError)
  /// Only the household's owner may do this.
  case notOwner(member: MemberID, action: String)
  /// The owner cannot leave; the owner dissolves the household instead.
  case ownerCannotLeave(MemberID)
  /// The member is not (or no longer) in the household.
  case notAMember(MemberID)
  /// The household was dissolved; it takes no more changes.
  case householdDissolved(HouseholdID)
  /// The state was keyed by normalizer rules newer than this build knows; merging it could
  /// split records this build would key differently. Update the app.
  case newerNormalizer(found: NormalizerVersion, supported: NormalizerVersion)
  /// No recipe has this id.
  case unknownRecipe(RecipeID)
  /// No weekly list has this id (or it was deleted).
  case unknownList(WeeklyListID)
  /// No meal plan has this id (or it was deleted).
  case unknownMealPlan(MealPlanID)
  /// No grocery item has this id (or it, or its list, was deleted).
  case unknownItem(GroceryItemID)
  /// No ingredient template has this canonical name.
  case unknownIngredient(IngredientKey)
  /// The slot shows another recipe; nothing was changed. Carries the slot, the recipe in it
  /// and that recipe's title. Assign with `replacing: true` to replace it.
  case slotOccupied(SlotKey, by: RecipeID, title: String)
  /// The slot shows no meal, so there is nothing to clear.
  case emptySlot(SlotKey)
  /// A template's display name may change its spelling, not the ingredient: the new name's
  /// canonical name (`becomes`) differs from the template's key. A different ingredient is a
  /// different template.
  case ingredientRenameChangesKey(name: String, key: IngredientKey, becomes: IngredientKey)
  /// Only the record's owner (the member who created it) or the household's owner may change
  /// who sees it.
  case notRecordOwner(member: MemberID, record: RecordKey)
  /// A member is always seen by the whole household: its sharing scope cannot change.
  case fixedSharingScope(RecordKey)
  /// A name that shows nothing (empty, or only white space, control or format characters)
  /// cannot name a record: its key would be empty. Carries the name as given.
  case blankName(String)
  /// No category has this key, nor was one moved away from it.
  case unknownCategory(CategoryKey)
  /// A rename would give a category the semantic key of another live category. Carries the
  /// name asked for and the category that holds its key.
  case categoryNameTaken(name: String, by: CategoryKey)
  /// The remote state claims writes of this replica beyond any it has made: it is forged or
  /// damaged. No longer thrown by merges: the writes such a claim would hide are written again
  /// first (``MergeReport/forgedClaims``, docs/decisions/0029). Kept for callers that match
  /// it.
  case claimsUnmadeWrites(ReplicaID)
  /// The state claims writes of `replica` past what any device makes (2³²), up to `claimed`,
  /// and this replica's state does not carry that claim already: it is forged. Refused at
  /// every hop, so that no honest replica relays it and no peer drops that replica's writes as
  /// already seen (docs/decisions/0029).
  case implausibleClaim(ReplicaID, claimed: UInt64)
  /// Merging would leave the household unsound (two records for one key, a reference to
  /// nothing); the problems found, the first few.
  case unsoundMerge([String])
  /// Merging would remove `removed` of this replica's `live` records, more than the
  /// ``MergePolicy`` allows.
  case massRemoval(removed: Int, live: Int)
  /// Merging would remove the owner, or every member, which the ``MergePolicy`` does not
  /// allow.
  case removesOwnerOrEveryMember
  /// Merging would give the household more replica ids than
  /// `HouseholdState.maximumReplicas`: a peer forged them.
  case tooManyReplicas(Int, maximum: Int)
  /// Merging would leave a causal context with more intervals of one replica's writes than
  /// `CausalContext.maximumIntervalsPerReplica`: a peer forged them, and every replica that
  /// merged them would keep them for good.
  case tooManyIntervals(ReplicaID, count: Int, maximum: Int)
  /// A sync message's delta starts after change `since` of the sender, past `merged`, the last
  /// this replica merged: the changes between would be missing for good once acknowledged.
  /// The sender was told a forged acknowledgment; this replica's next message tells it where
  /// to start.
  case deltaSkipsChanges(since: UInt64, merged: UInt64)
  /// No kept removal has this id (it was restored, forgotten, or expired).
  case unknownRemoval(RemovedRecords.ID)
  /// Restoring would leave the household unsound (a restored record refers to one that is
  /// gone); the problems found, the first few.
  case unsoundRestore([String])
  /// A value an edit does not take: `field`'s `value` is outside what it allows (servings of 0,
  /// a scale of a million).
  case invalidValue(field: String, value: String, allowed: String)
}

extension HouseholdError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .differentHousehold(let local, let remote):
      "Refused a state of household \(remote): this replica belongs to household \(local)"
    case .clockSkew(let error): error.description
    case .notOwner(let member, let action): "Member \(member) is not the owner and cannot \(action)"
    case .ownerCannotLeave(let member):
      "Member \(member) owns the household and cannot leave it; dissolve it instead"
    case .notAMember(let member): "Member \(member) is not in this household"
    case .householdDissolved(let household): "Household \(household) was dissolved"
    case .newerNormalizer(let found, let supported):
      "The state was keyed by normalizer version \(found.rawValue); this build supports up to \(supported.rawValue)"
    case .unknownRecipe(let id): "No recipe \(id)"
    case .unknownList(let id): "No weekly list \(id)"
    case .unknownMealPlan(let id): "No meal plan \(id)"
    case .unknownItem(let id): "No grocery item \(id)"
    case .unknownIngredient(let key): "No ingredient \(quotedForMessage(key.rawValue))"
    case .slotOccupied(let slot, let recipe, let title):
      "Slot \(slot) holds recipe \(quotedForMessage(title)) (\(recipe)); assign with replacing: true to replace it"
    case .emptySlot(let slot): "Slot \(slot) holds no meal"
    case .ingredientRenameChangesKey(let name, let key, let becomes):
      "Cannot rename ingredient \(quotedForMessage(key.rawValue)) to \(quotedForMessage(name)): that is ingredient \(quotedForMessage(becomes.rawValue))"
    case .notRecordOwner(let member, let record):
      "Member \(member) neither created \(record) nor owns the household, and cannot change who sees it"
    case .fixedSharingScope(let record): "The sharing scope of \(record) cannot change"
    case .blankName(let name):
      "A name must have a visible character; \(quotedForMessage(name)) has none"
    case .unknownCategory(let key): "No category \(quotedForMessage(key.rawValue))"
    case .categoryNameTaken(let name, let key):
      "Cannot rename a category to \(quotedForMessage(name)): category \(quotedForMessage(key.rawValue)) has that name"
    case .claimsUnmadeWrites(let replica):
      "Refused a state that claims writes of this replica (\(quotedForMessage(replica.rawValue))) it never made: it is forged or damaged"
    case .implausibleClaim(let replica, let claimed):
      "Refused a state that claims \(claimed) writes of replica \(quotedForMessage(replica.rawValue)), more than any device makes: it is forged"
    case .unsoundMerge(let problems):
      "Refused a state that would leave the household unsound: \(problems.joined(separator: "; "))"
    case .massRemoval(let removed, let live):
      "Refused a state that would remove \(removed) of \(live) records; merge it with a policy that allows this if it is intended"
    case .tooManyReplicas(let count, let maximum):
      "Refused a state that would give the household \(count) replica ids, more than the \(maximum) allowed"
    case .deltaSkipsChanges(let since, let merged):
      "Refused a delta that starts after change \(since) of the sender, past \(merged), the last this replica merged; the next message asks for the changes between"
    case .tooManyIntervals(let replica, let count, let maximum):
      "Refused a state that would leave \(count) intervals of the writes of replica \(quotedForMessage(replica.rawValue)), more than the \(maximum) allowed"
    case .unknownRemoval(let id): "No kept removal \(id)"
    case .invalidValue(let field, let value, let allowed):
      "\(field) \(value) is not \(allowed)"
    case .unsoundRestore(let problems):
      "Cannot restore these records alone: \(problems.joined(separator: "; "))"
    case .removesOwnerOrEveryMember:
      "Refused a state that would remove the owner or every member; merge it with a policy that allows this if it is intended"
    }
  }
}
