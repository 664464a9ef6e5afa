import CRDTTestSupport
import SharedSupport
import Testing

@testable import SemanticCRDTJSON

/// A reader finds each member's key in its table by its bytes, starting after the key before
/// it: it must find exactly the key with the same bytes, whatever the lengths, wherever two keys
/// differ and wherever the search starts.
@Suite("Finding an object's keys")
struct JSONKeysTests {
  /// A table's names: keys sharing long prefixes, of lengths around the word size, the empty
  /// key included.
  static func names(_ random: inout SplitMix64) -> [String] {
    let stem = String(repeating: "k", count: random.int(in: 0...17))
    var names: [String] = []
    while names.count < random.int(in: 1...12) {
      let name = stem + String((0..<random.int(in: 0...10)).map { _ in random.pick("ab") })
      if !names.contains(name) { names.append(name) }
    }
    return names
  }

  /// The names, and keys a byte away from each: one byte replaced, one added at either end,
  /// the last one dropped.
  static func probes(near names: [String], _ random: inout SplitMix64) -> [String] {
    var probes = names
    for name in names {
      probes.append(name + "a")
      probes.append("a" + name)
      probes.append(String(name.dropLast()))
      var bytes = Array(name.utf8)
      guard !bytes.isEmpty else { continue }
      bytes[random.int(in: 0..<bytes.count)] = UInt8(ascii: "c")
      probes.append(String(decoding: bytes, as: UTF8.self))
    }
    return probes
  }

  @Test(arguments: [2_026_12_04 as UInt64, 11, 40])
  func aKeyIsFoundExactlyWhenItsBytesAreInTheTable(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    for _ in 0..<200 {
      let names = Self.names(&random)
      let keys = JSONKeys(names)
      for probe in Self.probes(near: names, &random) {
        let expected = names.firstIndex(of: probe)
        var bytes = Array(probe.utf8)
        let found = bytes.withUnsafeMutableBufferPointer { key in
          keys.index(of: UnsafeBufferPointer(key), after: random.int(in: -1..<names.count))
        }
        #expect(found == expected, "\(probe.debugDescription) in \(names)")
      }
    }
  }

  /// A key written as its name between quotes is matched where it is written, without a scan:
  /// exactly the key whose bytes are there, with the quote after them, and nothing when white
  /// space comes first, when the quote never closes, or when a name of the table would need an
  /// escape.
  @Test(arguments: [2_026_12_05 as UInt64, 12, 41])
  func aKeyIsMatchedInPlaceExactlyWhenItIsWrittenPlainly(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    for _ in 0..<200 {
      let names = Self.names(&random)
      let keys = JSONKeys(names)
      let escaping = JSONKeys(names + ["q\\"])
      for probe in Self.probes(near: names, &random) {
        let expected = names.firstIndex(of: probe)
        let after = random.int(in: -1..<names.count)
        let padding = random.chance(0.3) ? " " : ""
        let ending = random.pick(["\":1", "\"", "\"}", ""])
        let text = Array((padding + "\"" + probe + ending).utf8)
        let found = text.withUnsafeBufferPointer { bytes in
          (
            keys.quotedKey(after: after, at: 0, in: bytes),
            escaping.quotedKey(after: after, at: 0, in: bytes)
          )
        }
        let plain = padding.isEmpty && !ending.isEmpty
        #expect(found.0?.index == (plain ? expected : nil), "\(text) in \(names)")
        if let end = found.0?.end {
          #expect(end == probe.utf8.count + 2, "\(text) in \(names)")
        }
        #expect(found.1 == nil, "a table with a name that needs an escape matches nothing")
      }
    }
  }

  /// An object read against a table that matches keys in place reads as it does against one
  /// that scans every key (a table with one more name, which needs an escape): the same members
  /// in the same order, or the same error at the same offset. Objects hold the table's keys
  /// written plainly or with escapes, white space, unknown keys, repeats and missing keys.
  @Test func matchingInPlaceReadsWhatScanningReads() {
    let names = ["a", "ab", "b", "name", "seeded:max", "timestamp", "value"]
    let inPlace = JSONKeys(names, optional: [1, 4])
    let scanning = JSONKeys(names + ["q\\"], optional: [1, 4, 7])
    struct Object: CustomStringConvertible {
      let text: String
      var description: String { text }
    }
    let failure = checkProperty(
      "keys matched in place", iterations: PropertyEnvironment.iterations(default: 2_000),
      generate: { random in
        (0..<4).map { _ in
          var members: [String] = []
          for index in random.shuffled(names.indices) where random.chance(0.9) {
            var key = "\"" + names[index] + "\""
            switch random.int(in: 0...9) {
            case 0: key = " " + key
            case 1: key = "\"\\u0061" + names[index].dropFirst() + "\""
            case 2: key = "\"zz\""
            case 3: key = "\"" + names[index] + "x\""
            default: break
            }
            members.append(key + (random.chance(0.1) ? " : " : ":") + "\(index)")
            if random.chance(0.05) { members.append(members.last!) }
          }
          if random.chance(0.3) { members.sort() }
          return Object(text: "{" + members.joined(separator: ",") + "}")
        }
      },
      check: { objects in
        for object in objects {
          let read = { (keys: JSONKeys) -> String in
            do throws(JSONError) {
              let bytes = Array(object.text.utf8)
              return try bytes.withUnsafeBufferPointer { bytes throws(JSONError) in
                try JSONReader.read(bytes) { reader throws(JSONError) in
                  var members: [String] = []
                  try reader.readObject(
                    keys,
                    { reader, index throws(JSONError) in
                      members.append("\(index)=\(try Int64(from: &reader))")
                    },
                    unknown: { reader, name throws(JSONError) in
                      members.append("\(name)?\(try Int64(from: &reader))")
                    })
                  return members.joined(separator: " ")
                }
              }
            } catch {
              return "error: \(error) at \(error.offset)"
            }
          }
          let (fast, slow) = (read(inPlace), read(scanning))
          if fast != slow { return "\(object): in place \(fast), scanning \(slow)" }
        }
        return nil
      })
    if let failure { Issue.record("\(failure)") }
  }
}
