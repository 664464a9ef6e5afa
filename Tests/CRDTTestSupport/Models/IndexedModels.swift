import SemanticCRDT
import SharedSupport

/// A state that can keep an index of its live dots (`ORMap.indexLiveDots()`).
package protocol LiveDotIndexing {
  mutating func indexLiveDots()
}

extension ORMap: LiveDotIndexing {}

/// `Base` with every replica's state keeping the live-dot index from its start. Each step's
/// invariants then include that the index holds exactly the live dots, `delta(since:)` reads
/// the index instead of every key, and merging a delta that has seen fewer dots than the
/// receiver has keys finds what it retires through the index: the same laws, on those paths.
package enum Indexed<Base: CRDTModel>: CRDTModel where Base.State: LiveDotIndexing {
  package typealias State = Base.State

  package static var name: String { "\(Base.name), indexed" }

  package static func makeInitial() -> State {
    var state = Base.makeInitial()
    state.indexLiveDots()
    return state
  }

  package static func randomOperation(using random: inout SplitMix64) -> Base.Operation {
    Base.randomOperation(using: &random)
  }

  package static func apply(
    _ operation: Base.Operation, to state: inout State, replica: ReplicaID,
    timestamp: HybridTimestamp
  ) -> State? {
    Base.apply(operation, to: &state, replica: replica, timestamp: timestamp)
  }

  package static func observe(_ state: State) -> Base.Observation { Base.observe(state) }

  package static func specification(of events: [Event<Base.Operation>]) -> Base.Observation {
    Base.specification(of: events)
  }

  package static func isLessThanOrEqual(_ a: State, _ b: State) -> Bool {
    Base.isLessThanOrEqual(a, b)
  }

  package static func invariantViolations(of state: State) -> [String] {
    Base.invariantViolations(of: state)
  }

  package static func greatestTimestamp(of state: State) -> HybridTimestamp? {
    Base.greatestTimestamp(of: state)
  }

  package static func stateForm(of delta: State) -> State { Base.stateForm(of: delta) }
}
