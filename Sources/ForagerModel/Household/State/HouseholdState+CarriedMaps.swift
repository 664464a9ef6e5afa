import SemanticCRDT
import SemanticCRDTJSON

// The maps of record kinds a newer build added, which this build carries (ADR 0037): reached
// through a subscript, so that `forEachMap(_:carrying:)` hands them to every operation over the
// household's maps as it hands the maps this build knows.

extension HouseholdState {
  /// The map of records of a kind a newer build added, under its key `name` (`"shelves:map"`);
  /// empty when the state holds none. Setting an empty map drops it, so a state holds exactly
  /// the carried maps that hold something, and equal states are equal values.
  ///
  /// - Complexity: A change through the subscript copies the map once (it is read out of the
  ///   dictionary and written back); carried maps are what newer builds add, rarely large.
  package subscript(carried name: String) -> ORMap<CarriedKey, CarriedRecord> {
    get { carriedMaps[name] ?? ORMap() }
    set { carriedMaps[name] = newValue.holdsNothing ? nil : newValue }
  }

  /// The keys of the carried maps, ascending by their UTF-8 bytes.
  package var carriedMapNames: [String] { CarriedMapName.sorted(carriedMaps.keys) }

  /// The keys of the carried maps of this state and `other` together.
  package func carriedMapNames(with other: HouseholdState) -> [String] {
    CarriedMapName.union(carriedMaps.keys, other.carriedMaps.keys)
  }
}

extension HouseholdVersion {
  /// The version of the carried map `name`; empty when it has none. Setting an empty version
  /// drops it.
  package subscript(carried name: String) -> VersionVector {
    get { carriedMaps[name] ?? VersionVector() }
    set { carriedMaps[name] = newValue == VersionVector() ? nil : newValue }
  }

  /// The keys of the carried maps this version names, ascending by their UTF-8 bytes.
  package var carriedMapNames: [String] { CarriedMapName.sorted(carriedMaps.keys) }

  /// The keys of the carried maps of this version and `other` together.
  package func carriedMapNames(with other: HouseholdVersion) -> [String] {
    CarriedMapName.union(carriedMaps.keys, other.carriedMaps.keys)
  }
}

extension ORMap {
  /// Whether the map holds no record and has seen no write: what a build leaves out of a
  /// state where the map is one a newer build added.
  var holdsNothing: Bool { isEmpty && context.isEmpty && self == ORMap() }
}
