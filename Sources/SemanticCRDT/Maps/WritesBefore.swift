// Inlining: appended to once for every key a merge changes, by the household's specialized
// merge; not inlined, each append would copy a key's writes through generic witnesses.

/// The keys a merge changed, each with its writes before the merge: what undoing the merge
/// restores (``ORMap/undoMerge(restoring:context:)``), and what the delta of what it changed
/// reads beside the merged map (``ORMap/delta(ofMerging:into:changing:merged:)``).
///
/// Lists by kind, rather than one list of optional writes: an optional of a key's writes is
/// copied and destroyed in memory through the runtime's generic witnesses (see
/// ``ORMap/merge(_:changed:)``). The keys that held writes and the keys that were absent took
/// 4% of the instructions off one merge of a 100k-record state (docs/benchmarks.md).
///
/// A key whose writes only grew (it still holds every write it held, and more: a concurrent
/// write joined it) is kept without its writes before. They are exactly its writes after that
/// the map had seen before the merge, since a join keeps a write the map had seen only where
/// the map held it. So a merge that joins many keys does not hold on to each one's earlier
/// writes, whose release at the end of the merge touched every record once more.
@usableFromInline
package struct WritesBefore<Key: Hashable, Value> {
  /// The keys that held writes before the merge, with those writes.
  @usableFromInline package private(set) var held: [(key: Key, writes: DotSiblings<Value>)] = []
  /// The keys that were absent before the merge.
  @usableFromInline package private(set) var absent: [Key] = []
  /// The keys whose writes only grew: each held, before the merge, its writes after that the
  /// map had seen (``writes(before:seenBefore:)``).
  @usableFromInline package private(set) var grown: [Key] = []

  @inlinable
  package init() {}

  /// How many keys changed.
  @inlinable
  package var count: Int { held.count + absent.count + grown.count }

  /// Notes that the merge changed `key`, which held `writes` before it and `after` after it
  /// (`nil`: absent).
  @inlinable
  package mutating func append(
    _ key: Key, _ writes: DotSiblings<Value>?, after: DotSiblings<Value>?
  ) {
    switch writes {
    case nil: absent.append(key)
    case let writes?:
      if let after, writes.allDots(satisfy: { after.contains($0) }) {
        grown.append(key)
      } else {
        held.append((key, writes))
      }
    }
  }

  /// The writes a key of ``grown`` held before the merge: of its writes `after` it, those the
  /// map had seen before it (`seenBefore`).
  @inlinable
  package static func writes(
    before after: DotSiblings<Value>, seenBefore: inout ContextMembership
  ) -> DotSiblings<Value>? {
    after.filter { seenBefore.contains($0) }
  }
}
