import ForagerSync
import ForagerTestSupport
import Foundation
import Testing

// Runs processes: only where test code may start them (Package.swift).
#if RUNS_PROCESSES
  /// Every `forager-sync` command through the built binary, and every refusal: its message, its
  /// exit status, and that no file changed.
  @Suite struct ForagerSyncBinaryTests {
    static func run(_ arguments: [String]) throws -> ProcessRun {
      try ProcessRun("forager-sync", arguments)
    }

    /// A folder holding the example's two device files.
    static func example() throws -> (folder: TemporaryFolder, phone: String, tablet: String) {
      let folder = TemporaryFolder("forager-sync")
      let run = try Self.run(["example", folder.url.path])
      #expect(run.status == 0, "\(run.errors)")
      return (
        folder, folder.file("phone.forager.json").path, folder.file("tablet.forager.json").path
      )
    }

    /// A copy of `file` in `folder` whose envelope says a newer format wrote it.
    static func newerFormatCopy(of file: String, in folder: TemporaryFolder) throws -> String {
      let text = try String(contentsOfFile: file, encoding: .utf8)
      let newer = folder.file("newer.forager.json")
      let current = ReplicaFileFormat.current
      try text.replacingOccurrences(of: "\"format\":\(current)", with: "\"format\":\(current + 1)")
        .write(
          to: newer, atomically: true, encoding: .utf8)
      return newer.path
    }

    /// A damaged copy of `file`: truncated in the middle.
    static func truncatedCopy(of file: String, in folder: TemporaryFolder) throws -> String {
      let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
      let damaged = folder.file("damaged.forager.json")
      try bytes.prefix(bytes.count / 2).write(to: damaged)
      return damaged.path
    }

    @Test func inspectShowsTheFileAsTextAndJSON() throws {
      let (folder, phone, _) = try Self.example()
      let text = try Self.run(["inspect", phone])
      #expect(text.status == 0)
      for label in [
        "household", "replica", "format      \(ReplicaFileFormat.current)", "normalizer", "version",
        "records", "conflicts",
        "removed",
      ] {
        #expect(text.output.contains(label), "inspect lacks \(label)")
      }
      #expect(text.output.contains("categories 8"))
      let json = try Self.run(["inspect", phone, "--json"])
      let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
      #expect((object?["counts"] as? [String: Int])?["categories"] == 8)
      #expect((object?["format"] as? Int).map(Int64.init) == ReplicaFileFormat.current)
      _ = folder
    }

    @Test func verifyPassesSoundFilesAndNamesTheDamagedOne() throws {
      let (folder, phone, tablet) = try Self.example()
      let sound = try Self.run(["verify", phone, tablet])
      #expect(sound.status == 0)
      #expect(sound.output == "\(phone): sound\n\(tablet): sound\n")
      let damaged = try Self.truncatedCopy(of: phone, in: folder)
      let before = snapshot(of: folder.url)
      let run = try Self.run(["verify", phone, damaged])
      #expect(run.status == 1)
      #expect(
        run.errors.contains(damaged) && run.errors.contains("is not a replica file"),
        "\(run.errors)")
      #expect(snapshot(of: folder.url) == before)
    }

    @Test func diffShowsWhatEachSideLacksAndTheDeltaSizes() throws {
      let (folder, phone, tablet) = try Self.example()
      let run = try Self.run(["diff", phone, tablet])
      #expect(run.status == 0)
      #expect(run.output.contains("only in tablet.forager.json: spices"))
      #expect(run.output.contains("differs: flour:") && run.output.contains("uses ("))
      #expect(run.output.contains("delta phone.forager.json → tablet.forager.json: "))
      let same = try Self.run(["diff", phone, phone])
      #expect(
        same.output.hasPrefix("phone.forager.json and phone.forager.json hold the same state"))
      _ = folder
    }

    @Test func mergeWritesTheJoinAtomically() throws {
      let (folder, phone, tablet) = try Self.example()
      let out = folder.file("merged.forager.json")
      let run = try Self.run(["merge", phone, tablet, "-o", out.path])
      #expect(run.status == 0, "\(run.errors)")
      let merged = try #require(try ReplicaStore(fileURL: out).read()).state
      let a = try #require(try ReplicaStore(fileURL: URL(fileURLWithPath: phone)).read()).state
      let b = try #require(try ReplicaStore(fileURL: URL(fileURLWithPath: tablet)).read()).state
      var expected = a
      expected.merge(b)
      #expect(merged == expected)
      #expect(merged.categories.count == 9)  // seven defaults, snacks once, spices
    }

    @Test func mergeRefusesAnotherHouseholdAndWritesNothing() throws {
      let (folder, phone, _) = try Self.example()
      let other = try Self.example()
      let before = snapshot(of: folder.url)
      let out = folder.file("merged.forager.json")
      let run = try Self.run(["merge", phone, other.tablet, "-o", out.path])
      #expect(run.status == 1)
      #expect(run.errors.contains("belongs to household") && run.errors.contains("nothing written"))
      #expect(snapshot(of: folder.url) == before)
      #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func mergeRefusesADamagedOrNewerFileAndWritesNothing() throws {
      let (folder, phone, tablet) = try Self.example()
      let damaged = try Self.truncatedCopy(of: tablet, in: folder)
      let newer = try Self.newerFormatCopy(of: tablet, in: folder)
      let out = folder.file("merged.forager.json")
      for (input, message) in [(damaged, "is not a replica file"), (newer, "newer")] {
        let before = snapshot(of: folder.url)
        let run = try Self.run(["merge", phone, input, "-o", out.path])
        #expect(run.status == 1)
        #expect(run.errors.contains(input) && run.errors.contains(message), "\(run.errors)")
        #expect(snapshot(of: folder.url) == before)
      }
    }

    /// Every command that reads a file refuses a damaged one, a newer one and (comparing two)
    /// another household's, with status 1, a message naming the file, and no file changed.
    @Test func inspectVerifyAndDiffRefuseBadFilesAndChangeNothing() throws {
      let (folder, phone, tablet) = try Self.example()
      let damaged = try Self.truncatedCopy(of: tablet, in: folder)
      let newer = try Self.newerFormatCopy(of: tablet, in: folder)
      let other = try Self.example()
      let cases: [([String], String)] = [
        (["inspect", damaged], "is not a replica file"),
        (["inspect", newer], "newer"),
        (["verify", newer], "newer"),
        (["diff", phone, damaged], "is not a replica file"),
        (["diff", newer, phone], "newer"),
        (["diff", phone, other.tablet], "are replicas of different households"),
        (
          [
            "merge", phone, folder.file("missing.forager.json").path, "-o",
            folder.file("out.json").path,
          ], "no such file"
        ),
      ]
      for (arguments, message) in cases {
        let before = snapshot(of: folder.url)
        let run = try Self.run(arguments)
        #expect(run.status == 1, "\(arguments)")
        #expect(run.errors.contains(message), "\(arguments): \(run.errors)")
        #expect(snapshot(of: folder.url) == before, "\(arguments) changed a file")
      }
    }

    @Test func syncMergesPeersAndSkipsOddFilesWithWarnings() throws {
      let (folder, phone, tablet) = try Self.example()
      let shared = folder.file("shared")
      try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
      let other = try Self.example()
      try FileManager.default.copyItem(
        atPath: other.phone, toPath: shared.appendingPathComponent("neighbour.forager.json").path)
      let newerSource = try Self.newerFormatCopy(of: tablet, in: folder)
      try FileManager.default.copyItem(
        atPath: newerSource, toPath: shared.appendingPathComponent("future.forager.json").path)
      let odd = snapshot(of: shared)

      let first = try Self.run(["sync", shared.path, "--replica", phone])
      #expect(first.status == 0, "\(first.errors)")
      // The phone's file in the folder is named by the id minted beside its replica.
      let phoneID = try DeviceID.stored(besideReplica: URL(fileURLWithPath: phone))
      #expect(first.output.contains("wrote \(phoneID).forager.json"))
      #expect(first.errors.contains("neighbour.forager.json: a replica of household"))
      #expect(first.errors.contains("future.forager.json") && first.errors.contains("newer"))
      let second = try Self.run(["sync", shared.path, "--replica", tablet])
      #expect(second.output.contains("merged 1 file (\(phoneID).forager.json)"))
      _ = try Self.run(["sync", shared.path, "--replica", phone])
      let a = try #require(try ReplicaStore(fileURL: URL(fileURLWithPath: phone)).read()).state
      let b = try #require(try ReplicaStore(fileURL: URL(fileURLWithPath: tablet)).read()).state
      #expect(a == b)
      #expect(a.categories.count == 9)
      // The odd files were read, never written.
      for (name, bytes) in odd { #expect(snapshot(of: shared)[name] == bytes) }
    }

    @Test(arguments: [
      ([], "no command given"),
      (["fetch"], "unknown command \"fetch\""),
      (["inspect"], "expected a file"),
      (["inspect", "a.json", "b.json"], "unexpected argument \"b.json\""),
      (["merge", "a.json", "b.json"], "merge needs -o <out>"),
      (["merge", "a.json", "-o", "out.json"], "merge needs at least two files"),
      (["sync", "folder"], "sync needs --replica <file>"),
      (["diff", "a.json", "--fast"], "unknown option \"--fast\""),
      (["verify", "--json", "a.json"], "--json does not apply to this command"),
    ])
    func badArgumentsExitTwoAndChangeNothing(arguments: [String], message: String) throws {
      let (folder, _, _) = try Self.example()
      let before = snapshot(of: folder.url)
      let run = try Self.run(arguments)
      #expect(run.status == 2)
      #expect(run.errors.contains("forager-sync: \(message)"), "\(run.errors)")
      #expect(snapshot(of: folder.url) == before)
    }

    @Test func everyCommandHasHelp() throws {
      let top = try Self.run(["--help"])
      #expect(top.status == 0)
      for command in ["inspect", "verify", "diff", "merge", "sync", "example"] {
        #expect(top.output.contains("  \(command) "))
        let run = try Self.run([command, "--help"])
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("usage: forager-sync \(command)"))
        let asked = try Self.run(["help", command])
        #expect(asked.status == 0 && asked.output == run.output, "help \(command)")
        #expect(asked.output != top.output)
      }
    }
  }
#endif
