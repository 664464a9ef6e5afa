// Inlining: merging and raising are generic over the register's value and run per record in
// every merge that changes one. Inlined, they are specialized for the caller's value type in
// the caller's module; not inlined, each call compares and copies the value through its type's
// witnesses, looked up at run time.

/// A register whose greatest value wins: a join-semilattice of one totally ordered value.
///
/// For a value that only moves one way whoever writes it and whenever: a "last used" date,
/// a flag that once raised stays raised. Unlike an ``LWWRegister``, a later write of a smaller
/// value loses; there is no timestamp, because order comes from the value itself.
///
/// Merge is `max`: commutative, associative and idempotent, so replicas that have seen the
/// same writes hold the same value.
public struct MaxRegister<Value: Comparable> {
  /// The greatest value written.
  public private(set) var value: Value

  /// A register holding `value`, the least it will hold.
  public init(_ value: Value) {
    self.value = value
  }

  /// Raises the value to `candidate` if it is greater; returns the write to send, the
  /// register itself.
  @discardableResult @inlinable
  public mutating func raise(to candidate: Value) -> MaxRegister {
    merge(MaxRegister(candidate))
    return self
  }
}

extension MaxRegister: Equatable {}
extension MaxRegister: Hashable where Value: Hashable {}
extension MaxRegister: Sendable where Value: Sendable {}

extension MaxRegister: Mergeable {
  /// Keeps the greater value.
  @inlinable
  public mutating func merge(_ other: MaxRegister) {
    if value < other.value { self = other }
  }
}

extension MaxRegister: DeltaMergeable {
  /// The register itself: a peer whose value is at least this one lacks nothing.
  public var version: MaxRegister { self }

  /// The register, when its value is greater than `version`'s; `nil` otherwise.
  @inlinable
  public func delta(since version: MaxRegister) -> MaxRegister? {
    version.value < value ? self : nil
  }
}

extension MaxRegister {
  /// The lattice order: the value is at most `other`'s.
  package func isLessThanOrEqual(to other: MaxRegister) -> Bool { value <= other.value }
}

extension MaxRegister: Nestable {
  /// The register itself: it holds no dots.
  public func committed(
    over previous: @autoclosure () -> MaxRegister?, in scope: inout NestingScope
  ) -> MaxRegister { self }
}

extension MaxRegister: Codable where Value: Codable {
  /// Decodes the value itself.
  public init(from decoder: any Decoder) throws {
    self.init(try decoder.singleValueContainer().decode(Value.self))
  }

  /// Encodes the value itself.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(value)
  }
}
