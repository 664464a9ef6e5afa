import Foundation

/// Keeps a value alive so the optimizer cannot drop the work that made it.
@inline(never)
func blackHole<T>(_ value: T) {
  withExtendedLifetime(value) {}
}

/// One measured row of the results.
struct Result: Codable {
  let name: String
  let n: Int
  let median_ns: UInt64
  let min_ns: UInt64
  let max_ns: UInt64
  let bytes: Int?
}

/// A benchmark: a name, a size, and a body that is timed once per run. `prepare` runs before
/// every timed run, untimed, and hands the body its input.
struct Benchmark {
  let name: String
  let n: Int
  /// Times `runs` runs after a warm-up. A first run of `slowRun` or longer, when given, is
  /// timed and kept as the only sample: a run that long is warm enough by itself, and repeating
  /// it would blow the quick mode's budget. A first run shorter than `fastRun.below`, when
  /// given, gets `fastRun.runs` timed runs instead: short runs are the noisiest, and more of
  /// them cost little.
  let run: (_ runs: Int, _ slowRun: Duration?, _ fastRun: (below: Duration, runs: Int)?) -> Result

  /// - Parameter operations: How many operations one run of `body` makes; the figures are per
  ///   operation (the time of a run divided by it).
  init<Input>(
    _ name: String, n: Int, operations: Int = 1, prepare: @escaping () -> Input,
    bytes: ((Input) -> Int)? = nil, body: @escaping (Input) -> Void
  ) {
    self.name = name
    self.n = n
    self.run = { runs, slowRun, fastRun in
      let clock = ContinuousClock()
      var samples: [UInt64] = []
      var size: Int?
      func nanoseconds(_ elapsed: Duration) -> UInt64 {
        let total =
          UInt64(elapsed.components.seconds) * 1_000_000_000
          + UInt64(elapsed.components.attoseconds / 1_000_000_000)
        return total / UInt64(operations)
      }
      // Each run gets a fresh input, freed once the run is timed.
      func timedRun(measuringBytes: Bool = false) -> Duration {
        let input = prepare()
        if measuringBytes, let bytes { size = bytes(input) }
        return clock.measure { body(input) }
      }
      // The first run warms caches and allocators; it is not counted, but its length decides
      // how many runs follow.
      let warmUp = timedRun(measuringBytes: true)
      if let slowRun, warmUp >= slowRun {
        samples = [nanoseconds(warmUp)]
      } else {
        let count = fastRun.map { warmUp < $0.below ? max(runs, $0.runs) : runs } ?? runs
        samples = (0..<count).map { _ in nanoseconds(timedRun()) }
      }
      samples.sort()
      return Result(
        name: name, n: n, median_ns: samples[samples.count / 2], min_ns: samples.first!,
        max_ns: samples.last!, bytes: size)
    }
  }
}

/// A size given as 1k, 10k, 100k.
func label(_ n: Int) -> String {
  n >= 1000 && n % 1000 == 0 ? "\(n / 1000)k" : "\(n)"
}

func format(nanoseconds: UInt64) -> String {
  let value = Double(nanoseconds)
  switch value {
  case ..<1_000: return String(format: "%.0f ns", value)
  case ..<1_000_000: return String(format: "%.1f µs", value / 1_000)
  case ..<1_000_000_000: return String(format: "%.1f ms", value / 1_000_000)
  default: return String(format: "%.2f s", value / 1_000_000_000)
  }
}

/// Hands a timed body a value nothing else holds, to change in place: mutating it costs what it
/// costs in an app (no copy-on-write of the whole store), and the value is freed with the box,
/// after the clock has stopped, as an app's store outlives one merge. `prepare` builds a fresh
/// box for every run.
final class Unique<Value> {
  private var value: Value

  init(_ value: Value) { self.value = value }

  /// Runs `body` on the value in place.
  func update<Result>(_ body: (inout Value) -> Result) -> Result { body(&value) }
}

/// Two bodies timed in alternation, one run of each per round, and the ratio of their times in
/// each round: what drifts on a shared machine over seconds (other processes, the kernel
/// reclaiming memory) slows both sides of a round alike, where two rows measured minutes apart
/// see different machines. On the 2-core machine these figures come from, `codec.load` alone
/// read 143 to 243 ms at 100k in three runs a minute apart, so a ratio of two rows' medians
/// swung from 0.83 to 1.42 for one build.
struct Comparison {
  let name: String
  let n: Int
  let run: (_ rounds: Int) -> ComparisonResult

  /// - Parameters:
  ///   - numerator: The body whose time is divided (the row named first in `name`).
  ///   - denominator: The body it is compared with.
  init(
    _ name: String, n: Int, _ numerator: @escaping () -> Void,
    over denominator: @escaping () -> Void
  ) {
    self.name = name
    self.n = n
    self.run = { rounds in
      let clock = ContinuousClock()
      func seconds(_ body: () -> Void) -> Double {
        let elapsed = clock.measure(body).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
      }
      // A warm-up run of each, not counted.
      _ = (seconds(numerator), seconds(denominator))
      var rounds = (0..<rounds).map { round -> (numerator: Double, denominator: Double) in
        // Each side goes first in every other round, so neither always runs on a warmer cache.
        if round % 2 == 0 {
          let first = seconds(numerator)
          return (first, seconds(denominator))
        }
        let first = seconds(denominator)
        return (seconds(numerator), first)
      }
      rounds.sort { $0.numerator / $0.denominator < $1.numerator / $1.denominator }
      let middle = rounds[rounds.count / 2]
      return ComparisonResult(
        name: name, n: n, median_ratio: middle.numerator / middle.denominator,
        min_ratio: rounds.first!.numerator / rounds.first!.denominator,
        max_ratio: rounds.last!.numerator / rounds.last!.denominator,
        median_round_ns: [middle.numerator, middle.denominator].map { UInt64($0 * 1e9) })
    }
  }
}

/// The rounds of a ``Comparison``: the median, least and greatest ratio, and the two times of
/// the median round.
struct ComparisonResult: Codable {
  let name: String
  let n: Int
  let median_ratio: Double
  let min_ratio: Double
  let max_ratio: Double
  let median_round_ns: [UInt64]
}
