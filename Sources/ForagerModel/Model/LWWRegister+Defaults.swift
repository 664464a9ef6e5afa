import SemanticCRDT

extension LWWRegister {
  /// A field's value that its record's creator did not choose (a new item is unchecked, a new
  /// template is no staple): stamped at ``HouseholdState/genesis``, so that any write of the
  /// field wins over it.
  ///
  /// A record with a semantic key can be created on two devices at once. If each stamped its
  /// defaults with its creation, the later creation's defaults would overwrite what the other
  /// device chose (a staple flag, a category), and a person's choice would be lost to a value
  /// no one chose. Every replica writes the same default at the same stamp, so the defaults of
  /// two creations are one write.
  init(unchosen value: Value) {
    self.init(value, at: HouseholdState.genesis)
  }
}

extension LWWRegister where Value: ExpressibleByNilLiteral & Equatable {
  /// An optional field set at creation: `nil` is the unchosen default (see
  /// ``init(unchosen:)``); any other value is the creator's choice, stamped `timestamp`.
  init(_ value: Value, chosenAt timestamp: HybridTimestamp) {
    self.init(value, at: value == nil ? HouseholdState.genesis : timestamp)
  }
}
