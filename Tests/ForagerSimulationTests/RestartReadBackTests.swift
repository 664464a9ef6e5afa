import ForagerSync
import ForagerTestSupport
import Foundation
import SemanticCRDT
import Testing

@testable import ForagerSimulation

/// A restart with memory storage decodes the bytes its disk was saved as, and runs on the
/// saved values when they read back equal: its records then share storage with the replica
/// before the crash (and its peers), rather than being a copy of their own.
@Suite struct RestartReadBackTests {
  static func saved() throws -> HouseholdReplica {
    var phone = try RandomHousehold.newHousehold(RandomHousehold.household, devices: 1) {
      ReplicaID("d\($0)")
    }[0]
    for title in ["Tomato Soup", "Bread", "Lentil Curry"] {
      try phone.addRecipe(title: title, ingredientLines: ["2 onions", "salt"])
    }
    return phone
  }

  static func read(_ replica: HouseholdReplica) throws -> ReplicaFileContents {
    let bytes = ReplicaFileFormat.encode(ReplicaFileContents(replica))
    return try ReplicaFileFormat.decode(bytes, file: URL(fileURLWithPath: "/sim/phone.json"))
  }

  static func recipeBoxes(_ state: HouseholdState) -> [RecipeID: ObjectIdentifier] {
    var boxes: [RecipeID: ObjectIdentifier] = [:]
    state.recipes.forEachBoxedValue { boxes[$0] = ObjectIdentifier($1) }
    return boxes
  }

  @Test func whatReadsBackAsSavedRunsOnTheSavedRecords() throws {
    let disk = try Self.saved()
    let read = try Self.read(disk)
    let (contents, readBack) = Device.sharing(disk, read)
    #expect(readBack)
    #expect(contents.state == read.state)
    #expect(contents.greatestTimestampRead == read.greatestTimestampRead)
    let saved = Self.recipeBoxes(disk.state)
    #expect(saved.count == 3)
    #expect(Self.recipeBoxes(contents.state) == saved)
    // What decoding alone gives: records of their own, one more copy of the household.
    #expect(Self.recipeBoxes(read.state).allSatisfy { saved[$0.key] != $0.value })
  }

  @Test func whatReadsBackOtherwiseIsRunAndReported() throws {
    var disk = try Self.saved()
    let read = try Self.read(disk)
    try disk.addRecipe(title: "Pancakes")
    let (contents, readBack) = Device.sharing(disk, read)
    #expect(!readBack)
    #expect(contents.state == read.state)
    #expect(contents.state.recipes.count == 3)
  }
}
