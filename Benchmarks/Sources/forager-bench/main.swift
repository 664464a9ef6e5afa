import Foundation

/// Prints a line at once, even into a pipe, so long runs show progress.
func say(_ line: String = "") {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let usage = """
  usage: forager-bench list
         forager-bench [run] [--filter <substring>] [--quick | --smoke] [--json <file>]

    --quick   every benchmark once through in under a minute (release build): 3 timed runs
    --smoke   n = 100, one timed run: checks that the benchmarks still work, times nothing
    --json    also write {"results": [...]} to <file>
  """

var arguments = Array(CommandLine.arguments.dropFirst())
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
let benchmarks = CodecBenchmarks.all(sizes: sizes, mixedSizes: mixedSizes)
  .filter { filter == nil || $0.name.contains(filter!) }

if listOnly {
  for benchmark in benchmarks { say("\(benchmark.name)\t\(benchmark.n)") }
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
  let result = benchmark.run(runs)
  results.append(result)
  let columns = [result.median_ns, result.min_ns, result.max_ns].map {
    format(nanoseconds: $0).padding(toLength: 12, withPad: " ", startingAt: 0)
  }
  say(
    result.name.padding(toLength: 26, withPad: " ", startingAt: 0)
      + label(result.n).padding(toLength: 8, withPad: " ", startingAt: 0) + columns.joined()
      + (result.bytes.map(String.init) ?? ""))
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

if let jsonPath {
  struct Output: Codable { let results: [Result] }
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
  try encoder.encode(Output(results: results)).write(to: URL(fileURLWithPath: jsonPath))
}
