// Inlining: the order is the tie-break of timestamps with equal clocks and the order of sorts
// of ids; called across modules, each comparison paid a call besides its byte loop.

import Foundation

/// The stable identity of one replica: one device's copy of the replicated state.
///
/// A replica id is persisted with the replica's state and stamped on every write it makes: on
/// the dots of the causal types and on hybrid timestamps. Two replicas must never share an id;
/// a replica that lost unsynced state (restored from a backup, reinstalled) must take a new one
/// so that it never reissues a dot its peers have already seen.
///
/// ## Identity and order
///
/// Two ids are one id when their texts are canonically equivalent, as Swift's `String` compares
/// them: `"é"` precomposed (U+00E9) and decomposed (`"e"`, U+0301) name one replica, because
/// a file system, a sync service or a peer may hand either spelling back. Every initializer
/// keeps the text in Unicode's composed form (NFC), so an id is spelled one way whatever
/// spelling it came in, and its encodings are the same bytes.
///
/// Replica ids are totally ordered by the Unicode scalars of that composed text (which is also
/// the byte order of its UTF-8 form). The order is the last tie-break between two hybrid
/// timestamps with equal wall time and logical counter, so ties never depend on arrival order,
/// nor on how an id was spelled on the way: two spellings of one id are one place in the order.
///
/// A device takes a fresh id from ``random()`` whenever it starts from state that may be an
/// older copy of itself; every initializer that needs an id defaults to one. Literal ids are
/// for tests:
///
/// ```swift
/// let device = ReplicaID.random()   // "k2v7…": 13 characters, 64 random bits
/// let inATest: ReplicaID = "phone"
/// ```
public struct ReplicaID: Hashable, Comparable, Sendable {
  /// The id's text, in Unicode's composed form (NFC). Any non-empty string; short ids (15 UTF-8
  /// bytes or fewer) are stored inline and compare fastest.
  public let rawValue: String

  /// Creates a replica id from its text, kept in Unicode's composed form (NFC).
  ///
  /// - Parameter rawValue: The id. It must not be empty.
  /// - Complexity: O(*m*) in the text's length: a scan when it is ASCII (which is composed
  ///   already), Foundation's composition otherwise.
  public init(_ rawValue: String) {
    precondition(!rawValue.isEmpty, "A ReplicaID must not be empty")
    self.rawValue = Self.composed(rawValue)
  }

  /// `text` in Unicode's composed form (NFC). ASCII text, every id ``random()`` makes, is
  /// composed already and returned as it is.
  static func composed(_ text: String) -> String {
    var text = text
    let isASCII = text.withUTF8 { bytes in !bytes.contains { $0 >= 0x80 } }
    return isASCII ? text : composingHangul(text.precomposedStringWithCanonicalMapping)
  }

  /// `text` with each Hangul syllable of two jamo (LV) followed by a trailing consonant (T)
  /// made the one syllable of three (LVT) that Unicode's composition makes of them (the Hangul
  /// algorithm of the Unicode Standard, §3.12). Foundation on Linux leaves the two apart, so
  /// `"\u{AC00}\u{11A8}"` kept its bytes while `String` compared it equal to `"\u{AC01}"`: one
  /// id, two places in the order. Apple's Foundation composes them already, and this finds
  /// nothing to do.
  static func composingHangul(_ text: String) -> String {
    let syllables: ClosedRange<UInt32> = 0xAC00...0xD7A3
    let trailing: ClosedRange<UInt32> = 0x11A8...0x11C2
    var scalars = String.UnicodeScalarView()
    var changed = false
    for scalar in text.unicodeScalars {
      if let last = scalars.last, syllables.contains(last.value),
        (last.value - 0xAC00) % 28 == 0, trailing.contains(scalar.value),
        let syllable = Unicode.Scalar(last.value + scalar.value - 0x11A7)
      {
        scalars.removeLast()
        scalars.append(syllable)
        changed = true
      } else {
        scalars.append(scalar)
      }
    }
    return changed ? String(scalars) : text
  }

  /// Orders replica ids by the Unicode scalars of their text.
  ///
  /// - Complexity: O(*m*) where *m* is the length of the shorter id.
  @inlinable
  public static func < (lhs: ReplicaID, rhs: ReplicaID) -> Bool {
    lhs.rawValue.precedesByScalars(rhs.rawValue)
  }
}

extension ReplicaID {
  /// A new random replica id: 13 characters of base-32 (64 random bits), short enough to be
  /// stored inline. Two devices of one household picking the same id is about as likely as
  /// 10,000 sessions colliding with probability 3 × 10⁻¹².
  public static func random() -> ReplicaID {
    var generator = SystemRandomNumberGenerator()
    return random(using: &generator)
  }

  /// A new replica id drawn from `generator`: for deterministic simulations and tests.
  public static func random(using generator: inout some RandomNumberGenerator) -> ReplicaID {
    let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
    var bits = generator.next()
    var text = ""
    for _ in 0..<13 {
      text.append(alphabet[Int(bits & 31)])
      bits >>= 5
    }
    return ReplicaID(text)
  }
}

extension ReplicaID: ExpressibleByStringLiteral {
  /// Creates a replica id from a string literal.
  public init(stringLiteral value: String) {
    self.init(value)
  }
}

extension ReplicaID: CustomStringConvertible {
  /// The id's text.
  public var description: String { rawValue }
}

extension ReplicaID: Codable {
  /// Decodes a replica id from a JSON string, kept composed (NFC); an empty string is a
  /// data-corruption error.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard !text.isEmpty else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "A replica id must not be empty")
    }
    self.rawValue = Self.composed(text)
  }

  /// Encodes the replica id as a JSON string.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }
}
