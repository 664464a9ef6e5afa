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
    for (replica, claimed) in file.contents.state.implausibleClaims {
      problems.append(
        "\(url.path): claims \(claimed) writes of replica \(replica), more than any device makes: a forged state, which would make peers drop that replica's later writes"
      )
    }
    if file.contents.state.normalizerVersion > .current {
      problems.append(
        "\(url.path): keyed by normalizer \(file.contents.state.normalizerVersion.rawValue), newer than this build's \(NormalizerVersion.current.rawValue)"
      )
    }
    return problems
  }
}
