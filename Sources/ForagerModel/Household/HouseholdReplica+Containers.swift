import SemanticCRDT

// Weekly lists and meal plans are one kind of record, a named container: created, renamed and
// deleted the same way, each deletion taking its children with it.

extension HouseholdReplica {
  /// Creates a container under `id` in `map`.
  mutating func createContainer<ID: RecordKeyed>(
    _ map: WritableKeyPath<HouseholdState, ORMap<ID, NamedContainer<ID>>>, name: String, id: ID
  ) throws(HouseholdError) -> NamedContainer<ID> {
    try requireOpen()
    try requireVisible(name)
    let container = NamedContainer(id: id, name: name, creation: creation())
    write(map, id, container)
    return container
  }

  /// Renames the container `id` of `map`, or throws `unknown` when it has none.
  mutating func renameContainer<ID: RecordKeyed>(
    _ map: WritableKeyPath<HouseholdState, ORMap<ID, NamedContainer<ID>>>, _ id: ID,
    to name: String, unknown: HouseholdError
  ) throws(HouseholdError) {
    try requireContainer(map, id, unknown: unknown)
    try requireVisible(name)
    let stamp = clock.tick()
    edit(map, id) { $0.name.assign(name, at: stamp) }
  }

  /// Removes the container `id` of `map` and, for good, the records of `children` in it (as
  /// `parent` tells), or throws `unknown` when it has none.
  ///
  /// - Complexity: O(*c*) over all records of `children`.
  mutating func deleteContainer<ID: RecordKeyed, Child: MappedRecord>(
    _ map: WritableKeyPath<HouseholdState, ORMap<ID, NamedContainer<ID>>>, _ id: ID,
    unknown: HouseholdError,
    children: WritableKeyPath<HouseholdState, ORMap<Child.Key, Child>>,
    parent: (Child) -> ID?
  ) throws(HouseholdError) {
    try requireContainer(map, id, unknown: unknown)
    remove(map, id)
    let orphans = state[keyPath: children].keys.filter {
      state[keyPath: children][$0].flatMap(parent) == id
    }
    for child in orphans { remove(children, child) }
  }

  /// Refuses an edit of a container `map` does not hold, with `unknown`.
  func requireContainer<ID>(
    _ map: WritableKeyPath<HouseholdState, ORMap<ID, NamedContainer<ID>>>, _ id: ID,
    unknown: HouseholdError
  ) throws(HouseholdError) {
    try requireOpen()
    guard state[keyPath: map].contains(id) else { throw unknown }
  }
}
