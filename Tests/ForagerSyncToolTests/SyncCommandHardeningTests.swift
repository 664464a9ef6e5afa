import ForagerSync
import ForagerSyncTool
import ForagerTestSupport
import Foundation
import SemanticCRDT
import Testing

@testable import ForagerPersistence

/// `forager-sync sync` writes only inside its folder and cleans up after killed saves.
@Suite("Sync command hardening")
struct SyncCommandHardeningTests {
  /// A replica file `phone.forager.json` whose device id is `phone`: its file in the folder is
  /// `phone.forager.json` too.
  func replica(in folder: TemporaryFolder) throws -> URL {
    let file = folder.file("phone.forager.json")
    try ReplicaStore.save(
      to: file,
      HouseholdReplica.create(
        household: HouseholdID(), owner: MemberID(), ownerName: "Ana", replica: "phone"))
    try Data("phone\n".utf8).write(to: DeviceID.fileURL(besideReplica: file))
    return file
  }

  /// `--name` is a name for people and the name of the device's file of an earlier build: a
  /// name with a path component is never taken as a path, and nothing is written outside the
  /// folder.
  @Test func aNameWithAPathComponentIsOnlyAName() throws {
    let root = TemporaryFolder("forager-name")
    let shared = root.file("shared")
    try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
    let replica = try replica(in: root)
    let outside = root.file("escaped.forager.json")
    try Data("a file outside the folder\n".utf8).write(to: outside)
    for name in ["../escaped", "a/b", ".hidden", "..", ""] {
      let result = SyncTool.run(["sync", shared.path, "--replica", replica.path, "--name", name])
      #expect(result.status == 0, "\(name.debugDescription): \(result)")
      #expect(result.output.contains("wrote phone.forager.json"), "\(name.debugDescription)")
      #expect(Array(snapshot(of: shared).keys) == ["phone.forager.json"])
    }
    #expect(try Data(contentsOf: outside) == Data("a file outside the folder\n".utf8))
    #expect(
      Set(snapshot(of: root.url).keys)
        == [
          "phone.forager.json", "phone.forager.json.device", ".phone.forager.json.lock",
          "escaped.forager.json",
        ])
  }

  /// A link in the shared folder at one of this device's names (a Syncthing peer syncs links)
  /// never has `sync` write through it: the file it names outside the folder stays as it was,
  /// byte for byte, and the device's own file replaces the link.
  @Test func linksAtTheDevicesNamesInTheFolderAreNeverWrittenThrough() throws {
    for name in [
      "phone.forager.json", "phone.forager.json.journal", ".phone.forager.json.k3j4.tmp",
    ] {
      let root = TemporaryFolder("forager-links")
      let shared = root.file("shared")
      try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
      let replica = try replica(in: root)
      let outside = root.file("precious.txt")
      let precious = Data("a file the syncing user can write\n".utf8)
      try precious.write(to: outside)
      for round in 1...2 {
        try? FileManager.default.removeItem(at: shared.appendingPathComponent(name))
        try FileManager.default.createSymbolicLink(
          at: shared.appendingPathComponent(name), withDestinationURL: outside)
        let result = SyncTool.run(["sync", shared.path, "--replica", replica.path])
        #expect(result.status == 0, "\(name), round \(round): \(result)")
        #expect(try Data(contentsOf: outside) == precious, "\(name), round \(round)")
      }
      let own = shared.appendingPathComponent("phone.forager.json")
      let kind =
        try FileManager.default.attributesOfItem(atPath: own.path)[.type] as? FileAttributeType
      #expect(kind == .typeRegular, "\(name)")
      #expect(try ReplicaStore(fileURL: own).read() != nil, "\(name)")
    }
  }

  /// A file whose contexts claim more writes of a replica than any device makes (the forged
  /// file that once hid a running app's writes from every peer) is reported by `verify`, which
  /// fails, and by `inspect`.
  @Test func verifyAndInspectReportClaimsNoDeviceCouldMake() throws {
    let root = TemporaryFolder("forager-claims")
    let file = try replica(in: root)
    var state = try #require(try ReplicaStore(fileURL: file).read()).state
    state.categories.merge(
      ORMap(
        kernel: DotKernel(
          entries: [:],
          context: CausalContext(replicas: ["app": CounterSet([1...Dot.maximumCounter])]))))
    var contents = try #require(try ReplicaStore(fileURL: file).read())
    contents.state = state
    try Data(ReplicaFileFormat.encode(contents)).write(to: file)
    let verified = SyncTool.run(["verify", file.path])
    #expect(verified.status != 0, "\(verified)")
    #expect(
      verified.errors.contains(
        "claims 1099511627776 writes of replica app, more than any device makes"),
      "\(verified)")
    let inspected = SyncTool.run(["inspect", file.path])
    #expect(inspected.output.contains("claims      1099511627776 writes of app"), "\(inspected)")
  }

  @Test func syncRemovesTheTemporaryFilesOfKilledSaves() throws {
    let root = TemporaryFolder("forager-leftovers")
    let shared = root.file("shared")
    try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
    let replica = try replica(in: root)
    let leftovers = [
      root.file(".phone.forager.json.k3j4.tmp"),
      shared.appendingPathComponent(".phone.forager.json.x9.tmp"),
    ]
    for file in leftovers { try Data("torn".utf8).write(to: file) }
    let result = SyncTool.run(["sync", shared.path, "--replica", replica.path])
    #expect(result.status == 0, "\(result)")
    for file in leftovers { #expect(!FileManager.default.fileExists(atPath: file.path)) }
  }

  /// A device file that a newer build wrote keeps the envelope fields this build does not know
  /// through `sync` (in the device's file and in its copy in the folder) and through `merge`.
  @Test func syncAndMergeWriteBackTheFieldsOfANewerBuild() throws {
    let root = TemporaryFolder("forager-newer")
    let shared = root.file("shared")
    try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
    let replica = try replica(in: root)
    let unknown = #""routes":{"aisles":[1,2.5,"x"]}"#
    try Data(ReplicaFileBytes.adding(field: unknown, to: Array(try Data(contentsOf: replica))))
      .write(to: replica)
    let synced = SyncTool.run(["sync", shared.path, "--replica", replica.path])
    #expect(synced.status == 0, "\(synced)")
    let merged = root.file("merged.json")
    let merging = SyncTool.run([
      "merge", replica.path, shared.appendingPathComponent("phone.forager.json").path, "--output",
      merged.path,
    ])
    #expect(merging.status == 0, "\(merging)")
    for file in [replica, shared.appendingPathComponent("phone.forager.json"), merged] {
      #expect(try ReplicaStore(fileURL: file).read()?.carriedFieldNames == ["routes"], "\(file)")
      #expect(String(decoding: try Data(contentsOf: file), as: UTF8.self).contains(unknown))
    }
  }

  /// A command that only reads a file removes its temporary files once no save can still be
  /// writing them (an hour untouched), and leaves a fresh one, which may be a save in progress.
  @Test func readingCommandsRemoveOnlyAbandonedTemporaryFiles() throws {
    let root = TemporaryFolder("forager-abandoned")
    let replica = try replica(in: root)
    for command in [
      ["inspect", replica.path], ["verify", replica.path], ["diff", replica.path, replica.path],
    ] {
      let abandoned = root.file(".phone.forager.json.old1.tmp")
      let fresh = root.file(".phone.forager.json.new1.tmp")
      try Data("torn".utf8).write(to: abandoned)
      try Data("in progress".utf8).write(to: fresh)
      try FileManager.default.setAttributes(
        [.modificationDate: Date(timeIntervalSinceNow: -2 * 60 * 60)], ofItemAtPath: abandoned.path)
      let result = SyncTool.run(command)
      #expect(result.status == 0, "\(command[0]): \(result)")
      #expect(!FileManager.default.fileExists(atPath: abandoned.path), "\(command[0])")
      #expect(FileManager.default.fileExists(atPath: fresh.path), "\(command[0])")
      try FileManager.default.removeItem(at: fresh)
    }
  }
}

@Suite("Printed names are escaped")
struct PrintedNameTests {
  @Test func controlAndBidirectionalCharactersArePrintedEscaped() throws {
    let folder = TemporaryFolder("forager-escape")
    let file = folder.file("evil\u{1B}[2Jname\u{202E}.forager.json")
    let result = SyncTool.run(["inspect", file.path])
    #expect(result.status != 0)
    #expect(result.errors.contains("evil\\u{1B}[2Jname\\u{202E}.forager.json"), "\(result.errors)")
    #expect(!result.errors.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E })
    #expect(SyncTool.escapedForTerminal("a\tb\nc\u{7}") == "a\tb\nc\\u{7}")
  }
}
