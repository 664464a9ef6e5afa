import SemanticCRDT

extension HouseholdReplica {
  /// Every member, owner first, then by name.
  public func members() -> [Member] {
    state.members.values.sorted {
      ($0.role, $0.displayName, $0.id) < ($1.role, $1.displayName, $1.id)
    }
  }

  /// The household's owner.
  public var owner: MemberID? { state.owner.value }

  /// Adds a member. Only the owner may.
  public mutating func addMember(_ id: MemberID, name: String) throws(HouseholdError) {
    try requireOpen()
    try requireOwner(to: "add members")
    write(\.members, id, Member(id: id, name: name, role: .member, creation: creation()))
  }

  /// Removes a member. Only the owner may, and not themselves.
  public mutating func removeMember(_ id: MemberID) throws(HouseholdError) {
    try requireOpen()
    try requireOwner(to: "remove members")
    guard id != member else { throw .ownerCannotLeave(id) }
    guard state.members.contains(id) else { throw .notAMember(id) }
    remove(\.members, id)
  }

  /// This replica's member leaves the household. The owner cannot; the owner dissolves it.
  public mutating func leave() throws(HouseholdError) {
    try requireOpen()
    guard owner != member else { throw .ownerCannotLeave(member) }
    guard state.members.contains(member) else { throw .notAMember(member) }
    remove(\.members, member)
  }

  /// Dissolves the household: it takes no more changes on any replica that merges this.
  public mutating func dissolve() throws(HouseholdError) {
    try requireOpen()
    try requireOwner(to: "dissolve the household")
    noteWrite(
      state.dissolved.assign(true, at: clock.tick()), in: \.dissolved, showing: .household)
  }

  /// Whether the household was dissolved.
  public var isDissolved: Bool { state.dissolved.value }

  private func requireOwner(to action: String) throws(HouseholdError) {
    guard owner == member else { throw .notOwner(member: member, action: action) }
  }
}
