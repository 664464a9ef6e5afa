// Every CRDT of this module is Nestable. The causal types commit their dots; the rest hold no
// dots and are their own commit. A new type goes in the list it belongs to.

// MARK: Types that hold dots

extension MVRegister: Nestable {
  /// Commits the register's writes as a write of the enclosing map; see ``Nestable``.
  public func committed(
    over previous: @autoclosure () -> MVRegister?, in scope: inout NestingScope
  ) -> MVRegister {
    MVRegister(kernel: kernel.committed(over: previous()?.kernel, in: &scope))
  }
}

extension ORSet: Nestable {
  /// Commits the set's adds as a write of the enclosing map; see ``Nestable``.
  public func committed(
    over previous: @autoclosure () -> ORSet?, in scope: inout NestingScope
  ) -> ORSet {
    ORSet(kernel: kernel.committed(over: previous()?.kernel, in: &scope))
  }
}

extension ORMap: Nestable {
  /// Commits the map's writes, and the value of each write it introduces, as a write of the
  /// enclosing map; see ``Nestable``.
  public func committed(
    over previous: @autoclosure () -> ORMap?, in scope: inout NestingScope
  ) -> ORMap {
    let previous = previous()
    return ORMap(
      kernel: kernel.committed(over: previous?.kernel, in: &scope) { key, boxed, scope in
        Boxed(boxed.value.committed(over: previous?[key], in: &scope))
      })
  }
}

// MARK: Types without dots

extension LWWRegister: Nestable where Value: Equatable {
  /// The register itself: it holds no dots. Its timestamps come from the replica's clock,
  /// which never issues one twice.
  public func committed(
    over previous: @autoclosure () -> LWWRegister?, in scope: inout NestingScope
  ) -> LWWRegister { self }
}

extension HybridTimestamp: Nestable {
  /// The timestamp itself: it holds no dots.
  public func committed(
    over previous: @autoclosure () -> HybridTimestamp?, in scope: inout NestingScope
  ) -> HybridTimestamp { self }
}

extension GCounter: Nestable {
  /// The counter itself: it holds no dots. A counter nested under a key that is removed and
  /// created again counts on from its replicas' contributions (see ADR 0011).
  public func committed(
    over previous: @autoclosure () -> GCounter?, in scope: inout NestingScope
  ) -> GCounter { self }
}

extension PNCounter: Nestable {
  /// The counter itself: it holds no dots (see ``GCounter``'s conformance).
  public func committed(
    over previous: @autoclosure () -> PNCounter?, in scope: inout NestingScope
  ) -> PNCounter { self }
}

extension LWWMap: Nestable where Value: Equatable {
  /// The map itself. Its dots only say which writes a peer lacks for its own deltas; which
  /// write wins is decided by timestamps, which the replica's clock never issues twice.
  public func committed(
    over previous: @autoclosure () -> LWWMap?, in scope: inout NestingScope
  ) -> LWWMap { self }
}
