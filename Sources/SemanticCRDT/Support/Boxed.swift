// Inlining: the code marked @inlinable is generic over keys and values and runs per key or
// per dot in merges, deltas and reads. Inlined, it is specialized for the caller's types in
// the caller's module; not inlined, every comparison, hash and copy of a key or value goes
// through witness tables. @usableFromInline marks the stored state and helpers that inlined
// code reads; each stays `package` or internal, out of the public API.

/// A value stored out of line, behind one reference: copying a `Boxed` retains one object,
/// whatever the value holds.
///
/// ``ORMap`` keeps each write's value boxed. Its records are often 200 bytes or more with half a
/// dozen strings; stored inline they would make every bucket of the map's dictionary that
/// large (most of them empty), and every copy a merge makes of a record would retain each
/// string. Boxed, a bucket holds a key, a dot and a reference, and a copy is one retain. The
/// box is immutable: a new write makes a new box.
///
/// A final class rather than an indirect enum: a reader of a part of the value reads it in the
/// box, where binding an enum's payload copies the whole value (a retain and a release per
/// string it holds) before the part is read.
@usableFromInline
package final class Boxed<Value> {
  /// The value; read a part of it in place (`boxed.value.part`), copy it out only to keep it.
  @usableFromInline package let value: Value

  @inlinable
  package init(_ value: Value) {
    self.value = value
  }
}

extension Boxed: Equatable where Value: Equatable {
  @inlinable
  package static func == (lhs: Boxed, rhs: Boxed) -> Bool {
    lhs === rhs || lhs.value == rhs.value
  }
}

extension Boxed: Sendable where Value: Sendable {}
