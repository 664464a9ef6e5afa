import SemanticCRDT

// Weekly lists and meal plans are named containers: created, renamed and deleted the same way,
// each deletion taking its children with it.

/// A record that holds others, a weekly list its items and a meal plan its meals.
protocol ContainerRecord: ScopedRecord where Key: UUIDIdentifier {
  var name: LWWRegister<String> { get set }
  init(id: Key, name: String, creation: Creation)
}

extension WeeklyList: ContainerRecord {}
extension MealPlan: ContainerRecord {}

extension HouseholdReplica {
  /// Creates a container under `id` in `map`.
  mutating func createContainer<Container: ContainerRecord>(
    _ map: WritableKeyPath<HouseholdState, ORMap<Container.Key, Container>>, name: String,
    id: Container.Key
  ) throws(HouseholdError) -> Container {
    try requireOpen()
    try requireVisible(name)
    let container = Container(id: id, name: name, creation: creation())
    write(map, id, container)
    return container
  }

  /// Renames the container `id` of `map`, or throws `unknown` when it has none.
  mutating func renameContainer<Container: ContainerRecord>(
    _ map: WritableKeyPath<HouseholdState, ORMap<Container.Key, Container>>, _ id: Container.Key,
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
  mutating func deleteContainer<Container: ContainerRecord, Child: MappedRecord>(
    _ map: WritableKeyPath<HouseholdState, ORMap<Container.Key, Container>>, _ id: Container.Key,
    unknown: HouseholdError,
    children: WritableKeyPath<HouseholdState, ORMap<Child.Key, Child>>,
    parent: (Child) -> Container.Key?
  ) throws(HouseholdError) {
    try requireContainer(map, id, unknown: unknown)
    remove(map, id)
    let orphans = state[keyPath: children].keys.filter {
      state[keyPath: children][$0].flatMap(parent) == id
    }
    for child in orphans { remove(children, child) }
  }

  /// Refuses an edit of a container `map` does not hold, with `unknown`.
  func requireContainer<Container: ContainerRecord>(
    _ map: WritableKeyPath<HouseholdState, ORMap<Container.Key, Container>>, _ id: Container.Key,
    unknown: HouseholdError
  ) throws(HouseholdError) {
    try requireOpen()
    guard state[keyPath: map].contains(id) else { throw unknown }
  }
}
