import SemanticCRDT
internal import SharedSupport

// A replica is the authority on its own writes (docs/decisions/0029): it alone mints the dots
// of its incarnations, so its state has seen every one of them, and a claim beyond them is
// forged.

extension HouseholdReplica {
  /// This device's incarnations whose writes `remote` claims beyond what they made: this one
  /// beyond what this state has seen of it (this replica made every write of it there is),
  /// an earlier one beyond ``HouseholdState/plausibleWritesPerReplica`` (`implausible`,
  /// `remote`'s ``HouseholdState/implausibleClaims``).
  ///
  /// - Complexity: O(*r*) over the replicas `remote`'s contexts name, whatever the number of
  ///   incarnations.
  func claimedIncarnations(
    by remote: HouseholdState, implausible: [(replica: ReplicaID, claimed: UInt64)]
  ) -> [ReplicaID] {
    let implausible = Set(implausible.map(\.replica))
    let past = implausible.isEmpty ? [] : pastIncarnations.filter(implausible.contains)
    return (remote.claimsMoreWrites(of: replicaID, than: state) ? [replicaID] : []) + past
  }

  /// Writes again, as new writes of this replica, every record (and category move) that holds a
  /// live write of one of `replicas`, its nested writes of them stamped anew for this replica
  /// (at the same time) and their dots minted anew: so that peers that took a forged claim on
  /// those writes for a removal, or dropped them as already seen, receive them again. What the
  /// records show does not change.
  ///
  /// - Returns: How many records (and moves) were written.
  /// - Complexity: O(*n*) over all records.
  mutating func reissueWrites(of replicas: Set<ReplicaID>) -> Int {
    struct Reissue: HouseholdMapVisitor {
      var replica: HouseholdReplica
      let replicas: Set<ReplicaID>
      var count = 0
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        // In key order, so that the dots minted do not follow the order of a hash table.
        let keys = replica.state[keyPath: map.records].keys(holdingDotsOf: replicas) {
          $0.holdsNestedDot(of: replicas)
        }.sorted()
        for key in keys {
          let id = replica.replicaID
          guard let record = replica.state[keyPath: map.records][key] else { continue }
          // Committed over the record as it is: only the writes stamped anew get new dots.
          replica.noteWrite(
            replica.state[keyPath: map.records].set(
              key, to: record.reissued(restamping: replicas, as: id), by: id),
            in: map.records, showing: .nothing)
        }
        count += keys.count
      }
    }
    var reissue = Reissue(replica: self, replicas: replicas)
    HouseholdState.forEachMap(&reissue, carrying: state.carriedMapNames)
    self = reissue.replica
    var count = reissue.count
    if state.categoryMoves != nil {
      for key in state.moves.keys(holdingDotsOf: replicas).sorted() {
        let id = replicaID
        guard let move = state.moves[key] else { continue }
        noteWrite(state.moves.set(key, to: move, by: id), in: \.moves, showing: .nothing)
        count += 1
      }
    }
    return count
  }

  /// Moves this replica to a fresh incarnation: a new random replica id, the clock going on
  /// from where it stands, the old id kept among ``pastIncarnations``. Its next writes carry
  /// dots no state has claimed.
  mutating func moveToFreshIncarnation() {
    pastIncarnations.append(replicaID)
    let fresh: ReplicaID
    if let seed = incarnationSeed {
      var generator = SplitMix64(seed: seed)
      fresh = .random(using: &generator)
      incarnationSeed = generator.next()
    } else {
      fresh = .random()
    }
    clock = HybridClock(
      replica: fresh, wallClock: clock.wallClock,
      maximumSkewMilliseconds: clock.maximumSkewMilliseconds, latest: clock.latest)
  }
}

extension HouseholdState {
  /// More writes than this by one replica no device makes: 2³², a write a millisecond for
  /// seven weeks without a restart (each open is a new incarnation).
  package static let plausibleWritesPerReplica: UInt64 = 1 << 32

  /// The greatest write of `replica` any of this state's contexts claims; 0 when none does.
  ///
  /// - Complexity: O(1) per map.
  package func greatestClaim(of replica: ReplicaID) -> UInt64 {
    claimingContexts.map { $0.maximum(of: replica) }.max() ?? 0
  }

  /// The replicas whose writes this state claims beyond what any device makes, with the
  /// greatest number claimed: a forged state. Merged, it makes every replica drop those
  /// replicas' later writes as already seen, until their device writes them again (ADR 0029).
  ///
  /// - Complexity: O(*r*) per map for *r* replicas.
  package var implausibleClaims: [(replica: ReplicaID, claimed: UInt64)] {
    var claims: [ReplicaID: UInt64] = [:]
    for context in claimingContexts {
      // Each replica's counters as they are stored: no lookup by id.
      for (replica, counters) in context.replicas
      where counters.maximum > Self.plausibleWritesPerReplica {
        claims[replica] = max(claims[replica] ?? 0, counters.maximum)
      }
    }
    return claims.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
  }
}

extension HouseholdVersion {
  /// Whether this version, a peer's word about the state it holds, claims a write of `replica`
  /// that `local` (that replica's own state) has not made, or a write of any replica beyond
  /// ``HouseholdState/plausibleWritesPerReplica``: a forged version. Answered as the truth, it
  /// would leave those writes out of what is sent to the peer for as long as it claims them.
  ///
  /// - Complexity: O(*r*) per map for *r* replicas.
  package func claimsMoreWrites(of replica: ReplicaID, than local: HouseholdState) -> Bool {
    let carried = CarriedMapName.union(carriedMaps.keys, local.carriedMaps.keys)
    let vectors = claimingVectors(carrying: carried)
    let unmade = zip(vectors, local.claimingContexts(carrying: carried)).contains {
      vector, seen in vector[replica] > seen.maximum(of: replica)
    }
    let implausible = vectors.contains { vector in
      vector.table.contains { $0.value > HouseholdState.plausibleWritesPerReplica }
    }
    return unmade || implausible
  }

  /// The version of every map of records, the carried maps named in `carried` last, then the
  /// category moves': aligned with ``HouseholdState``'s `claimingContexts(carrying:)`.
  func claimingVectors(carrying carried: [String]) -> [VersionVector] {
    struct Vectors: HouseholdMapVisitor {
      let version: HouseholdVersion
      var vectors: [VersionVector] = []
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        vectors.append(version[keyPath: map.version])
      }
    }
    var gather = Vectors(version: self)
    HouseholdState.forEachMap(&gather, carrying: carried)
    return gather.vectors + [categoryMoves]
  }
}
