import SharedSupport
import Testing

@testable import SemanticCRDTJSON

/// A reader finds each member's key in its table by its bytes, starting after the key before
/// it: it must find exactly the key with the same bytes, whatever the lengths, wherever two keys
/// differ and wherever the search starts.
@Suite("Finding an object's keys")
struct JSONKeysTests {
  @Test(arguments: [2_026_12_04 as UInt64, 11, 40])
  func aKeyIsFoundExactlyWhenItsBytesAreInTheTable(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    for _ in 0..<200 {
      // Keys sharing long prefixes, of lengths around the word size, the empty key included.
      let stem = String(repeating: "k", count: random.int(in: 0...17))
      var names: [String] = []
      while names.count < random.int(in: 1...12) {
        let name = stem + String((0..<random.int(in: 0...10)).map { _ in random.pick("ab") })
        if !names.contains(name) { names.append(name) }
      }
      let keys = JSONKeys(names)
      var probes = names
      for name in names {
        var bytes = Array(name.utf8)
        guard !bytes.isEmpty else { continue }
        bytes[random.int(in: 0..<bytes.count)] = UInt8(ascii: "c")
        probes.append(String(decoding: bytes, as: UTF8.self))
        probes.append(name + "a")
        probes.append(String(name.dropLast()))
      }
      for probe in probes {
        let expected = names.firstIndex(of: probe)
        var bytes = Array(probe.utf8)
        let found = bytes.withUnsafeMutableBufferPointer { key in
          keys.index(of: UnsafeBufferPointer(key), after: random.int(in: -1..<names.count))
        }
        #expect(found == expected, "\(probe.debugDescription) in \(names)")
      }
    }
  }
}
