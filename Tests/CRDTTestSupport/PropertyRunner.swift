import Foundation
import SemanticCRDT
import SharedSupport

/// How many cases a property runs and which seeds: read from the environment.
///
/// - `FORAGER_PROPERTY_ITERATIONS=<n>` scales every property to `n` cases (the defaults keep
///   the whole `swift test` within a few minutes on 2 cores).
/// - `FORAGER_SEED=<n>` runs exactly the case with seed `n` (as printed by a failure).
public enum PropertyEnvironment {
  /// The number of cases, from `FORAGER_PROPERTY_ITERATIONS`, or `defaultCount`.
  public static func iterations(default defaultCount: Int) -> Int {
    ProcessInfo.processInfo.environment["FORAGER_PROPERTY_ITERATIONS"].flatMap(Int.init)
      ?? defaultCount
  }

  /// The seed to replay, from `FORAGER_SEED`.
  public static var replaySeed: UInt64? {
    ProcessInfo.processInfo.environment["FORAGER_SEED"].flatMap(UInt64.init)
  }

  /// The seeds a run without shrinking tries: the one to replay, or `regressions` first and
  /// then 0, 1, … up to ``iterations(default:)``.
  public static func seeds(regressions: [UInt64] = [], default defaultCount: Int) -> [UInt64] {
    replaySeed.map { [$0] } ?? regressions + (0..<UInt64(iterations(default: defaultCount)))
  }
}

/// A property that failed: where, how, and the smallest sequence of steps that still fails.
public struct PropertyFailure: Error, CustomStringConvertible {
  /// The property's name.
  public let property: String
  /// The seed of the failing case; `FORAGER_SEED=<seed>` replays it.
  public let seed: UInt64
  /// What went wrong on the shrunk sequence.
  public let message: String
  /// The steps of the generated case.
  public let originalLength: Int
  /// The shrunk steps, described one per line.
  public let shrunkSteps: [String]

  /// The report printed on failure.
  public var description: String {
    """
    Property "\(property)" failed with seed \(seed) (replay: FORAGER_SEED=\(seed) swift test).
    \(message)
    Shrunk from \(originalLength) to \(shrunkSteps.count) steps:
    \(shrunkSteps.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n"))
    """
  }
}

/// Runs a property over seeded random cases, shrinks the first failure and reports it.
///
/// A case is a sequence of steps drawn from the seed by `generate`; `check` runs it and returns a
/// message when the property does not hold. Regression seeds run first, then `iterations` seeds
/// derived from the property's name, unless `FORAGER_SEED` names one seed to replay.
///
/// Shrinking removes chunks of steps (halving the chunk size down to single steps) while the
/// property still fails, so the report shows a short sequence; steps must therefore stay
/// meaningful when others are removed.
///
/// - Returns: `nil` when every case holds, otherwise the shrunk failure.
public func checkProperty<Step: CustomStringConvertible>(
  _ name: String,
  iterations defaultIterations: Int,
  regressionSeeds: [UInt64] = [],
  generate: (inout SplitMix64) -> [Step],
  check: ([Step]) -> String?
) -> PropertyFailure? {
  let seeds: [UInt64]
  if let replay = PropertyEnvironment.replaySeed {
    seeds = [replay]
  } else {
    var derive = SplitMix64(seed: stableHash(name))
    let count = PropertyEnvironment.iterations(default: defaultIterations)
    seeds = regressionSeeds + (0..<count).map { _ in derive.next() }
  }
  for seed in seeds {
    var random = SplitMix64(seed: seed)
    let steps = generate(&random)
    guard let message = check(steps) else { continue }
    let (shrunk, shrunkMessage) = shrink(steps, message: message, check: check)
    let failure = PropertyFailure(
      property: name, seed: seed, message: shrunkMessage, originalLength: steps.count,
      shrunkSteps: shrunk.map(\.description))
    print(failure)
    return failure
  }
  return nil
}

/// Removes chunks of `steps` while `check` still fails.
public func shrink<Step>(
  _ steps: [Step], message: String, check: ([Step]) -> String?
) -> ([Step], String) {
  var current = steps
  var currentMessage = message
  var chunk = max(current.count / 2, 1)
  while chunk >= 1 {
    var start = 0
    var removedAny = false
    while start < current.count {
      var candidate = current
      candidate.removeSubrange(start..<min(start + chunk, current.count))
      if let failure = check(candidate) {
        current = candidate
        currentMessage = failure
        removedAny = true
      } else {
        start += chunk
      }
    }
    if !removedAny { chunk /= 2 }
  }
  return (current, currentMessage)
}

/// FNV-1a of the UTF-8 bytes: a seed base that is stable across runs and platforms (unlike
/// `Hasher`, which is randomly seeded per process).
public func stableHash(_ text: String) -> UInt64 {
  var hash: UInt64 = 0xcbf2_9ce4_8422_2325
  for byte in text.utf8 {
    hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
  }
  return hash
}
