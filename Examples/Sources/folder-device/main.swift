// One device of a household syncing through a folder that a real sync engine shares, driven
// one command at a time (each command is a launch of the app): the Syncthing pair test
// (Tests/SyncthingPair/run.sh) runs two of them, one per Syncthing instance.
//
//   folder-device <replica> create <owner-name>         a new household; prints its id and a
//                                                       member id for the other device
//   folder-device <replica> join <household> <member>   joins as that member
//   folder-device <replica> add <category>...           adds categories; prints "acknowledged
//                                                       <name>" once each is saved
//   folder-device <replica> sync <folder> <device>      merges the folder's peer files and
//                                                       publishes this device's
//   folder-device <replica> session <folder> <device> <category>...
//                                                       stays open: adds each category, prints
//                                                       "acknowledged <name>", syncs, prints
//                                                       "published line|snapshot|nothing",
//                                                       waits 1.5 s
//   folder-device <replica> follow <folder> <device> <seconds> <category>...
//                                                       stays open, syncing every half second,
//                                                       printing "merged <file> whole|journal",
//                                                       until it holds every category named
//   folder-device <replica> show                        "digest <hex>" of the household, then
//                                                       its categories, one per line
import ForagerSync
import Foundation

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("folder-device: \(message)\n".utf8))
  exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else { fail("usage: folder-device <replica> <command> [arguments]") }
let file = URL(fileURLWithPath: arguments[0])
let command = arguments[1]
let rest = Array(arguments.dropFirst(2))

/// The device's store, as a launch of the app opens it. Only `create` and `join` may find no
/// file.
func open(_ firstLaunch: HouseholdStore.FirstLaunch? = nil) async throws -> HouseholdStore {
  if firstLaunch == nil, !FileManager.default.fileExists(atPath: file.path) {
    fail("\(file.path): no replica; create or join first")
  }
  return try await HouseholdStore(
    fileURL: file,
    firstLaunch: firstLaunch ?? .createHousehold(ownerName: "never used: the file exists"))
}

/// FNV-1a of the household's canonical bytes: equal digests, equal households.
func digest(_ state: HouseholdState) -> String {
  var hash: UInt64 = 0xcbf2_9ce4_8422_2325
  for byte in JSONWriter.encode(state) {
    hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
  }
  return String(hash, radix: 16)
}

do {
  switch (command, rest.count) {
  case ("create", 1):
    let store = try await open(.createHousehold(ownerName: rest[0]))
    let member = MemberID()
    try await store.edit { try $0.addMember(member, name: "Second device") }
    try await store.flush()
    print("household \(store.householdID)")
    print("member \(member)")
  case ("join", 2):
    guard let household = UUID(uuidString: rest[0]).map(HouseholdID.init(uuid:)),
      let member = UUID(uuidString: rest[1]).map(MemberID.init(uuid:))
    else { fail("join needs a household id and a member id") }
    let store = try await open(.join(household, member: member))
    try await store.flush()
    print("joined \(store.householdID)")
  case ("add", 1...):
    let store = try await open()
    for name in rest {
      _ = try await store.edit { try $0.getOrCreateCategory(displayName: name) }
      try await store.flush()
      print("acknowledged \(name)")
    }
  case ("sync", 2):
    let store = try await open()
    let folder = store.folder(at: URL(fileURLWithPath: rest[0]), deviceName: rest[1])
    let outcome = try await store.sync(through: folder)
    try await store.flush()
    print("merged \(outcome.merged.count): \(outcome.merged.sorted().joined(separator: " "))")
    print(
      "conflicted copies \(outcome.conflictedCopies.count): \(outcome.conflictedCopies.sorted().joined(separator: " "))"
    )
    for skip in outcome.skipped { print("skipped \(skip)") }
  case ("session", 3...):
    let store = try await open()
    let folder = store.folder(at: URL(fileURLWithPath: rest[0]), deviceName: rest[1])
    for name in rest.dropFirst(2) {
      _ = try await store.edit { try $0.getOrCreateCategory(displayName: name) }
      try await store.flush()
      print("acknowledged \(name)")
      let outcome = try await store.sync(through: folder)
      try await store.flush()
      print("published \(outcome.published.map { "\($0)" } ?? "nothing")")
      try await Task.sleep(for: .milliseconds(1_500))
    }
  case ("follow", 4...):
    let store = try await open()
    let folder = store.folder(at: URL(fileURLWithPath: rest[0]), deviceName: rest[1])
    guard let seconds = Int(rest[2]) else { fail("follow needs a number of seconds") }
    let names = rest.dropFirst(3)
    let deadline = ContinuousClock.now + .seconds(seconds)
    while true {
      let outcome = try await store.sync(through: folder)
      try await store.flush()
      for entry in outcome.merged {
        print("merged \(entry) \(outcome.readWhole.contains(entry) ? "whole" : "journal")")
      }
      let replica = await store.replica
      if names.allSatisfy({ replica.category(named: $0) != nil }) { break }
      guard ContinuousClock.now < deadline else { fail("gave up after \(seconds) s") }
      try await Task.sleep(for: .milliseconds(500))
    }
    print("holds every category named")
  case ("show", 0):
    let store = try await open()
    let replica = await store.replica
    print("digest \(digest(replica.state))")
    for name in replica.categories().map(\.displayName).sorted() { print(name) }
  default:
    fail("unknown command or wrong arguments: \(command) \(rest)")
  }
} catch {
  fail("\(error)")
}
