// Inlining: equality, merging and writing are generic over the register's value and run per
// field in every merge that changes a record. Inlined, they are specialized for the caller's
// value type in the caller's module; not inlined, each call copies and compares the value
// through its type's witnesses, looked up at run time.

/// A last-writer-wins register: one value and the hybrid timestamp of the write that set it.
///
/// ```swift
/// var clock = HybridClock(replica: .random())
/// var name = LWWRegister("Produce", at: clock.tick())
/// name.assign("Fresh Produce", at: clock.tick())
/// ```
///
/// ## Conflict resolution
///
/// The write with the greater ``HybridTimestamp`` wins: wall time, then logical counter, then
/// replica id. A timestamp is issued once, so when each register is written with its own
/// timestamps the outcome never depends on arrival order, and two registers with equal
/// timestamps hold the same write and so the same value.
///
/// A caller may stamp several registers with one timestamp (one edit that renumbers every
/// category's sort order; defaults stamped at genesis). Two such registers hold different
/// values at equal timestamps, and merging them keeps the receiver's value: merge only
/// registers of one field of one record, as maps do. The household merges two of them only
/// when two categories move to one key, and there its merge of the moved records decides,
/// alike on every replica (docs/decisions/0012).
///
/// Use it where a lost concurrent write surprises nobody (a display name, a flag). Where it would
/// surprise a person, use ``MVRegister``, which keeps concurrent writes as siblings.
public struct LWWRegister<Value> {
  /// The current value.
  public private(set) var value: Value
  /// The timestamp of the write that set ``value``.
  public private(set) var timestamp: HybridTimestamp

  /// Creates a register holding `value` written at `timestamp`.
  public init(_ value: Value, at timestamp: HybridTimestamp) {
    self.value = value
    self.timestamp = timestamp
  }

  /// Writes `value` at `timestamp`; a write older than the current one has no effect.
  ///
  /// - Returns: The delta of this write: a register holding it.
  /// - Complexity: O(1).
  @discardableResult @inlinable
  public mutating func assign(_ value: Value, at timestamp: HybridTimestamp) -> LWWRegister {
    let write = LWWRegister(value, at: timestamp)
    merge(write)
    return write
  }
}

extension LWWRegister: Equatable where Value: Equatable {
  /// Equal when both hold the same write: timestamp and value. Written out and inlinable so
  /// that a caller specializes it for its value; the synthesized one stays generic across the
  /// module's boundary and looks its types up at run time on every call (a record's fields are
  /// compared register by register in every merge that changes it).
  @inlinable
  public static func == (lhs: LWWRegister, rhs: LWWRegister) -> Bool {
    lhs.timestamp == rhs.timestamp && lhs.value == rhs.value
  }
}
extension LWWRegister: Hashable where Value: Hashable {}
extension LWWRegister: Sendable where Value: Sendable {}

extension LWWRegister: Mergeable {
  /// Keeps the write with the greater timestamp.
  ///
  /// - Complexity: O(1).
  @inlinable
  public mutating func merge(_ other: LWWRegister) {
    if other.timestamp > timestamp { self = other }
  }
}

extension LWWRegister: DeltaMergeable {
  /// The timestamp of the current write: a peer holding it, or a later one, lacks nothing.
  public var version: HybridTimestamp { timestamp }

  /// `self` when its write is newer than `version`, otherwise `nil`.
  @inlinable
  public func delta(since version: HybridTimestamp) -> LWWRegister? {
    timestamp > version ? self : nil
  }
}

extension LWWRegister: HybridTimestamped {
  /// The timestamp of the current write.
  public var greatestTimestamp: HybridTimestamp? { timestamp }
}

extension HybridTimestamp: Mergeable {
  /// Keeps the greater timestamp.
  public mutating func merge(_ other: HybridTimestamp) {
    if other > self { self = other }
  }
}

extension LWWRegister {
  /// The lattice order: `other` holds this write or a later one.
  @inlinable
  package func isLessThanOrEqual(to other: LWWRegister) -> Bool {
    timestamp <= other.timestamp
  }
}

extension LWWRegister: Codable where Value: Codable {
  private enum CodingKeys: String, CodingKey {
    case timestamp
    case value
  }

  /// Decodes `{"timestamp": [wall, logical, "replica"], "value": …}`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      try container.decode(Value.self, forKey: .value),
      at: try container.decode(HybridTimestamp.self, forKey: .timestamp))
  }

  /// Encodes `{"timestamp": [wall, logical, "replica"], "value": …}`.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(timestamp, forKey: .timestamp)
    try container.encode(value, forKey: .value)
  }
}
