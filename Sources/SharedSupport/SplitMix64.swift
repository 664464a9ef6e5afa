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
  ///
  /// Every draw is made in 64 bits, whatever `Int`'s width: the standard library's
  /// `Int.random(in:using:)`, `randomElement(using:)` and `shuffled(using:)` draw in `Int`'s
  /// width, so on a 32-bit `Int` (an Apple Watch) a seed would replay differently. On a 64-bit
  /// platform these give what those give, so seeds kept before stay valid.
  public mutating func int(in range: ClosedRange<Int>) -> Int {
    Int(draw(in: Int64(range.lowerBound)...Int64(range.upperBound)))
  }

  /// A uniform integer in `range`, which must not be empty.
  public mutating func int(in range: Range<Int>) -> Int {
    int(in: range.lowerBound...(range.upperBound - 1))
  }

  /// A uniform integer in `range`, drawn in 64 bits.
  public mutating func draw(in range: ClosedRange<Int64>) -> Int64 {
    let span = UInt64(bitPattern: range.upperBound &- range.lowerBound)
    if span == .max { return Int64(bitPattern: next()) }
    return range.lowerBound &+ Int64(bitPattern: below(span + 1))
  }

  /// A uniform integer below `bound` (not 0): Lemire's multiply-and-reject, as the standard
  /// library draws a `UInt64`.
  private mutating func below(_ bound: UInt64) -> UInt64 {
    var product = next().multipliedFullWidth(by: bound)
    if product.low < bound {
      let threshold = (0 &- bound) % bound
      while product.low < threshold { product = next().multipliedFullWidth(by: bound) }
    }
    return product.high
  }

  /// `true` with probability `probability`.
  public mutating func chance(_ probability: Double) -> Bool {
    Double.random(in: 0..<1, using: &self) < probability
  }

  /// A uniformly chosen element of a non-empty collection.
  public mutating func pick<C: Collection>(_ collection: C) -> C.Element {
    element(of: collection)!
  }

  /// A uniformly chosen element of `collection`, or `nil` when it is empty.
  public mutating func element<C: Collection>(of collection: C) -> C.Element? {
    guard !collection.isEmpty else { return nil }
    return collection[
      collection.index(collection.startIndex, offsetBy: int(in: 0..<collection.count))]
  }

  /// The elements of `sequence` in a uniformly random order (a Fisher–Yates shuffle, as the
  /// standard library's, with draws in 64 bits).
  public mutating func shuffled<S: Sequence>(_ sequence: S) -> [S.Element] {
    var elements = Array(sequence)
    var amount = elements.count
    var current = 0
    while amount > 1 {
      let offset = int(in: 0..<amount)
      amount -= 1
      elements.swapAt(current, current + offset)
      current += 1
    }
    return elements
  }
}
