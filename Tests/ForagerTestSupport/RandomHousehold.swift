import CRDTTestSupport
import ForagerSimulation
import ForagerSync
import Foundation
import SemanticCRDT
import SharedSupport

/// Seeded random households for codec, store and fuzz tests: several devices make random
/// edits (names with quotes, backslashes, control characters, accents and emoji included) and
/// gossip some of them, so states hold concurrent writes, removals, conflicts and counters.
public enum RandomHousehold {
  public static let household = HouseholdID(
    uuid: UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!)
  public static let owner = MemberID(
    uuid: UUID(uuidString: "00000000-0000-0000-0000-0000000000A1")!)
  /// The wall-clock time of the first device (each further device's is a few ms later).
  public static let start: UInt64 = 1_733_788_800_000

  static let names = [
    "Produce", "produce ", "Café", "Cafe\u{301}", "Snacks \"quoted\"", "back\\slash",
    "tab\there", "new\nline", "emoji 🍓", "nul\u{0}byte", "日本の食材", "</script>", "del\u{7F}",
    "2 cups Fresh Basil", "bay leaves", "a pinch of salt", "200g flour", "Frozen\u{00A0}Foods",
  ]
  static let slots = ["2024-12-10-breakfast", "2024-12-10-dinner", "2024-12-11-lunch"].map {
    SlotKey(rawValue: $0)!
  }

  /// The replicas of `devices` devices after `operations` random edits and merges.
  public static func replicas(seed: UInt64, devices: Int = 3, operations: Int = 40)
    -> [HouseholdReplica]
  {
    var random = SplitMix64(seed: seed)
    let first = HouseholdReplica.create(
      household: household, owner: owner, ownerName: "Ana", replica: "phone",
      wallClock: .fixed(start))
    var replicas = [first]
    for index in 1..<max(devices, 2) {
      var device = HouseholdReplica(
        joining: household, member: owner, replica: ReplicaID("device-\(index)"),
        wallClock: .fixed(start + UInt64(index) * 7))
      try! device.merge(first.state)
      replicas.append(device)
    }
    for _ in 0..<operations {
      let index = random.int(in: 0..<replicas.count)
      apply(randomOperation: &random, to: &replicas[index], peers: replicas)
    }
    return replicas
  }

  /// One device's state after a random run, merged with some of its peers.
  public static func state(seed: UInt64, operations: Int = 40) -> HouseholdState {
    replicas(seed: seed, operations: operations)[0].state
  }

  /// How many kinds of operation ``apply(operation:random:to:peers:)`` knows; the last merges
  /// a peer's state.
  public static let operationCount = 18

  static func apply(
    randomOperation random: inout SplitMix64, to replica: inout HouseholdReplica,
    peers: [HouseholdReplica]
  ) {
    let name = random.pick(names)
    apply(
      operation: random.int(in: 0..<operationCount), name: name, random: &random, to: &replica,
      peers: peers)
  }

  /// Operation number `operation` (below ``operationCount``) on what `name` names, its other
  /// arguments drawn from `random`; an edit the replica refuses (a name that normalizes to
  /// nothing, say) is skipped.
  public static func apply(
    operation: Int, name: String, random: inout SplitMix64, to replica: inout HouseholdReplica,
    peers: [HouseholdReplica]
  ) {
    switch operation {
    case 0: _ = try? replica.seedDefaultCategories()
    case 1:
      _ = try? replica.getOrCreateCategory(displayName: name, sortOrder: random.draw(in: -5...500))
    case 2:
      let category = replica.categories().first?.key
      if let template = try? replica.getOrCreateIngredient(named: name, category: category)
        .template,
        template.categoryKey != nil, random.chance(0.3)
      {
        // Unshelved again: a chosen `nil`, which the encodings write, unlike the default.
        try? replica.setCategory(nil, ofIngredient: template.key)
      }
    case 3: _ = try? replica.recordUse(ofIngredient: name)
    case 4: try? replica.setStaple(random.chance(0.5), ingredient: name)
    case 5:
      _ = try? replica.addRecipe(
        title: name, ingredientLines: (0..<random.int(in: 0...3)).map { _ in random.pick(names) },
        id: RecipeID(uuid: uuid(&random)))
    case 6:
      if let recipe = replica.recipes().first { try? replica.recordUse(ofRecipe: recipe.id) }
    case 7: _ = try? replica.createWeeklyList(name: name, id: WeeklyListID(uuid: uuid(&random)))
    case 8:
      if let list = replica.weeklyLists().first {
        let source: ItemSource =
          random.chance(0.3)
          ? .recipe(RecipeID(uuid: uuid(&random))) : (random.chance(0.5) ? .manual : .staple)
        _ = try? replica.addItem(
          name, to: list.id, source: source, id: GroceryItemID(uuid: uuid(&random)))
      }
    case 9:
      if let list = replica.weeklyLists().first, let item = replica.items(in: list.id).first {
        try? replica.setChecked(random.chance(0.5), item: item.id)
      }
    case 10:
      if let list = replica.weeklyLists().last { try? replica.deleteWeeklyList(list.id) }
    case 11:
      // Under an id from `random`, as every record here: a seed replays the same household.
      let plan =
        replica.mealPlans().first?.id
        ?? (try? replica.createMealPlan(name: name, id: MealPlanID(uuid: uuid(&random))))?.id
      if let recipe = random.element(of: replica.recipes()) {
        _ = try? replica.assignRecipe(
          recipe.id, to: random.pick(slots), in: random.chance(0.5) ? plan : nil,
          replacing: random.chance(0.5))
      }
    case 12: try? replica.clearSlot(random.pick(slots))
    case 13: try? replica.addMember(MemberID(uuid: uuid(&random)), name: name)
    case 14:
      if let key = replica.categories().last?.key {
        try? replica.renameCategory(key, to: name)
      }
    case 15:
      let records: [RecordKey] =
        replica.categories().map { .category($0.key) }
        + replica.ingredients().map { .ingredient($0.key) }
        + replica.recipes().map { .recipe($0.id) } + replica.weeklyLists().map { .list($0.id) }
        + replica.weeklyLists().flatMap { replica.items(in: $0.id) }.map { .item($0.id) }
        + replica.mealPlans().map { .plan($0.id) } + replica.plannedMeals().map { .meal($0.slot) }
      if let record = random.element(of: records) {
        try? replica.setSharingScope(random.chance(0.5) ? .ownerOnly : .household, of: record)
      }
    case 16: details(of: name, random: &random, on: &replica)
    default:
      _ = try? replica.merge(random.pick(peers).state)
    }
  }

  /// One edit of a detail the app's design gives a record (a recipe's times, a meal's notes, a
  /// plan's days), drawn from the one list of them, of a record `replica` shows, if it shows
  /// one of that kind.
  static func details(of name: String, random: inout SplitMix64, on replica: inout HouseholdReplica)
  {
    let edit = random.pick(DetailEdit.allCases)
    let value = DetailEdit.Value(
      count: Int64(random.int(in: 1...12)), flag: random.chance(0.5), text: name)
    if let record = random.element(of: edit.target.records(shownBy: replica)) {
      try? edit.perform(value, on: record, of: &replica)
    }
  }

  /// `count` devices of a new household: the first creates it (owner "Ana", ``owner``, so that
  /// a seeded test makes the same states in every process), the others join it as the same
  /// member and merge the first, each named by `replica` and with its own fixed clock, a
  /// millisecond apart from 1,000 ms.
  public static func newHousehold(
    _ household: HouseholdID, devices count: Int, replica: (Int) -> ReplicaID
  ) throws -> [HouseholdReplica] {
    let founder = HouseholdReplica.create(
      household: household, owner: owner, ownerName: "Ana", replica: replica(0),
      wallClock: .fixed(1_000))
    var devices = [founder]
    for index in 1..<count {
      var device = HouseholdReplica(
        joining: household, member: founder.member, replica: replica(index),
        wallClock: .fixed(1_000 + UInt64(index)))
      try device.merge(founder.state)
      devices.append(device)
    }
    return devices
  }

  public static func uuid(_ random: inout SplitMix64) -> UUID {
    let high = random.next()
    let low = random.next()
    return withUnsafeBytes(of: (high, low)) { bytes in
      UUID(
        uuid: (
          bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
          bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
        ))
    }
  }
}

extension SyncSession {
  /// The first message of a new session: the full state.
  public static func fresh(from replica: inout HouseholdReplica) -> SyncMessage {
    var session = SyncSession()
    return session.message(from: &replica)
  }
}
