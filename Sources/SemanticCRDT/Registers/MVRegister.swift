// Inlining: the code marked @inlinable is generic over keys and values and runs per key or
// per dot in merges, deltas and reads. Inlined, it is specialized for the caller's types in
// the caller's module; not inlined, every comparison, hash and copy of a key or value goes
// through witness tables. @usableFromInline marks the stored state and helpers that inlined
// code reads; each stays `package` or internal, out of the public API.

/// A multi-value register: concurrent writes are kept side by side until a write that has
/// seen them all replaces them.
///
/// ```swift
/// var phone = MVRegister<String>()
/// var tablet = MVRegister<String>()
/// phone.write("Pancakes", at: phoneClock.tick())
/// tablet.write("Waffles", at: tabletClock.tick())
/// phone.merge(tablet)
/// phone.winner      // the write with the greater timestamp
/// phone.conflicts   // the other one, for the person to resolve
/// ```
///
/// ## Conflict resolution
///
/// Each write is an event with a ``Dot`` and a ``HybridTimestamp``; it replaces the writes this
/// replica has seen. Concurrent writes survive a merge as siblings: nothing is lost silently.
/// ``winner`` picks the sibling with the greatest timestamp, the same on every replica, so an
/// app can show one value while it surfaces ``conflicts``. The next ``write(_:at:)`` on a replica
/// that has merged all siblings resolves the conflict.
///
/// - SeeAlso: DeCandia et al., *Dynamo* (2007); Almeida, Shoker, Baquero (2018), "MVRegister".
public struct MVRegister<Value: Equatable> {
  @usableFromInline package var kernel: DotKernel<SingleKey, Write>

  /// One write: its value and timestamp.
  public struct Write: Equatable {
    /// The written value.
    public let value: Value
    /// When it was written.
    public let timestamp: HybridTimestamp

    /// Creates a write record.
    public init(value: Value, timestamp: HybridTimestamp) {
      self.value = value
      self.timestamp = timestamp
    }
  }

  /// Creates a register that has never been written.
  public init() {
    kernel = DotKernel()
  }

  @usableFromInline
  package init(kernel: DotKernel<SingleKey, Write>) {
    self.kernel = kernel
  }

  /// The surviving writes, greatest timestamp first; empty before the first write.
  ///
  /// - Complexity: O(*s* log *s*) for *s* siblings.
  @inlinable
  public var writes: [Write] {
    // A closure, not the key path `\.value`: this getter is generic, and a key path through a
    // generic type is made at run time on every call.
    (kernel.entries[SingleKey()]?.elements ?? []).map { $0.value }.sorted {
      $0.timestamp > $1.timestamp
    }
  }

  /// Calls `body` with each surviving write, in no particular order: ``writes`` without
  /// building and sorting an array.
  @inlinable
  package func forEachWrite(_ body: (Write) -> Void) {
    kernel.entries[SingleKey()]?.forEachElement { _, write in body(write) }
  }

  /// The value of the surviving write with the greatest timestamp; `nil` before the first
  /// write. The same on every replica that has seen the same writes.
  ///
  /// - Complexity: O(*s*) for *s* siblings.
  @inlinable
  public var winner: Value? {
    var winner: Write?
    forEachWrite { write in
      if let found = winner, found.timestamp >= write.timestamp { return }
      winner = write
    }
    return winner?.value
  }

  /// The values of the other surviving writes, greatest timestamp first; empty when there is
  /// no conflict.
  public var conflicts: [Value] { writes.dropFirst().map { $0.value } }

  /// Whether concurrent writes survive side by side.
  public var isConflicted: Bool { (kernel.entries[SingleKey()]?.count ?? 0) > 1 }

  /// Writes `value`, replacing every write this replica has seen.
  ///
  /// - Parameters:
  ///   - value: The new value.
  ///   - timestamp: The write's timestamp, from the writing replica's ``HybridClock``; its
  ///     replica names the event's dot.
  /// - Returns: The delta of this write.
  /// - Complexity: O(*s*) for *s* replaced siblings.
  @discardableResult
  public mutating func write(_ value: Value, at timestamp: HybridTimestamp) -> MVRegister {
    MVRegister(
      kernel: kernel.write(
        Write(value: value, timestamp: timestamp), for: SingleKey(), by: timestamp.replica))
  }

  /// The register with only the writes whose value satisfies `isIncluded`, for reading: a
  /// view that hides writes naming something gone (a planned meal's deleted recipe). Its
  /// context is unchanged, so it is never a state to merge or store.
  ///
  /// - Complexity: O(*s*) for *s* siblings.
  package func keepingWrites(where isIncluded: (Value) -> Bool) -> MVRegister {
    guard let siblings = kernel.entries[SingleKey()] else { return self }
    let kept = siblings.elements.filter { isIncluded($0.value.value) }
    guard kept.count < siblings.count else { return self }
    var entries: [SingleKey: DotSiblings<Write>] = [:]
    entries[SingleKey()] = DotSiblings(sorted: kept)
    return MVRegister(kernel: DotKernel(entries: entries, context: kernel.context))
  }

  /// Clears the register as this replica has seen it; a concurrent write elsewhere survives.
  ///
  /// - Returns: The delta of this change.
  @discardableResult
  public mutating func clear() -> MVRegister {
    MVRegister(kernel: kernel.remove(SingleKey()))
  }
}

/// The one key of a register's dot store.
@usableFromInline
package struct SingleKey: Hashable, Comparable, Sendable {
  @inlinable package init() {}
  @usableFromInline package static func < (lhs: SingleKey, rhs: SingleKey) -> Bool { false }
}

extension MVRegister: Equatable {}
extension MVRegister: Sendable where Value: Sendable {}
extension MVRegister.Write: Sendable where Value: Sendable {}

extension MVRegister: Mergeable {
  /// Keeps every write not superseded by a write the other side has seen.
  ///
  /// - Complexity: O(*s* log *s*) for *s* siblings.
  @inlinable
  public mutating func merge(_ other: MVRegister) {
    kernel.merge(other.kernel)
  }
}

extension MVRegister: DeltaMergeable {
  /// The events seen without gaps, per replica.
  public var version: VersionVector { kernel.context.versionVector }

  /// The writes a peer that has seen `version` lacks, and what they replaced.
  @inlinable
  public func delta(since version: VersionVector) -> MVRegister? {
    kernel.delta(since: version).map { MVRegister(kernel: $0) }
  }
}

extension MVRegister: HybridTimestamped {
  /// The greatest timestamp of the surviving writes.
  ///
  /// - Complexity: O(*s*) for *s* siblings, without building ``writes``: a store reads it
  ///   for every record it opens.
  @inlinable
  public var greatestTimestamp: HybridTimestamp? {
    var greatest: HybridTimestamp?
    forEachWrite { write in
      greatest.raise(to: write.timestamp)
    }
    return greatest
  }
}

extension MVRegister {
  /// The lattice order, defined independently of ``merge(_:)``; see ``ORSet``.
  package func isLessThanOrEqual(to other: MVRegister) -> Bool {
    kernel.isLessThanOrEqual(to: other.kernel)
  }

  /// Descriptions of broken invariants; empty when the state is sound.
  package func invariantViolations() -> [String] { kernel.invariantViolations() }
}
