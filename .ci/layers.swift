// Checks that the targets form the layers docs/architecture.md draws, and that no code reaches
// past them. Run by .ci/run as
//
//   swift package dump-package | swift .ci/layers.swift docs/architecture.md
//
// - Every target of Package.swift has one row in the document's tables, and the row's
//   "depends on" cell lists exactly the target's dependencies.
// - Among the rows of the first table (the libraries and executables, bottom layer first),
//   a target depends only on targets in rows above its own: nothing depends on a layer above.
// - A source file imports only its own target's dependencies (and modules outside the
//   package): a module reached only through another dependency is a layer skipped or climbed.
import Foundation

struct Failure: Error, CustomStringConvertible {
  let description: String
}

/// A target as Package.swift declares it.
struct Target {
  let name: String
  let path: String
  let dependencies: Set<String>
}

func targets(fromDump data: Data) throws -> [Target] {
  guard
    let package = try JSONSerialization.jsonObject(with: data) as? [String: Any],
    let list = package["targets"] as? [[String: Any]]
  else { throw Failure(description: "dump-package printed no targets") }
  return try list.map { target in
    guard let name = target["name"] as? String, let type = target["type"] as? String else {
      throw Failure(description: "a target without a name or type")
    }
    let folder = type == "test" ? "Tests" : "Sources"
    let path = (target["path"] as? String) ?? "\(folder)/\(name)"
    let dependencies = (target["dependencies"] as? [[String: Any]] ?? []).compactMap {
      dependency -> String? in
      // Each is {"byName": [name, condition]}, {"target": [...]} or {"product": [...]}.
      (dependency.values.first as? [Any])?.first as? String
    }
    return Target(name: name, path: path, dependencies: Set(dependencies))
  }
}

/// A row of one of the document's tables: the targets its first cell names in backticks, and
/// the names in its "depends on" cell.
struct Row {
  let table: Int
  let position: Int
  let names: [String]
  let dependencies: Set<String>
}

func rows(fromDocument text: String, known: Set<String>) -> [Row] {
  var rows: [Row] = []
  var table = -1
  var dependsColumn: Int?
  for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
    guard line.hasPrefix("|") else {
      dependsColumn = nil
      continue
    }
    let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst()
      .map { $0.trimmingCharacters(in: .whitespaces) }
    if dependsColumn == nil {
      // A table's header: only tables with a "depends on" column are read.
      if let column = cells.firstIndex(of: "depends on") {
        dependsColumn = column
        table += 1
      } else {
        dependsColumn = -1
      }
      continue
    }
    guard let column = dependsColumn, column >= 0, column < cells.count,
      !cells[0].hasPrefix("---")
    else { continue }
    let names = cells[0].split(separator: "`", omittingEmptySubsequences: false).enumerated()
      .filter { $0.offset % 2 == 1 }.map { String($0.element) }.filter(known.contains)
    guard !names.isEmpty else { continue }
    let dependencies = cells[column] == "—" ? [] : cells[column].split(separator: ",").map {
      $0.trimmingCharacters(in: CharacterSet(charactersIn: " `"))
    }
    rows.append(Row(table: table, position: rows.count, names: names, dependencies: Set(dependencies)))
  }
  return rows
}

/// The package modules a target's Swift files import.
func imports(of target: Target, known: Set<String>) throws -> [(file: String, module: String)] {
  let pattern = try NSRegularExpression(
    pattern: #"^(?:@\w+\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)"#,
    options: .anchorsMatchLines)
  var found: [(String, String)] = []
  let files = FileManager.default.enumerator(atPath: target.path)?.compactMap { $0 as? String }
    .filter { $0.hasSuffix(".swift") } ?? []
  for file in files {
    let path = "\(target.path)/\(file)"
    let text = try String(contentsOfFile: path, encoding: .utf8)
    let range = NSRange(text.startIndex..., in: text)
    for match in pattern.matches(in: text, range: range) {
      guard let module = Range(match.range(at: 1), in: text).map({ String(text[$0]) }),
        known.contains(module)
      else { continue }
      found.append((path, module))
    }
  }
  return found
}

func check(dump: Data, document: String) throws -> [String] {
  let targets = try targets(fromDump: dump)
  let known = Set(targets.map(\.name))
  let rows = rows(fromDocument: document, known: known)
  var problems: [String] = []
  var rowOf: [String: Row] = [:]
  for row in rows {
    for name in row.names {
      if rowOf[name] != nil { problems.append("\(name) has two rows") }
      rowOf[name] = row
    }
  }
  for target in targets {
    guard let row = rowOf[target.name] else {
      problems.append("\(target.name) has no row in the document's tables")
      continue
    }
    if row.names.count != 1 {
      problems.append("\(target.name) shares its row with \(row.names.filter { $0 != target.name })")
    }
    if row.dependencies != target.dependencies {
      problems.append(
        "\(target.name): the document says it depends on \(row.dependencies.sorted()), "
          + "Package.swift on \(target.dependencies.sorted())")
    }
    if row.table == 0 {
      for dependency in target.dependencies.sorted() {
        guard let below = rowOf[dependency] else { continue }
        if below.table != 0 || below.position > row.position {
          problems.append("\(target.name) depends on \(dependency), which is drawn above it")
        }
      }
    }
    for (file, module) in try imports(of: target, known: known)
    where module != target.name && !target.dependencies.contains(module) {
      problems.append("\(file) imports \(module), which \(target.name) does not depend on")
    }
  }
  return problems
}

let arguments = CommandLine.arguments.dropFirst()
guard let documentPath = arguments.first else {
  FileHandle.standardError.write(Data("usage: swift .ci/layers.swift <architecture.md>\n".utf8))
  exit(2)
}
do {
  let problems = try check(
    dump: FileHandle.standardInput.readDataToEndOfFile(),
    document: String(contentsOfFile: documentPath, encoding: .utf8))
  guard problems.isEmpty else {
    for problem in problems {
      FileHandle.standardError.write(Data("error: layers: \(problem)\n".utf8))
    }
    exit(1)
  }
  print("layers: every target is drawn with its dependencies, and none imports past them")
} catch {
  FileHandle.standardError.write(Data("error: layers: \(error)\n".utf8))
  exit(1)
}
