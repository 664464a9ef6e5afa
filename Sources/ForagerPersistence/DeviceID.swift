import Foundation

/// A device's identity among the household's devices: what its files in a shared folder are
/// named by (``ReplicaStore``'s folder publications, `SyncFolder`), minted once per device and
/// kept beside its replica file.
///
/// A device's display name cannot do this. Since iOS 16 and watchOS 9 an app sees every iPhone
/// named "iPhone" and every watch "Apple Watch", and case-insensitive file systems (APFS as
/// Apple formats it, iCloud Drive) take "Phone" and "phone" for one file: two devices writing
/// one file would each skip it as their own and overwrite each other. An id is lowercase
/// letters, digits and `-`, so two ids that differ differ in any file system; minted ones are
/// 32 random hex digits, which no two devices share.
public struct DeviceID: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The id as file names carry it.
  public let rawValue: String

  /// The id `text` spells, or `nil` unless it is 1 to 64 lowercase ASCII letters, digits and
  /// `-`, starting with a letter or digit. Tests and simulations choose readable ones.
  public init?(_ text: String) {
    let bytes = Array(text.utf8)
    guard (1...64).contains(bytes.count), bytes[0] != UInt8(ascii: "-"),
      bytes.allSatisfy({
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
          || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-")
      })
    else { return nil }
    rawValue = text
  }

  /// A fresh id: 128 random bits as 32 hex digits.
  public static func random() -> DeviceID {
    var generator = SystemRandomNumberGenerator()
    return random(using: &generator)
  }

  /// A fresh id drawn from `generator`: 128 bits as 32 hex digits.
  public static func random(using generator: inout some RandomNumberGenerator) -> DeviceID {
    let digits = (0..<2).map { _ in
      let word = String(generator.next() as UInt64, radix: 16)
      return String(repeating: "0", count: 16 - word.count) + word
    }
    return DeviceID(digits.joined())!
  }

  public var description: String { rawValue }

  public static func < (a: DeviceID, b: DeviceID) -> Bool { a.rawValue < b.rawValue }
}

extension DeviceID {
  /// The file beside the replica file at `replicaFile` that keeps the device's id:
  /// `<replica file>.device`.
  public static func fileURL(besideReplica replicaFile: URL) -> URL {
    replicaFile.deletingLastPathComponent().appendingPathComponent(
      replicaFile.lastPathComponent + ".device", isDirectory: false)
  }

  /// The id kept beside the replica file at `replicaFile`, minted and kept there when there
  /// is none yet, or when what is there is not an id (a damaged or foreign file: a device
  /// that takes a new id loses nothing, its files in a shared folder are then a departed
  /// peer's, read like any other). Call it with the replica's lock held, so that two
  /// processes never mint two ids for one device.
  ///
  /// On Apple platforms the file is excluded from backups: a backup restored onto a second
  /// device must not make two devices of one id, so a restored device mints its own.
  ///
  /// - Throws: ``StoreError`` naming the id's file when a new id cannot be written there.
  public static func stored(besideReplica replicaFile: URL) throws(StoreError) -> DeviceID {
    let file = fileURL(besideReplica: replicaFile)
    if let bytes = try? FileIO.readFile(file.path, limit: 128),
      let kept = DeviceID(
        String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .newlines))
    {
      return kept
    }
    let minted = DeviceID.random()
    var faults = FileFaults()
    do {
      try FileIO.writeAtomically(
        Array((minted.rawValue + "\n").utf8), to: file.path, faults: &faults)
    } catch {
      throw StoreError(file: file, problem: .writeFailed(error.reason))
    }
    #if canImport(Darwin)
      var excluded = URLResourceValues()
      excluded.isExcludedFromBackup = true
      var marked = file
      try? marked.setResourceValues(excluded)
    #endif
    return minted
  }
}
