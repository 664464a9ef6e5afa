// Inlining: the code marked @inlinable is generic over what is gathered and runs once per dot
// in merges, deltas and the live index's builds. Inlined, it is specialized for the caller's
// element in the caller's module. @usableFromInline marks the stored state it reads; each
// stays internal or `package`, out of the public API.

/// Elements gathered by replica, each replica's in the order they came: the dots of a merge or
/// of a delta, put in a replica's order or made ranges once all have come.
///
/// Dots come in runs of one replica (a key's writes, the keys a replica created), so the last
/// replica's list is kept at hand: comparing a replica id with the last one costs less than
/// hashing it, which a dictionary of lists does for every element.
@usableFromInline
package struct ReplicaLists<Element> {
  /// Each replica's place in `lists`.
  @usableFromInline var slots: [ReplicaID: Int] = [:]
  @usableFromInline var lists: [[Element]] = []
  /// The replica of the last element appended, and its place.
  @usableFromInline var last: (replica: ReplicaID, slot: Int)?

  /// No elements.
  @inlinable
  package init() {}

  /// Whether nothing has been appended.
  @inlinable
  package var isEmpty: Bool { lists.isEmpty }

  /// Adds `element` to the list of `replica`.
  ///
  /// - Complexity: O(1) amortized; a hash of `replica` only when it differs from the last
  ///   element's.
  @inlinable
  package mutating func append(_ element: Element, of replica: ReplicaID) {
    // `last` is stored only when the replica changes: storing an id retains its text.
    if let last, last.replica == replica {
      lists[last.slot].append(element)
      return
    }
    let slot: Int
    if let known = slots[replica] {
      slot = known
    } else {
      slot = lists.count
      slots[replica] = slot
      lists.append([])
    }
    last = (replica, slot)
    lists[slot].append(element)
  }

  /// Calls `body` with each replica and its elements, in the order they came; the replicas in
  /// no particular order.
  @inlinable
  package func forEach(_ body: (ReplicaID, [Element]) -> Void) {
    for (replica, slot) in slots { body(replica, lists[slot]) }
  }
}

extension ReplicaLists: Sendable where Element: Sendable {}
