import ForagerSync
import ForagerSyncTool
import Foundation
import SemanticCRDT
import SharedSupport

// A device of the multi-process folder test: it opens its replica file, makes a few random
// edits, saves them, syncs through the shared folder, and repeats. It prints each edit after
// the save that acknowledges it ("category <key>", "use <key>"), so the test knows every edit
// that must survive.
//
// usage: FolderSyncWorker <folder> <replica file> <household uuid> <member uuid> <seed> <rounds>

let arguments = CommandLine.arguments
guard arguments.count == 7, let household = UUID(uuidString: arguments[3]),
  let member = UUID(uuidString: arguments[4]), let seed = UInt64(arguments[5]),
  let rounds = Int(arguments[6])
else {
  FileHandle.standardError.write(
    Data("usage: FolderSyncWorker <folder> <file> <household> <member> <seed> <rounds>\n".utf8))
  exit(2)
}
let folder = arguments[1]
let file = URL(fileURLWithPath: arguments[2])
var random = SplitMix64(seed: seed)
let categories = [
  "Produce", "produce ", "Snacks", "SNACKS", "Spices", "Café", "Cafe\u{301}", "Baking",
]
let ingredients = ["flour", "2 cups flour", "salt", "a pinch of salt", "basil", "Tomatoes", "egg"]

func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

for _ in 0..<rounds {
  do {
    var store = ReplicaStore(fileURL: file)
    var replica = try store.open(
      household: HouseholdID(uuid: household), member: MemberID(uuid: member))
    var edits: [String] = []
    for _ in 0..<random.int(in: 1...4) {
      if random.chance(0.4) {
        let name = random.pick(categories)
        try replica.getOrCreateCategory(displayName: name)
        edits.append("category \(CategoryKey(normalizing: name).rawValue)")
      } else {
        let name = random.pick(ingredients)
        let template = try replica.recordUse(ofIngredient: name)
        edits.append("use \(template.key.rawValue)")
      }
    }
    try store.save(replica)
    edits.forEach(say)
  } catch {
    FileHandle.standardError.write(Data("edit failed: \(error)\n".utf8))
    exit(1)
  }
  let result = SyncTool.run(["sync", folder, "--replica", file.path])
  guard result.status == 0 else {
    FileHandle.standardError.write(Data("sync failed: \(result.errors)".utf8))
    exit(1)
  }
  usleep(UInt32(random.int(in: 0...20_000)))
}
