import CRDTTestSupport
import ForagerSync
import ForagerTestSupport
import Foundation
import SemanticCRDT
import SemanticCRDTJSON
import SharedSupport
import Testing

@testable import ForagerPersistence

/// Files over a megabyte, read with a second core, have their content's checksum computed on
/// it while the content is read, over the range the content takes when it is the file's last member. These
/// tests hold that path to the same answers as the small-file path.
@Suite struct LargeReplicaFileTests {
  static let file = URL(fileURLWithPath: "/tmp/large.forager.json")

  /// A replica whose file is over the concurrent checksum's threshold.
  static let replica: HouseholdReplica = {
    var replica = HouseholdReplica(
      joining: RandomHousehold.household, member: RandomHousehold.owner, replica: "phone",
      wallClock: .fixed(1_733_788_800_000))
    for index in 0..<4_000 { _ = try! replica.getOrCreateCategory(displayName: "Aisle \(index)") }
    return replica
  }()

  static var bytes: [UInt8] { ReplicaFileFormat.encode(ReplicaFileContents(replica)) }

  @Test func readsALargeFile() throws {
    let bytes = Self.bytes
    #expect(bytes.count > 1 << 20, "the file must take the concurrent path")
    #expect(
      try ReplicaFileFormat.decode(bytes, file: Self.file, cores: .two).state == Self.replica.state)
  }

  @Test func findsDamageInTheMiddleOfALargeFile() {
    var bytes = Self.bytes
    let middle = bytes[(bytes.count / 2)...].firstIndex(of: UInt8(ascii: "A"))!
    bytes[middle] = UInt8(ascii: "B")
    #expect {
      try ReplicaFileFormat.decode(bytes, file: Self.file, cores: .two)
    } throws: { error in
      guard case .checksumMismatch = (error as? StoreError)?.problem else { return false }
      return true
    }
  }

  /// Whitespace after the content, or a member after it, moves the content's end away from
  /// where the concurrent checksum assumed it: the load checksums the real range instead.
  @Test func readsLargeFilesLaidOutDifferently() throws {
    let bytes = Self.bytes
    let content = ReplicaFileBytes.content(of: bytes)
    let label = CRC32.label(CRC32.checksum(content))
    let layouts: [[UInt8]] = [
      Array(bytes.dropLast()) + Array(" \n}\n".utf8),
      Array(#"{"format":\#(ReplicaFileFormat.current),"content":"#.utf8) + content
        + Array(#","checksum":"\#(label)"}"#.utf8),
      Array(#"{"format":\#(ReplicaFileFormat.current),"checksum":"\#(label)","content":"#.utf8)
        + content
        + Array(" , \"extra\":1}".utf8),
    ]
    for (index, layout) in layouts.enumerated() {
      if index < 2 {
        #expect(
          try ReplicaFileFormat.decode(layout, file: Self.file, cores: .two).state
            == Self.replica.state)
      } else {
        // An unknown top-level member is refused, as in a small file.
        #expect(throws: StoreError.self) {
          try ReplicaFileFormat.decode(layout, file: Self.file, cores: .two)
        }
      }
    }
  }

  /// A file of many records read with two cores has half of them checked on the second, and a
  /// forged record is refused as on one core.
  @Test(arguments: [Cores.one, .two])
  func aForgedRecordInAFileOfManyIsRefusedOnEitherCount(cores: Cores) throws {
    var replica = Self.replica
    for index in 4_000..<20_000 {
      _ = try replica.getOrCreateCategory(displayName: "Aisle \(index)")
    }
    var state = replica.state
    let aisle = try #require(state.categories[CategoryKey(normalizing: "Aisle 7")])
    _ = state.categories.set(CategoryKey(rawValue: "not its key"), to: aisle, by: "phone")
    let forged = HouseholdReplica(state: state, member: replica.member, clock: replica.clock)
    let bytes = ReplicaFileFormat.encode(ReplicaFileContents(forged))
    #expect {
      try ReplicaFileFormat.decode(bytes, file: Self.file, cores: cores)
    } throws: { error in
      guard case .unsound(let problems) = (error as? StoreError)?.problem else { return false }
      return Set(problems) == [
        "category aisle 7 stored under not its key",
        "categories aisle 7 and not its key both have the semantic key aisle 7",
      ]
    }
  }
}
