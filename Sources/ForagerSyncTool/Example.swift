import ForagerSync
import Foundation

/// `forager-sync example`: two devices' replica files of one household, each changed offline,
/// for trying the other commands.
enum Example {
  static func write(into folder: URL) throws(ToolError) -> [URL] {
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    } catch {
      throw .refused("cannot create \(folder.path): \(error.localizedDescription)")
    }
    let household = HouseholdID()
    let sam = MemberID()
    let alex = MemberID()
    let tonight = SlotKey(day: CalendarDay(Date()), mealType: .dinner)
    do {
      var phone = HouseholdReplica.create(
        household: household, owner: sam, ownerName: "Sam", replica: ReplicaStore.mintReplicaID())
      try phone.addMember(alex, name: "Alex")
      var tablet = HouseholdReplica(
        joining: household, member: alex, replica: ReplicaStore.mintReplicaID())
      // Both devices launch offline: each seeds the defaults, makes its own changes.
      try phone.seedDefaultCategories()
      try tablet.seedDefaultCategories()
      try phone.getOrCreateCategory(displayName: "Snacks")
      try tablet.getOrCreateCategory(displayName: "snacks ")
      try tablet.getOrCreateCategory(displayName: "Spices")
      try phone.recordUse(ofIngredient: "2 cups flour")
      try phone.recordUse(ofIngredient: "flour")
      try tablet.recordUse(ofIngredient: "200g Flour")
      let bread = try phone.addRecipe(title: "Banana Bread").recipe.id
      let chili = try tablet.addRecipe(title: "Chili").recipe.id
      try phone.assignRecipe(bread, to: tonight)
      try tablet.assignRecipe(chili, to: tonight)
      let files = [
        folder.appendingPathComponent("phone.forager.json"),
        folder.appendingPathComponent("tablet.forager.json"),
      ]
      for (file, replica) in zip(files, [phone, tablet]) {
        var store = ReplicaStore(fileURL: file)
        try store.save(replica)
      }
      return files
    } catch let error as StoreError {
      throw .refused(error.description)
    } catch {
      throw .refused("\(error)")
    }
  }
}
