import ForagerSync
import Foundation

/// A model of the app's first design, for `--baseline`: every record has a random UUID, a
/// merge keeps the copy of each record modified last (CloudKit's last-writer-wins record
/// policy), and get-or-create looks for an existing record in local data only.
///
/// It models exactly the parts of the household where that design went wrong: categories and
/// ingredient templates (duplicated when two offline devices create the same name), usage
/// counts (a read-modify-write of a whole record, so concurrent increments overwrite each
/// other), and planned meals (the "slot occupied" check sees only local data).
struct LegacyStore: Hashable, Sendable {
  enum Kind: Hashable, Sendable {
    case category, ingredient, recipe, meal
  }

  struct Record: Hashable, Sendable {
    let kind: Kind
    /// The name as typed; for a meal, its slot.
    var name: String
    /// The key the old repositories compared names by (they normalized, but only locally).
    var key: String
    var usageCount: UInt64 = 0
    var recipe: RecipeID?
    var deleted = false
    var modifiedAt: UInt64
    var modifiedBy: Int

    /// Whether this copy wins over `other` in a last-writer-wins merge.
    func isNewer(than other: Record) -> Bool {
      (modifiedAt, modifiedBy) > (other.modifiedAt, other.modifiedBy)
    }
  }

  private(set) var records: [UUID: Record] = [:]

  /// Keeps, for every record, the copy modified last. A join: commutative, associative,
  /// idempotent. It is not the problem; the identities are.
  mutating func merge(_ other: LegacyStore) {
    for (id, theirs) in other.records {
      if let mine = records[id], !theirs.isNewer(than: mine) { continue }
      records[id] = theirs
    }
  }

  func live(_ kind: Kind) -> [Record] {
    records.values.filter { $0.kind == kind && !$0.deleted }
  }

  private func firstLive(_ kind: Kind, key: String) -> UUID? {
    records.filter { $0.value.kind == kind && !$0.value.deleted && $0.value.key == key }
      .keys.min { $0.uuidString < $1.uuidString }
  }

  /// Get-or-create by name against local data, as the old repository did.
  @discardableResult
  mutating func getOrCreate(
    _ kind: Kind, name: String, key: String, newID: UUID, at now: UInt64, by device: Int
  ) -> UUID {
    if let existing = firstLive(kind, key: key) { return existing }
    records[newID] = Record(kind: kind, name: name, key: key, modifiedAt: now, modifiedBy: device)
    return newID
  }

  /// A usage count bumped by read-modify-write of the whole record.
  mutating func recordUse(of id: UUID, at now: UInt64, by device: Int) {
    guard var record = records[id] else { return }
    record.usageCount += 1
    record.modifiedAt = now
    record.modifiedBy = device
    records[id] = record
  }

  /// Adds a recipe under its own id.
  mutating func addRecipe(_ id: RecipeID, title: String, at now: UInt64, by device: Int) {
    records[id.uuid] = Record(
      kind: .recipe, name: title, key: title, modifiedAt: now, modifiedBy: device)
  }

  /// Assigns a recipe to a slot unless local data shows it occupied by another recipe.
  mutating func assign(
    _ recipe: RecipeID, to slot: SlotKey, replacing: Bool, newID: UUID, at now: UInt64,
    by device: Int
  ) {
    if let existing = firstLive(.meal, key: slot.rawValue) {
      guard replacing || records[existing]?.recipe == recipe else { return }
      records[existing]?.recipe = recipe
      records[existing]?.modifiedAt = now
      records[existing]?.modifiedBy = device
      return
    }
    var meal = Record(
      kind: .meal, name: slot.rawValue, key: slot.rawValue, modifiedAt: now, modifiedBy: device)
    meal.recipe = recipe
    records[newID] = meal
  }

  /// Deletes the meals of a slot that local data knows of.
  mutating func clear(_ slot: SlotKey, at now: UInt64, by device: Int) {
    for (id, record) in records where record.kind == .meal && record.key == slot.rawValue {
      records[id]?.deleted = true
      records[id]?.modifiedAt = now
      records[id]?.modifiedBy = device
    }
  }
}
