import Foundation
import SemanticCRDT
import SemanticCRDTJSON
import Testing

/// The fast codec refuses the corrupt collections the Codable path refuses, with the same
/// reasons (it builds kernels its own way, without the Codable path's validating init).
@Suite struct FastCodecRefusalTests {
  static let context = #"{"phone":[[1,2]]}"#

  static let cases: [(json: String, reason: String)] = [
    (
      #"{"context":\#(context),"entries":[["a",[["phone",3]]]]}"#,
      "key a: live dot phone:3 not in context"
    ),
    (
      #"{"context":\#(context),"entries":[["a",[["phone",1]]],["a",[["phone",2]]]]}"#,
      "Entry 1: key a appears twice"
    ),
    (
      #"{"context":\#(context),"entries":[["a",[["phone",1]]],["b",[["phone",1]]]]}"#,
      "dot phone:1 is live twice"
    ),
    (
      #"{"context":\#(context),"entries":[["a",[["phone",1],["phone",1]]]]}"#,
      "Entry 0: key a lists a dot twice"
    ),
    (#"{"context":\#(context),"entries":[["a",[]]]}"#, "Entry 0: key a has no dots"),
  ]

  @Test func orSetsAreRefusedWithTheCodablePathsReasons() {
    for (json, reason) in Self.cases {
      do {
        _ = try JSONReader.decode(ORSet<String>.self, from: Array(json.utf8))
        Issue.record("accepted \(json)")
      } catch {
        #expect(error.problem == .invalidValue(reason), "\(json)")
      }
    }
  }

  @Test func orMapsAreRefusedWithTheSameReasons() {
    // The same shapes with a value beside each dot.
    let maps: [(String, String)] = [
      (
        #"{"context":\#(Self.context),"entries":[["a",[[["phone",1],{}]]],["a",[[["phone",2],{}]]]]}"#,
        "Entry 1: key a appears twice"
      ),
      (
        #"{"context":\#(Self.context),"entries":[["a",[[["phone",1],{}],[["phone",1],{}]]]]}"#,
        "Entry 0: key a lists a dot twice"
      ),
      (#"{"context":\#(Self.context),"entries":[["a",[]]]}"#, "Entry 0: key a has no dots"),
      (
        #"{"context":\#(Self.context),"entries":[["a",[[["phone",2],{}],[["phone",9],{}]]]]}"#,
        "key a: live dot phone:9 not in context"
      ),
    ]
    for (json, reason) in maps {
      do {
        _ = try JSONReader.decode(ORMap<String, GCounter>.self, from: Array(json.utf8))
        Issue.record("accepted \(json)")
      } catch {
        #expect(error.problem == .invalidValue(reason), "\(json)")
      }
    }
  }

  @Test func aMapWithSeveralSiblingsPerKeyRoundTrips() throws {
    let json =
      #"{"context":{"phone":[[1,3]]},"entries":[["a",[[["phone",3],{}],[["phone",1],{}]]],["b",[[["phone",2],{}]]]]}"#
    let map = try JSONReader.decode(ORMap<String, GCounter>.self, from: Array(json.utf8))
    #expect(map.writeCount(of: "a") == 2 && map.writeCount(of: "b") == 1)
  }

  /// A key's writes listed out of dot order (a file written by hand, or by another program) are
  /// read sorted, by both codecs: the same set, equal to it listed in order. Kept unsorted, two
  /// replicas holding the same writes compared unequal, and a merge's same-dots check missed.
  @Test func siblingsListedOutOfOrderAreReadSorted() throws {
    let context = #"{"phone":[[1,2]],"tablet":[[1,1]]}"#
    let set = { (order: String) in #"{"context":\#(context),"entries":[["a",\#(order)]]}"# }
    let sorted = set(#"[["phone",1],["phone",2],["tablet",1]]"#)
    for order in [
      #"[["tablet",1],["phone",2],["phone",1]]"#, #"[["phone",2],["phone",1],["tablet",1]]"#,
      #"[["phone",1],["tablet",1],["phone",2]]"#,
    ] {
      let json = set(order)
      let fast = try JSONReader.decode(ORSet<String>.self, from: Array(json.utf8))
      let codable = try JSONDecoder().decode(ORSet<String>.self, from: Data(json.utf8))
      let expected = try JSONReader.decode(ORSet<String>.self, from: Array(sorted.utf8))
      #expect(fast == expected, "\(order)")
      #expect(codable == expected, "\(order)")
      #expect(JSONWriter.encode(fast) == JSONWriter.encode(expected), "\(order)")
    }
  }
}
