// Inlining: appended to once for every key a merge changes, by the household's specialized
// merge; not inlined, each append would copy a key's writes through generic witnesses.

/// The keys a merge changed, each with its writes before the merge: what undoing the merge
/// restores (``ORMap/undoMerge(restoring:context:)``), and what the delta of what it changed
/// reads beside the merged map (``ORMap/delta(ofMerging:into:changing:merged:)``).
///
/// Two lists, the keys that held writes and the keys that were absent, rather than one list of
/// optional writes: an optional of a key's writes is copied and destroyed in memory through the
/// runtime's generic witnesses (see ``ORMap/merge(_:changed:)``). The two lists took 4% of the
/// instructions off one merge of a 100k-record state (docs/benchmarks.md).
@usableFromInline
package struct WritesBefore<Key: Hashable, Value> {
  /// The keys that held writes before the merge, with those writes.
  @usableFromInline package private(set) var held: [(key: Key, writes: DotSiblings<Value>)] = []
  /// The keys that were absent before the merge.
  @usableFromInline package private(set) var absent: [Key] = []

  @inlinable
  package init() {}

  /// How many keys changed.
  @inlinable
  package var count: Int { held.count + absent.count }

  /// Notes that the merge changed `key`, which held `writes` before it (`nil`: absent).
  @inlinable
  package mutating func append(_ key: Key, _ writes: DotSiblings<Value>?) {
    switch writes {
    case nil: absent.append(key)
    case let writes?: held.append((key, writes))
    }
  }
}
