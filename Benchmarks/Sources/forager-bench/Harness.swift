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
