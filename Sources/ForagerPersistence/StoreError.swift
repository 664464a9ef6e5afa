import ForagerModel
import Foundation
import SemanticCRDT
import SemanticCRDTJSON

/// Why a replica file could not be read or written. It names the file; where the problem has a
/// place in the file, ``offset`` gives the byte. A load that throws leaves the file exactly as
/// it was.
public struct StoreError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What is wrong.
  public enum Problem: Equatable, Sendable {
    /// The file exists but cannot be read (permissions, a folder in its place, an I/O error).
    case unreadable(String)
    /// The bytes are not JSON, or not the file's shape: truncated, corrupted, another file.
    case malformed(JSONError)
    /// The content does not match the checksum stored with it: the file was damaged.
    case checksumMismatch(stored: String, computed: String)
    /// A newer build wrote this file; this build does not know its format.
    case newerFormat(found: Int64, supported: Int64)
    /// A format number no build ever wrote.
    case unknownFormat(Int64)
    /// The file holds another household's replica.
    case differentHousehold(expected: HouseholdID, found: HouseholdID)
    /// A newer build keyed the records with a normalizer this build does not have.
    case newerNormalizer(found: NormalizerVersion, supported: NormalizerVersion)
    /// The checksum holds but the content breaks the model's rules (a build with a bug wrote
    /// it, or the envelope and the state disagree).
    case invalidContent(JSONError)
    /// The content reads, but the household it holds is unsound (two records for one key, a
    /// reference to nothing): the first few problems.
    case unsound([String])
    /// The file is larger than the store reads (``ReplicaStore/maximumFileSize``); `size` is
    /// its size, or as much of it as was read before it grew past `limit`.
    case tooLarge(size: Int, limit: Int)
    /// The file's clock or one of its timestamps is further ahead of this device's clock than
    /// the skew bound (the device's clock is wrong, or the file is forged).
    case clockSkew(ClockSkewError)
    /// Another process holds the replica file's lock (``ReplicaFileLock``); nothing was read or
    /// written.
    case locked
    /// Saving failed; the previous file, if any, is unchanged.
    case writeFailed(String)
    /// The journal holds entries but there is no snapshot beside it: the snapshot was removed
    /// or never finished, and the entries alone are not a household.
    case journalWithoutSnapshot
    /// A line of the replica's own journal does what a merge refuses of a peer's state (removes
    /// more than half the household, or its owner): no build writes such a line, so it was
    /// forged or damaged. Nothing was applied.
    case refusedLine(sequence: UInt64, HouseholdError)
    /// No replica file, and the platform's storage is a cache the system may purge (tvOS,
    /// ``PlatformLimits/createsHouseholds``): a household is joined there, never created.
    case householdNotCreatedOnCache(PlatformLimits.Platform)
    /// The store is suspended (`HouseholdStore.suspend()`): it holds no lock and saves
    /// nothing until `HouseholdStore.resume()`.
    case suspended
  }

  /// The file.
  public let file: URL
  /// What is wrong.
  public let problem: Problem

  public init(file: URL, problem: Problem) {
    self.file = file
    self.problem = problem
  }

  /// The byte offset of the problem in the file, where it has one.
  public var offset: Int? {
    switch problem {
    case .malformed(let error), .invalidContent(let error): error.offset
    default: nil
    }
  }

  public var description: String {
    let detail: String
    switch problem {
    case .unreadable(let reason): detail = "cannot be read: \(reason)"
    case .malformed(let error): detail = "is not a replica file: \(error)"
    case .checksumMismatch(let stored, let computed):
      detail = "is damaged: its checksum says \(stored) but its content gives \(computed)"
    case .newerFormat(let found, let supported):
      detail = "was written by a newer build (format \(found); this build reads up to \(supported))"
    case .unknownFormat(let found): detail = "has format \(found), which no build writes"
    case .differentHousehold(let expected, let found):
      detail = "belongs to household \(found), not \(expected)"
    case .newerNormalizer(let found, let supported):
      detail =
        "was keyed by normalizer v\(found.rawValue); this build has up to v\(supported.rawValue)"
    case .invalidContent(let error): detail = "holds an invalid replica: \(error)"
    case .clockSkew(let error): detail = "is stamped too far ahead: \(error)"
    case .locked: detail = "is in use by another process; try again when it has finished"
    case .tooLarge(let size, let limit):
      detail = "holds \(size) bytes, more than the \(limit) a replica file may hold"
    case .unsound(let problems):
      detail = "holds an unsound household: \(problems.joined(separator: "; "))"
    case .writeFailed(let reason): detail = "could not be saved: \(reason)"
    case .journalWithoutSnapshot:
      detail = "holds changes, but the replica file it belongs beside is missing"
    case .refusedLine(let sequence, let error):
      detail = "holds line \(sequence), which no build writes: \(error)"
    case .householdNotCreatedOnCache(let platform):
      detail =
        "is missing, and on \(platform.rawValue) the app's files live in a cache the system purges: join the household from another device rather than create a second one"
    case .suspended:
      detail = "is not saved while its store is suspended: resume the store first"
    }
    return "\(file.path) \(detail)"
  }
}

extension StoreError.Problem {
  /// The problem of a file whose content a replica refused as it refuses a peer's state.
  static func refusing(_ error: HouseholdError) -> Self {
    switch error {
    case .differentHousehold(let local, let remote):
      .differentHousehold(expected: local, found: remote)
    case .newerNormalizer(let found, let supported):
      .newerNormalizer(found: found, supported: supported)
    case .clockSkew(let skew): .clockSkew(skew)
    default: .invalidContent(JSONError(.invalidValue(error.description), at: 0))
    }
  }
}
