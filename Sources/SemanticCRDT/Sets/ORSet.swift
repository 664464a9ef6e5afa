// Inlining: the code marked @inlinable is generic over keys and values and runs per key or
// per dot in merges, deltas and reads. Inlined, it is specialized for the caller's types in
// the caller's module; not inlined, every comparison, hash and copy of a key or value goes
// through witness tables. @usableFromInline marks the stored state and helpers that inlined
// code reads; each stays `package` or internal, out of the public API.

/// An add-wins observed-remove set, in the optimized form: live dots per element plus one
/// causal context, with no tombstone per removed element.
///
/// ```swift
/// var phone = ORSet<String>()
/// var tablet = ORSet<String>()
/// phone.insert("produce", by: phoneID)      // each device's own ReplicaID.random()
/// tablet.insert("produce", by: tabletID)
/// tablet.remove("produce")            // removes only the add the tablet has seen
/// phone.merge(tablet)
/// phone.contains("produce")          // true: the phone's concurrent add wins
/// ```
///
/// ## Merge semantics
///
/// Each insert is an event with a fresh ``Dot``; a remove drops the dots of the element that
/// this replica has seen. On merge, a dot survives unless the other side has seen it and dropped
/// it. So a remove cancels exactly the adds it observed: **concurrent add and remove leave the
/// element present (add-wins)**, and no outcome depends on arrival order.
///
/// ## Complexity
///
/// Membership is a hash lookup. Merge is O(*n* + *m*) hash lookups for *n* and *m* elements.
/// The state holds one dot per element (more only after concurrent adds) and a context that
/// compacts to one counter per replica when delivery is in order.
///
/// - SeeAlso: Bieniusa et al., *An Optimized Conflict-free Replicated Set* (2012); Almeida,
///   Shoker, Baquero, *Delta State Replicated Data Types* (2018), "add-wins OR-set".
public struct ORSet<Element: Hashable> {
  @usableFromInline package var kernel: DotKernel<Element, Present>

  /// Creates an empty set.
  public init() {
    kernel = DotKernel()
  }

  package init(kernel: DotKernel<Element, Present>) {
    self.kernel = kernel
  }

  /// This set as a state: a delta without the elements it names as removed (for tests of them).
  package var stateForm: ORSet { ORSet(kernel: kernel.stateForm) }

  /// Whether `element` is present.
  ///
  /// - Complexity: O(1).
  public func contains(_ element: Element) -> Bool {
    kernel.entries[element] != nil
  }

  /// The present elements.
  ///
  /// - Complexity: O(*n*).
  public var elements: Set<Element> { Set(kernel.entries.keys) }

  /// The number of present elements.
  public var count: Int { kernel.entries.count }

  /// Whether no element is present.
  public var isEmpty: Bool { kernel.entries.isEmpty }

  /// Every dot this set has seen.
  public var context: CausalContext { kernel.context }

  /// Adds `element` as a new event of `replica`.
  ///
  /// The new dot replaces the element's dots this replica has seen, so re-adding compacts
  /// concurrent adds into one.
  ///
  /// - Parameters:
  ///   - element: The element to add.
  ///   - replica: The replica making the change.
  /// - Returns: The delta of this change.
  /// - Complexity: O(1).
  @discardableResult
  public mutating func insert(_ element: Element, by replica: ReplicaID) -> ORSet {
    ORSet(kernel: kernel.write(Present(), for: element, by: replica))
  }

  /// Removes `element` as this replica has seen it; concurrent adds elsewhere survive.
  ///
  /// - Returns: The delta of this change.
  /// - Complexity: O(1).
  @discardableResult
  public mutating func remove(_ element: Element) -> ORSet {
    ORSet(kernel: kernel.remove(element))
  }
}

/// The value of a set entry: presence only.
@usableFromInline
package struct Present: Hashable, Sendable {
  @usableFromInline package init() {}
}

extension ORSet: Equatable {}

extension ORSet: Mergeable {
  /// Joins `other` into this set; see "Merge semantics" above.
  ///
  /// - Complexity: O(*n* + *m*) for *n* and *m* elements.
  @inlinable
  public mutating func merge(_ other: ORSet) {
    kernel.merge(other.kernel)
  }
}

extension ORSet: DeltaMergeable {
  /// The events seen without gaps, per replica.
  public var version: VersionVector { kernel.context.versionVector }

  /// The adds a peer that has seen `version` lacks, and the removes of adds it has seen.
  ///
  /// - Complexity: O(*n* + *d* log *d*) for *n* elements and *d* live dots within `version`;
  ///   the delta holds the unseen adds and one interval per run of removed dots.
  public func delta(since version: VersionVector) -> ORSet? {
    kernel.delta(since: version).map { ORSet(kernel: $0) }
  }
}

extension ORSet {
  /// Whether `other` has seen every event of `self` and revived none that `self` removed:
  /// the lattice order, defined independently of ``merge(_:)``.
  package func isLessThanOrEqual(to other: ORSet) -> Bool {
    kernel.isLessThanOrEqual(to: other.kernel)
  }

  /// Descriptions of broken invariants; empty when the state is sound.
  package func invariantViolations() -> [String] { kernel.invariantViolations() }
}

extension ORSet: Sendable where Element: Sendable {}
