import CRDTTestSupport
import ForagerSync
import SemanticCRDT
import Testing

/// Renaming a category to a new name moves it to the new semantic key. Whatever the
/// interleaving of renames, creates and merges: every key has one record, every category is
/// found by its name, and no reference dangles.
@Suite("Category renames")
struct CategoryRenameTests {
  let home = HouseholdID()
  let sam = MemberID()

  func devices() throws -> (HouseholdReplica, HouseholdReplica) {
    var phone = HouseholdReplica.create(
      household: home, owner: sam, ownerName: "Sam", replica: "phone")
    try phone.seedDefaultCategories()
    try phone.getOrCreateIngredient(named: "cheddar", category: CategoryKey(normalizing: "Dairy"))
    var tablet = HouseholdReplica(joining: home, member: sam, replica: "tablet")
    try tablet.merge(phone.state)
    return (phone, tablet)
  }

  static let dairy = CategoryKey(normalizing: "Dairy")
  static let milk = CategoryKey(normalizing: "Milk")

  @Test func renamingOntoAnotherCategorysNameIsRefused() throws {
    var (phone, _) = try devices()
    let before = phone.state
    #expect(
      throws: HouseholdError.categoryNameTaken(
        name: "produce", by: CategoryKey(rawValue: "produce"))
    ) {
      try phone.renameCategory(Self.dairy, to: "produce")
    }
    #expect(phone.state == before)
    #expect(throws: HouseholdError.unknownCategory(CategoryKey(rawValue: "spices"))) {
      try phone.renameCategory(CategoryKey(rawValue: "spices"), to: "Herbs")
    }
    #expect(
      HouseholdError.categoryNameTaken(name: "produce", by: CategoryKey(rawValue: "produce"))
        .description
        == #"Cannot rename a category to "produce": category "produce" has that name"#)
  }

  @Test func aRenamedCategoryMovesAndReferencesFollowIt() throws {
    var (phone, _) = try devices()
    try phone.renameCategory(Self.dairy, to: "Milk")
    #expect(phone.state.categories.keys.contains(Self.milk))
    #expect(!phone.state.categories.keys.contains(Self.dairy))
    #expect(phone.categories().count == 7)
    let cheddar = try #require(phone.ingredient(named: "cheddar"))
    #expect(cheddar.categoryKey == Self.dairy)  // as written
    #expect(phone.category(try #require(cheddar.categoryKey))?.key == Self.milk)
    #expect(phone.category(named: "Dairy")?.displayName == "Milk")
    #expect(try phone.getOrCreateCategory(displayName: "dairy").created == false)
    #expect(phone.state.invariantViolations() == [])

    // Back to the old name: the category moves back, and both keys lead to it.
    try phone.renameCategory(Self.milk, to: "Dairy")
    #expect(phone.category(named: "Milk")?.key == Self.dairy)
    #expect(phone.category(Self.dairy)?.displayName == "Dairy")
    #expect(phone.state.invariantViolations() == [])
  }

  @Test func aRenameAndAConcurrentCreateOfTheNewNameBecomeOneCategory() throws {
    var (phone, tablet) = try devices()
    let dairyCreation = try #require(phone.category(Self.dairy)).createdAt
    try phone.renameCategory(Self.dairy, to: "Milk")
    try tablet.getOrCreateCategory(displayName: "milk ")
    try tablet.getOrCreateIngredient(named: "yogurt", category: Self.dairy)
    let phoneFirst = phone.state.merging(tablet.state)
    let tabletFirst = tablet.state.merging(phone.state)
    #expect(phoneFirst == tabletFirst)
    let merged = HouseholdReplica(state: phoneFirst, member: sam, clock: HybridClock(replica: "x"))
    #expect(merged.state.invariantViolations() == [])
    #expect(merged.categories().count == 7)
    let milk = try #require(merged.category(named: "milk"))
    #expect(milk.createdAt == dairyCreation)  // the earlier of the two creations
    for name in ["cheddar", "yogurt"] {
      let template = try #require(merged.ingredient(named: name))
      #expect(merged.category(try #require(template.categoryKey))?.key == Self.milk)
    }
  }

  @Test func twoRenamesOfOneCategoryLeaveOneCategoryPerNameAndReferencesFollowTheLater() throws {
    var (phone, tablet) = try devices()
    try phone.renameCategory(Self.dairy, to: "Milk")
    try tablet.renameCategory(Self.dairy, to: "Cheese")
    let merged = phone.state.merging(tablet.state)
    #expect(merged == tablet.state.merging(phone.state))
    let view = HouseholdReplica(state: merged, member: sam, clock: HybridClock(replica: "x"))
    #expect(view.state.invariantViolations() == [])
    #expect(Set(view.categories().map(\.displayName)).isSuperset(of: ["Milk", "Cheese"]))
    // The tablet renamed after the phone (its clock ticked later), so its move wins.
    #expect(view.category(named: "Dairy")?.displayName == "Cheese")
  }

  /// A seeds the defaults and syncs with B; B renames a default; C, offline since before,
  /// seeds the defaults. In every order of merges every device shows seven categories: the
  /// renamed one under its new name and no second "Produce", because seeding is no one's
  /// choice and must not bring back a key a person moved. A person's write to C's seeded
  /// record (a new position) is a choice, and it shows beside the renamed one.
  @Test func aReseededDefaultDoesNotBringBackARenamedOne() throws {
    var a = HouseholdReplica.create(
      household: home, owner: sam, ownerName: "Sam", replica: "a", wallClock: .fixed(1_000))
    var b = HouseholdReplica(joining: home, member: sam, replica: "b", wallClock: .fixed(2_000))
    var c = HouseholdReplica(joining: home, member: sam, replica: "c", wallClock: .fixed(3_000))
    try c.merge(a.state)
    try a.seedDefaultCategories()
    try b.merge(a.state)
    try b.renameCategory(CategoryKey(normalizing: "Produce"), to: "Fruit & Veg")
    try c.seedDefaultCategories()
    let shelved = try c.getOrCreateIngredient(
      named: "apples", category: CategoryKey(normalizing: "Produce")
    ).template.key
    let states = [a.state, b.state, c.state]
    for order in [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
      var device = HouseholdReplica(
        joining: home, member: sam, replica: "reader", wallClock: .fixed(4_000))
      for index in order { try device.merge(states[index], policy: .allowingAnyRemoval) }
      let names = device.categories().map(\.displayName)
      #expect(names.count == 7, "\(order): \(names)")
      #expect(!names.contains("Produce") && names.contains("Fruit & Veg"), "\(order): \(names)")
      #expect(device.category(named: "Produce")?.displayName == "Fruit & Veg", "\(order)")
      #expect(
        device.ingredient(shelved)?.categoryKey.flatMap(device.category)?.displayName
          == "Fruit & Veg", "\(order)")
      #expect(device.state.invariantViolations().isEmpty, "\(order)")
    }
    // C moves its seeded Produce: a choice, so after the merge it shows beside Fruit & Veg.
    try c.setSortOrder(3, ofCategory: CategoryKey(normalizing: "Produce"))
    try c.merge(b.state)
    #expect(c.categories().map(\.displayName).contains("Produce"))
    #expect(c.categories().count == 8)
  }

  /// Random creates, renames (to new, taken and former names), templates shelved under any
  /// key a device knows, and merges between random devices: after every merge each state is
  /// sound (one record per key, every reference resolves) and each category is found by its
  /// name; after a full exchange all devices are equal.
  @Test func renamesCreatesAndMergesInAnyInterleavingKeepKeysUnique() {
    struct Step: CustomStringConvertible {
      let device: Int
      let kind: Int
      let name: String
      let other: String
      let peer: Int
      var description: String {
        ["create \(name)", "rename \(name) → \(other)", "shelve \(name) under \(other)", "merge"][
          kind] + " on d\(device)" + (kind == 3 ? " from d\(peer)" : "")
      }
    }
    let names = ["Dairy", "Milk", "milk", "Produce", "Cheese", "Snacks", "dairy "]
    let failure = checkProperty(
      "category renames keep keys unique", iterations: PropertyEnvironment.iterations(default: 300),
      // A rename to a new name kept the old key, so the category was not found by its name.
      regressionSeeds: [16_537_180_921_011_425_181],
      generate: { random in
        (0..<random.int(in: 1...40)).map { _ in
          Step(
            device: random.int(in: 0..<3), kind: random.int(in: 0..<4), name: random.pick(names),
            other: random.pick(names), peer: random.int(in: 0..<3))
        }
      },
      check: { steps in
        let home = HouseholdID()
        let member = MemberID()
        var devices = (0..<3).map { index in
          HouseholdReplica(
            joining: home, member: member, replica: ReplicaID("d\(index)"),
            wallClock: .fixed(1_000 + UInt64(index)))
        }
        func check(_ device: HouseholdReplica, after step: String) -> String? {
          if let problem = device.state.invariantViolations().first {
            return "after \(step): \(problem)"
          }
          for category in device.categories()
          where device.category(named: category.displayName) != category {
            return "after \(step): \(category.displayName) is not found by its name"
          }
          return nil
        }
        for step in steps {
          var device = devices[step.device]
          switch step.kind {
          case 0: _ = try? device.getOrCreateCategory(displayName: step.name)
          case 1:
            try? device.renameCategory(CategoryKey(normalizing: step.name), to: step.other)
          case 2:
            _ = try? device.getOrCreateIngredient(
              named: "item \(step.name)", category: CategoryKey(normalizing: step.other))
          default:
            do { try device.merge(devices[step.peer].state) } catch {
              return "merge threw \(error)"
            }
          }
          devices[step.device] = device
          if let problem = check(device, after: step.description) { return problem }
        }
        for receiver in devices.indices {
          for sender in devices.indices where sender != receiver {
            _ = try? devices[receiver].merge(devices[sender].state)
          }
        }
        for receiver in devices.indices { _ = try? devices[receiver].merge(devices[2].state) }
        if devices.contains(where: { $0.state != devices[0].state }) {
          return "devices differ after a full exchange"
        }
        return check(devices[0], after: "the full exchange")
      })
    if let failure { Issue.record("\(failure)") }
  }
}
