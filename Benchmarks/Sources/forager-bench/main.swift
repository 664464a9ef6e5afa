import Foundation

/// Prints a line at once, even into a pipe, so long runs show progress.
func say(_ line: String = "") {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let usage = """
  usage: forager-bench list
         forager-bench [run] [--filter <substring>] [--quick | --smoke] [--json <file>]

    --quick   every benchmark in under a minute (release build): 3 timed runs after a
              warm-up, 7 for a row whose first run takes under 50 ms, 1 for a row whose
              first run takes a second or more
    --smoke   n = 100, one timed run: checks that the benchmarks still work, times nothing
    --json    also write {"results": [...], "comparisons": [...]} to <file>
  """

var arguments = Array(CommandLine.arguments.dropFirst())
// The child process of the memory.load rows (see CodecBenchmarks.loadingOverhead(of:)).
if arguments.count == 2, arguments[0] == CodecBenchmarks.loadProbeArgument {
  say(String(CodecBenchmarks.measureLoading(arguments[1])))
  exit(0)
}
if arguments.first == "run" { arguments.removeFirst() }
var filter: String?
var mode = "full"
var jsonPath: String?
var listOnly = false
while let argument = arguments.first {
  arguments.removeFirst()
  switch argument {
  case "list": listOnly = true
  case "--quick": mode = "quick"
  case "--smoke": mode = "smoke"
  case "--filter" where !arguments.isEmpty: filter = arguments.removeFirst()
  case "--json" where !arguments.isEmpty: jsonPath = arguments.removeFirst()
  case "--help", "-h":
    say(usage)
    exit(0)
  default:
    FileHandle.standardError.write(
      Data("forager-bench: unknown argument \(argument)\n\(usage)\n".utf8))
    exit(2)
  }
}

let sizes = mode == "smoke" ? [100] : [1_000, 10_000, 100_000]
let mixedSizes = mode == "smoke" ? [100] : (mode == "quick" ? [100_000] : [1_000, 10_000, 100_000])
let codec = CodecBenchmarks.all(sizes: sizes, mixedSizes: mixedSizes)
let benchmarks =
  (SetBenchmarks.all(sizes: sizes) + HouseholdBenchmarks.all(sizes: sizes) + codec.rows
  + StoreBenchmarks.all(sizes: sizes) + SyncBenchmarks.all(sizes: sizes))
  .filter { filter == nil || $0.name.contains(filter!) }
// Compared at the largest size only: its rounds are what the targets read.
let comparisons = (StoreBenchmarks.comparisons(sizes: [sizes.last!]) + codec.comparisons)
  .filter { filter == nil || $0.name.contains(filter!) }

if listOnly {
  for benchmark in benchmarks { say("\(benchmark.name)\t\(benchmark.n)") }
  for comparison in comparisons { say("\(comparison.name)\t\(comparison.n)") }
  exit(0)
}

#if DEBUG
  say("note: a debug build; figures mean nothing (use swift run -c release)")
#endif
say("mode \(mode), \(ProcessInfo.processInfo.activeProcessorCount) cores")
say(
  "name".padding(toLength: 26, withPad: " ", startingAt: 0)
    + "n".padding(toLength: 8, withPad: " ", startingAt: 0)
    + "median      min         max         bytes")
var results: [Result] = []
for benchmark in benchmarks {
  let runs = mode == "smoke" ? 1 : (mode == "quick" ? 3 : (benchmark.n >= 100_000 ? 5 : 10))
  let result = benchmark.run(
    runs, mode == "quick" ? .seconds(1) : nil,
    mode == "quick" ? (below: .milliseconds(50), runs: 7) : nil)
  results.append(result)
  let columns = [result.median_ns, result.min_ns, result.max_ns].map {
    format(nanoseconds: $0).padding(toLength: 12, withPad: " ", startingAt: 0)
  }
  say(
    result.name.padding(toLength: 26, withPad: " ", startingAt: 0)
      + label(result.n).padding(toLength: 8, withPad: " ", startingAt: 0) + columns.joined()
      + (result.bytes.map(String.init) ?? ""))
}

var compared: [ComparisonResult] = []
if !comparisons.isEmpty {
  say("\nalternating rounds (ratio of the two times in each round; the median round's times):")
  for comparison in comparisons {
    let result = comparison.run(mode == "smoke" ? 1 : (mode == "quick" ? 5 : 11))
    compared.append(result)
    say(
      "  \(result.name) at n = \(label(result.n)): "
        + String(
          format: "median %.2f×, min %.2f×, max %.2f×", result.median_ratio, result.min_ratio,
          result.max_ratio)
        + " (\(result.median_round_ns.map { format(nanoseconds: $0) }.joined(separator: " / ")))")
  }
}

// Ratios of Foundation to our codec, same state, same run.
var ratioLines: [String] = []
for suffix in ["", ".mixed"] {
  for operation in ["save", "load"] {
    let ours = results.filter { $0.name == "codec.\(operation)\(suffix)" }
    for row in ours {
      guard
        let theirs = results.first(where: {
          $0.name == "foundation.\(operation)\(suffix)" && $0.n == row.n
        })
      else { continue }
      ratioLines.append(
        String(
          format: "%@ at n = %@: codec %@, Foundation %@, %.1f× faster", "\(operation)\(suffix)",
          label(row.n),
          format(nanoseconds: row.median_ns), format(nanoseconds: theirs.median_ns),
          Double(theirs.median_ns) / Double(max(row.median_ns, 1))))
    }
  }
}
if !ratioLines.isEmpty {
  say("\ncodec against JSONEncoder/JSONDecoder (medians):")
  for line in ratioLines { say("  " + line) }
}

// The performance targets (docs/benchmarks.md), checked against this run's figures at n = 100k.
@MainActor func row(_ name: String, _ n: Int = 100_000) -> Result? {
  results.first { $0.name == name && $0.n == n }
}
var targetLines: [String] = []
@MainActor func target(
  _ text: String, _ measured: Double?, limit: Double, atMost: Bool, unit: String
) {
  guard let measured else { return }
  let met = atMost ? measured <= limit : measured >= limit
  let figure = String(format: "%.2f %@", measured, unit)
  targetLines.append("  \(met ? "met   " : "MISSED") \(text): \(figure)")
}
let milliseconds = { (name: String) in row(name).map { Double($0.median_ns) / 1e6 } }
let microseconds = { (name: String) in row(name).map { Double($0.median_ns) / 1e3 } }
target("orset.merge ≤ 40 ms", milliseconds("orset.merge"), limit: 40, atMost: true, unit: "ms")
if let set = row("orset.merge"), let plain = row("baseline.dictionary.merge") {
  target(
    "orset.merge ≤ 1.5× baseline.dictionary.merge",
    Double(set.median_ns) / Double(max(plain.median_ns, 1)), limit: 1.5, atMost: true, unit: "×")
}
if let set = row("orset.merge"), let bytes = set.bytes {
  target(
    "ORSet bytes per element ≤ 40", Double(bytes) / Double(set.n), limit: 40, atMost: true,
    unit: "bytes")
}
target(
  "household.lookup ≤ 1 µs", microseconds("household.lookup"), limit: 1, atMost: true, unit: "µs")
target(
  "household.getOrCreate.existing ≤ 2 µs", microseconds("household.getOrCreate.existing"),
  limit: 2, atMost: true, unit: "µs")
target(
  "delta.size (delta(since:) of 100 edits) ≤ 1 ms", milliseconds("delta.size"), limit: 1,
  atMost: true, unit: "ms")
if let bytes = row("delta.size")?.bytes {
  target("delta.size on a wire ≤ 4 KB", Double(bytes) / 1024, limit: 4, atMost: true, unit: "KiB")
}
target("delta.apply ≤ 1 ms", milliseconds("delta.apply"), limit: 1, atMost: true, unit: "ms")
if let delta = row("delta.json")?.bytes, let state = row("state.size")?.bytes {
  target(
    "delta.json ≤ 1% of state.size (both JSON)", 100 * Double(delta) / Double(max(state, 1)),
    limit: 1,
    atMost: true, unit: "%")
}
for suffix in ["", ".mixed"] {
  for operation in ["save", "load"] {
    if let ours = row("codec.\(operation)\(suffix)"),
      let theirs = row("foundation.\(operation)\(suffix)")
    {
      // The mixed load is also compared in alternating rounds, below.
      let how = (operation, suffix) == ("load", ".mixed") ? ", rows' medians" : ""
      target(
        "codec.\(operation)\(suffix) ≥ 10× foundation.\(operation)\(suffix)\(how)",
        Double(theirs.median_ns) / Double(max(ours.median_ns, 1)), limit: 10, atMost: false,
        unit: "×")
    }
  }
}
for suffix in ["", ".mixed"] {
  // Thousandths of the file's size; see CodecBenchmarks.loadingOverhead(of:).
  if let overhead = row("memory.load\(suffix)")?.bytes, overhead > 0 {
    target(
      "memory.load\(suffix) ≤ 1.2× the file's size", Double(overhead) / 1000, limit: 1.2,
      atMost: true, unit: "×")
  }
}
target(
  "store.save.edit ≤ 2 ms", milliseconds("store.save.edit"), limit: 2, atMost: true, unit: "ms")
if let edit = row("store.save.edit"), let save = row("codec.save") {
  target(
    "store.save.edit ≥ 100× faster than codec.save",
    Double(save.median_ns) / Double(max(edit.median_ns, 1)), limit: 100, atMost: false, unit: "×")
}
if let open = row("store.open.journal"), let load = row("codec.load") {
  target(
    "store.open.journal (1,000 edits) ≤ 1.2× codec.load, rows' medians",
    Double(open.median_ns) / Double(max(load.median_ns, 1)), limit: 1.2, atMost: true, unit: "×")
}
if let rounds = compared.first(where: {
  $0.name == "store.open.journal / codec.load" && $0.n == 100_000
}) {
  target(
    "store.open.journal (1,000 edits) ≤ 1.2× codec.load, alternating rounds",
    rounds.median_ratio, limit: 1.2, atMost: true, unit: "×")
}
if let rounds = compared.first(where: {
  $0.name == "foundation.load.mixed / codec.load.mixed" && $0.n == 100_000
}) {
  target(
    "codec.load.mixed ≥ 10× foundation.load.mixed, alternating rounds", rounds.median_ratio,
    limit: 10, atMost: false, unit: "×")
}
target(
  "sync.message (the delta of 100 edits) ≤ 1 ms", milliseconds("sync.message"), limit: 1,
  atMost: true, unit: "ms")
target("sync.receive ≤ 1 ms", milliseconds("sync.receive"), limit: 1, atMost: true, unit: "ms")
for name in ["sync.encode", "sync.decode"] {
  target(
    "\(name) (the delta of 100 edits) ≤ 1 ms", milliseconds(name), limit: 1, atMost: true,
    unit: "ms")
}
for name in ["sync.message", "sync.message.fields", "sync.message.relaunched"] {
  if let bytes = row(name)?.bytes {
    target("\(name) ≤ 4 KB", Double(bytes) / 1024, limit: 4, atMost: true, unit: "KiB")
  }
}
if let bytes = row("sync.message.equal")?.bytes {
  // A message without a state: sender, recipient, household and three numbers.
  target(
    "sync.message.equal carries no state (≤ 256 bytes)", Double(bytes), limit: 256,
    atMost: true, unit: "bytes")
}
target(
  "household.receive ≤ 300 ms", milliseconds("household.receive"), limit: 300, atMost: true,
  unit: "ms")
if !targetLines.isEmpty {
  say("\ntargets at n = 100k:")
  for line in targetLines { say(line) }
}

StoreBenchmarks.removeFiles()

if let jsonPath {
  struct Output: Codable {
    let results: [Result]
    let comparisons: [ComparisonResult]
  }
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
  try encoder.encode(Output(results: results, comparisons: compared)).write(
    to: URL(fileURLWithPath: jsonPath))
}
