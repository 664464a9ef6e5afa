/// A state-based CRDT: a value whose states form a join-semilattice under ``merge(_:)``.
///
/// ## The laws
///
/// For all states `a`, `b`, `c` that replicas can reach:
///
/// - **Commutative**: `a.merging(b) == b.merging(a)`.
/// - **Associative**: `a.merging(b).merging(c) == a.merging(b.merging(c))`.
/// - **Idempotent**: `a.merging(a) == a`.
/// - **Inflationary**: `a.merging(b)` holds every update that `a` or `b` holds; nothing is lost.
///
/// Together they make replicas that have seen the same updates equal, whatever the order,
/// duplication or batching of delivery. The test-support target checks the laws for every
/// conforming type of this package with seeded random states.
///
/// ## Total
///
/// `merge` never throws and never fails. What can be refused (a state from another household,
/// a timestamp from a badly skewed clock) is checked *before* merging by a throwing entry point
/// that applies nothing on failure, such as ``HybridClock/receive(_:into:)``.
public protocol Mergeable {
  /// Joins another state into this one: afterwards `self` is the least state that holds every
  /// update either side held.
  ///
  /// - Parameter other: A state of the same object from any replica.
  mutating func merge(_ other: Self)

  /// Returns the join of this state and another, leaving both unchanged.
  ///
  /// - Parameter other: A state of the same object from any replica.
  /// - Returns: The least state that holds every update of `self` and `other`.
  func merging(_ other: Self) -> Self
}

extension Mergeable {
  /// Returns the join of this state and another; see ``Mergeable/merge(_:)``.
  public func merging(_ other: Self) -> Self {
    var result = self
    result.merge(other)
    return result
  }
}

/// A CRDT that can send a peer only what the peer lacks (delta-state replication).
///
/// A peer describes what it has seen by its ``version``; `delta(since:)` returns a state that
/// holds every update of `self` the peer may lack. A delta *is* a state: merging it is an
/// ordinary ``Mergeable/merge(_:)``.
///
/// ## The delta law
///
/// For every reachable `peer` and `state`:
/// `peer.merging(state.delta(since: peer.version) ?? peer) == peer.merging(state)`.
/// Full-state merge is the ground truth; a delta only makes it cheaper.
///
/// The same holds for any version the peer's state dominates, so a version the peer reported
/// earlier is safe to use: the delta is then larger, never wrong.
///
/// - SeeAlso: Almeida, Shoker, Baquero, *Delta State Replicated Data Types* (2018).
public protocol DeltaMergeable: Mergeable {
  /// What a peer reports as having seen. Merging versions is their pointwise maximum.
  associatedtype Version: Mergeable

  /// The summary of everything this state has seen.
  var version: Version { get }

  /// The part of this state that a peer whose state has seen `version` may lack.
  ///
  /// - Parameter version: The peer's ``version``, or any version its state dominates.
  /// - Returns: A delta state to merge into the peer, or `nil` when the peer lacks nothing.
  func delta(since version: Version) -> Self?
}

/// A state that carries hybrid timestamps, so that a merge can be checked for clock skew first.
public protocol HybridTimestamped {
  /// The greatest timestamp anywhere in this state, or `nil` when it has none.
  var greatestTimestamp: HybridTimestamp? { get }
}
