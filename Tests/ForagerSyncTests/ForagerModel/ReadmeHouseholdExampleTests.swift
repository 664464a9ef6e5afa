import ForagerSync
import Testing

/// The README's household example, line for line.
@Test func readmeHouseholdExampleConverges() throws {
  let home = HouseholdID()
  let sam = MemberID()
  var phone = HouseholdReplica.create(household: home, owner: sam, ownerName: "Sam")
  var tablet = HouseholdReplica(joining: home, member: sam)

  try phone.getOrCreateCategory(displayName: "Produce")
  try tablet.getOrCreateCategory(displayName: "  produce ")

  try tablet.merge(phone.state)
  try phone.merge(tablet.state)
  #expect(phone.categories().count == 1)
  #expect(tablet.categories().count == 1)
  #expect(phone.state == tablet.state)
}
