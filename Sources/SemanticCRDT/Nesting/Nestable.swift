// Inlining: the code marked @inlinable is generic over keys and values and runs per key or
// per dot in merges, deltas and reads. Inlined, it is specialized for the caller's types in
// the caller's module; not inlined, every comparison, hash and copy of a key or value goes
// through witness tables. @usableFromInline marks the stored state and helpers that inlined
// code reads; each stays `package` or internal, out of the public API.

/// A CRDT that can be the value of an ``ORMap``: it lets the map give every dot it holds a name
/// that the writing replica has never used anywhere in the map.
///
/// ## Why the map must name nested dots
///
/// ``MVRegister``, ``ORSet`` and ``ORMap`` name each write by a ``Dot`` and take the next counter
/// from their own causal context. Nested in a map, that context starts empty each time a key is
/// removed and created again, so the new value would hand out dots its peers have already seen
/// and dropped: a concurrent assignment would vanish, or a removed element come back. The
/// composition of Almeida, Shoker and Baquero avoids this with one causal context for the
/// whole nesting. ``ORMap`` does the same at every write: it passes its value, with the value
/// the key held before, through ``committed(over:in:)``, and
///
/// - every dot the write introduces is minted anew from the map's own context, which has seen
///   every dot the replica ever minted in it, so no dot names two events;
/// - every nested store's context becomes the writer's whole context, so the write supersedes
///   everything its writer had seen under the key, as a write of a plain value does.
///
/// The map does this whatever the value went through before: built from scratch and passed to
/// ``ORMap/set(_:to:by:)``, or changed in ``ORMap/update(_:by:default:_:)``.
///
/// ## Conforming
///
/// A type that holds no dots returns itself. A record built of CRDT fields returns a copy whose
/// fields are committed over the previous record's fields, so that no field's dots escape the
/// map:
///
/// ```swift
/// public func committed(over previous: @autoclosure () -> Meal?, in scope: inout NestingScope) -> Meal {
///   var result = self
///   result.guests = guests.committed(over: previous()?.guests, in: &scope)
///   return result
/// }
/// ```
///
/// Only an ``ORMap`` can make a ``NestingScope``, so a value cannot commit its dots anywhere
/// else.
///
/// - SeeAlso: Almeida, Shoker, Baquero, *Delta State Replicated Data Types* (2018), §7; ADR 0011.
public protocol Nestable: Mergeable, Equatable {
  /// This value as the new write of a map key that held `previous`.
  ///
  /// - Parameters:
  ///   - previous: The value the key held before the write, `nil` where it was absent. Read
  ///     only by types that hold dots.
  ///   - scope: The enclosing map's context, which mints the write's dots.
  /// - Returns: The value with every dot it introduces (every live dot `previous` does not
  ///   hold, with the same value) minted anew, and each nested context grown to the scope's.
  /// - Complexity: O(1) for a value without dots; otherwise linear in the value's live dots.
  func committed(over previous: @autoclosure () -> Self?, in scope: inout NestingScope) -> Self
}

/// The enclosing map's causal context during one write: what the writer has seen, and where the
/// write's new dots come from. Only ``ORMap`` creates one.
public struct NestingScope: Sendable {
  /// Everything the writer has seen, including the dots minted in this write so far.
  @usableFromInline private(set) var context: CausalContext
  /// The writing replica: the only replica whose dots a write mints.
  @usableFromInline package let replica: ReplicaID
  /// The dots minted in this write, in order.
  @usableFromInline private(set) var minted: [Dot] = []

  @usableFromInline
  package init(context: CausalContext, replica: ReplicaID) {
    self.context = context
    self.replica = replica
  }

  /// A dot of the writing replica that no state of the map has named.
  @usableFromInline
  package mutating func mint() -> Dot {
    let dot = context.nextDot(for: replica)
    minted.append(dot)
    return dot
  }
}
