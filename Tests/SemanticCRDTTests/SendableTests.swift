import SemanticCRDT
import Testing

/// Compile-time checks: if a public type stopped being `Sendable` (for Sendable generic
/// arguments), this file would not build in Swift 6 language mode.
@Test func publicTypesAreSendable() {
  func requireSendable<T: Sendable>(_: T.Type) {}
  requireSendable(ReplicaID.self)
  requireSendable(Dot.self)
  requireSendable(HybridTimestamp.self)
  requireSendable(HybridClock.self)
  requireSendable(WallClock.self)
  requireSendable(ClockSkewError.self)
  requireSendable(VersionVector.self)
  requireSendable(CausalContext.self)
  requireSendable(LWWRegister<String>.self)
  requireSendable(MVRegister<String>.self)
  requireSendable(MVRegister<String>.Write.self)
  requireSendable(LWWMap<String, Int>.self)
  requireSendable(ORSet<String>.self)
  requireSendable(ORMap<String, GCounter>.self)
  requireSendable(GCounter.self)
  requireSendable(PNCounter.self)
}
