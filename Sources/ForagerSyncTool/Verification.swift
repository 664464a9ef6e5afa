import ForagerSync
import Foundation

/// `forager-sync verify`: a file is sound when it reads (format, checksum, shape) and its state
/// keeps the model's invariants: no semantic key with two records, every key its record's own,
/// every item's template present, the causal bookkeeping consistent.
enum Verification {
  /// The problems of one file, each naming it; empty when sound.
  static func problems(of url: URL) -> [String] {
    let file: ReplicaFile
    do {
      file = try ReplicaFile.read(url)
    } catch {
      return [error.message]
    }
    var problems = file.contents.state.invariantViolations().map { "\(url.path): \($0)" }
    if file.contents.state.normalizerVersion > .current {
      problems.append(
        "\(url.path): keyed by normalizer \(file.contents.state.normalizerVersion.rawValue), newer than this build's \(NormalizerVersion.current.rawValue)"
      )
    }
    return problems
  }
}
