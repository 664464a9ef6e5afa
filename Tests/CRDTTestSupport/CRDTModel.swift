import SemanticCRDT
import SharedSupport

/// One operation applied at one replica, as the reference specification sees it.
public struct Event<Operation: Sendable>: Sendable {
  /// Unique within a scenario, in the order operations happened.
  public let id: Int
  /// The replica that applied it.
  public let replica: ReplicaID
  /// What was done.
  public let operation: Operation
  /// The timestamp the replica's clock issued for it.
  public let timestamp: HybridTimestamp
  /// The ids of the events the replica had seen when it applied this one: its causal past.
  public let observed: Set<Int>

  public init(
    id: Int, replica: ReplicaID, operation: Operation, timestamp: HybridTimestamp,
    observed: Set<Int>
  ) {
    self.id = id
    self.replica = replica
    self.operation = operation
    self.timestamp = timestamp
    self.observed = observed
  }
}

/// Everything the generic property tests need to know about one CRDT type: how to drive it
/// with random operations and what a plain reference specification says it must show.
///
/// The specification is computed from the set of events a replica has seen, with plain
/// collections and without the type's merge: for example, an add-wins set shows exactly the
/// elements that have an add no remove has observed.
public protocol CRDTModel {
  /// The type under test.
  associatedtype State: DeltaMergeable & Equatable & Codable
  /// A random operation, independent of any state so that shrinking can drop steps freely.
  associatedtype Operation: CustomStringConvertible & Sendable
  /// What a user of the type can observe.
  associatedtype Observation: Equatable

  /// A short name for reports.
  static var name: String { get }

  /// A state that has seen nothing.
  static func makeInitial() -> State

  /// Draws an operation, biased toward collisions (few keys, few values).
  static func randomOperation(using random: inout SplitMix64) -> Operation

  /// Applies `operation` at `replica` with the write timestamp `timestamp`.
  ///
  /// - Returns: The mutation's delta, or `nil` when the type has none for it.
  static func apply(
    _ operation: Operation, to state: inout State, replica: ReplicaID,
    timestamp: HybridTimestamp
  ) -> State?

  /// What `state` shows.
  static func observe(_ state: State) -> Observation

  /// What a replica that has seen exactly `events` must show.
  static func specification(of events: [Event<Operation>]) -> Observation

  /// The lattice order, defined without merge: `a` precedes `b`.
  static func isLessThanOrEqual(_ a: State, _ b: State) -> Bool

  /// Broken invariants of `state`.
  static func invariantViolations(of state: State) -> [String]

  /// The greatest timestamp in `state`, so the replica's clock can observe it on receipt.
  static func greatestTimestamp(of state: State) -> HybridTimestamp?

  /// `delta`, a join of mutation deltas, as a state: without the keys a keyed delta names
  /// (see `ORMap`'s keyed deltas), so that merging it looks at every key. Merged anywhere, it
  /// must give exactly what the delta gives. Types without keyed deltas return it unchanged.
  static func stateForm(of delta: State) -> State
}

extension CRDTModel {
  /// Types without keyed deltas: the delta is its own state form.
  public static func stateForm(of delta: State) -> State { delta }

  public static func invariantViolations(of state: State) -> [String] { [] }
  public static func greatestTimestamp(of state: State) -> HybridTimestamp? { nil }
}

extension CRDTModel where State: HybridTimestamped {
  public static func greatestTimestamp(of state: State) -> HybridTimestamp? {
    state.greatestTimestamp
  }
}

extension Event {
  /// Whether `other` had seen this event when it happened.
  public func isObserved(by other: Event) -> Bool { other.observed.contains(id) }
}

extension Array {
  /// The events not observed by any other event of the array that satisfies `supersedes`:
  /// the causally maximal ones.
  public func maximal<Operation>(
    supersededBy supersedes: (Element) -> Bool = { _ in true }
  ) -> [Element] where Element == Event<Operation> {
    filter { event in !contains { $0.id != event.id && supersedes($0) && event.isObserved(by: $0) }
    }
  }
}
