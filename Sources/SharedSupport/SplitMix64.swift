/// A small, fast, seeded pseudo-random generator (Steele, Lea, Flood, 2014): the same seed
/// gives the same sequence on every platform, so property cases and simulations replay from
/// their seed. Not for anything secret.
public struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// Creates a generator whose whole output is determined by `seed`.
  public init(seed: UInt64) {
    state = seed
  }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A uniform integer in `range`.
  public mutating func int(in range: ClosedRange<Int>) -> Int {
    Int.random(in: range, using: &self)
  }

  /// A uniform integer in `range`.
  public mutating func int(in range: Range<Int>) -> Int {
    Int.random(in: range, using: &self)
  }

  /// `true` with probability `probability`.
  public mutating func chance(_ probability: Double) -> Bool {
    Double.random(in: 0..<1, using: &self) < probability
  }

  /// A uniformly chosen element of a non-empty collection.
  public mutating func pick<C: Collection>(_ collection: C) -> C.Element {
    collection.randomElement(using: &self)!
  }
}
