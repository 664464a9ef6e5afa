import ForagerSync
import SemanticCRDT
import SemanticCRDTJSON

/// A broken invariant, with the records and devices behind it (for the trace).
struct Violation: Sendable {
  let text: String
  var records: [RecordKey] = []
  var devices: [Int] = []
}

extension Simulation {
  /// Checks the final states, after the network healed.
  mutating func checkInvariants() {
    var invariants: [(String, String, [Violation])] = []
    invariants.append(
      (
        "every device opens its file", "\(devices.count) devices",
        devices.filter { $0.replica == nil }.map {
          Violation(
            text: "\(name($0.index)) could not open its file (see the failed operations)",
            devices: [$0.index])
        } + soundness.violations(.file) + unopenableFiles()
      ))
    invariants.append(
      (
        "replicas of a household are equal (byte-identical encoded states)",
        "\(devices.count) devices in \(SimulationReport.count(configuration.households, "household"))",
        replicasDiffer()
      ))
    invariants.append(
      (
        "no semantic key has two records and no reference dangles",
        "every map of every device, after every merge and at the end",
        soundness.violations() + semanticKeyViolations()
      ))
    let (writeViolations, writeDetail) = acknowledgedWriteViolations()
    invariants.append(
      ("every acknowledged write is visible or superseded", writeDetail, writeViolations))
    let (counterViolations, counterDetail) = counterMismatches()
    invariants.append(
      ("every counter equals the increments made", counterDetail, counterViolations))
    invariants += mixedVersionInvariants()
    invariants.append(
      (
        "no record crossed households",
        "\(report.refusedOtherHousehold) misdirected states refused", crossedRecords()
      ))
    if configuration.transport == .folder {
      invariants.append(
        (
          "nothing outside the shared folders is written",
          "\(report.hostileActs[HostileAct.linkAtName.rawValue] ?? 0) links left at devices' names",
          outsideFilesWritten()
        ))
    }
    invariants.append(
      (
        "no operation failed unexpectedly", "\(report.operations) operations",
        unexpectedFailures.map { Violation(text: $0) }
      ))
    if let expectation = scenarioExpectation() {
      invariants.append(expectation)
    }
    violations = invariants.flatMap(\.2)
    report.invariants = invariants.map { name, detail, found in
      SimulationReport.Invariant(
        name: name, holds: found.isEmpty, detail: detail, violations: found.map(\.text))
    }
  }

  /// The state every device of `household` should hold: its first running device's (one that
  /// could not open its file is reported on its own, by "every device opens its file").
  func finalState(of household: Int) -> HouseholdState {
    let members = householdDevices[household]
    for index in members {
      if let state = devices[index].replica?.state { return state }
    }
    return HouseholdState(householdID: devices[members[0]].householdID)
  }

  /// The devices of `household` that run (opened their files).
  func runningDevices(of household: Int) -> [Int] {
    householdDevices[household].filter { devices[$0].replica != nil }
  }

  private func replicasDiffer() -> [Violation] {
    var found: [Violation] = []
    for household in householdDevices.indices {
      let members = runningDevices(of: household)
      let reference = finalState(of: household)
      let referenceBytes = JSONWriter.encode(reference)
      for index in members.dropFirst() {
        guard let state = devices[index].replica?.state else { continue }
        guard JSONWriter.encode(state) != referenceBytes else { continue }
        found.append(
          Violation(
            text:
              "household \(household + 1): \(name(index)) differs from \(name(members[0])) in \(state.differingParts(from: reference).joined(separator: ", "))",
            devices: [index, members[0]]))
      }
    }
    return found
  }

  /// With files storage, each running device's file opens, by a store of its own, to the
  /// household the device last saved: what a crash, a failed write or a fault left there
  /// harms nothing, whether or not the device restarted since.
  private func unopenableFiles() -> [Violation] {
    devices.compactMap { device -> Violation? in
      guard device.store != nil, device.replica != nil else { return nil }
      do {
        _ = try device.openedFile(incarnation: "checker", fault: configuration.fault)
        return nil
      } catch {
        return Violation(
          text: "\(name(device.index))'s file: \(withoutFolderRoot(String(describing: error)))",
          devices: [device.index])
      }
    }
  }

  private func semanticKeyViolations() -> [Violation] {
    devices.flatMap { device in
      (device.replica?.state.invariantViolations() ?? []).map {
        Violation(text: "\(name(device.index)): \($0)", devices: [device.index])
      }
    }
  }

  /// Every acknowledged write not lost to a restore is visible in the final state, or was
  /// superseded: a field holds a later stamp, a removal that had seen the write took the
  /// record away, a slot shows a later assignment.
  private func acknowledgedWriteViolations() -> ([Violation], String) {
    let removed = writesRemovedBySeers()
    let finals = (0..<configuration.households).map(finalState(of:))
    let madeAt = valuesMadeAtTies(in: finals)
    var found: [Violation] = []
    for (position, write) in writes.enumerated() where !lostToRestore.contains(position) {
      let state = finals[write.household]
      let removedBySeer = removed.contains(position)
      let problem: String?
      switch write.effect {
      case .record:
        problem = state.contains(write.record) || removedBySeer ? nil : "\(write.record) is missing"
      case .field(let field, let stamp, let value):
        if removedBySeer {
          problem = nil
        } else if let (finalStamp, finalValue) = state.field(field) {
          // Two values may share a stamp: one edit that renumbers categories stamps each sort
          // order alike, and so does genesis every default no one chose (ADR 0013). Moves of
          // two such categories to one key carry both, and the record shows either: a value
          // another logged write made at that stamp.
          let held = StampedValue(finalStamp, finalValue)
          let holds =
            finalStamp > stamp
            || (finalStamp == stamp
              && (!held.ties(StampedValue(stamp, value))
                || madeAt[write.household].contains(held)))
          problem =
            holds
            ? nil
            : "\(field) is \(finalValue.debugDescription) at \(finalStamp), not \(value.debugDescription) at \(stamp) or later"
        } else {
          problem = "\(field.record) is missing"
        }
      case .increment(let counter, let count, let contributor):
        let final = state.contributions(counter)?[contributor] ?? 0
        problem =
          final >= count || removedBySeer
          ? nil : "\(counter) counts \(final) from \(contributor), not \(count)"
      case .assignment(let slot, let recipe, let stamp):
        // The slot still shows this assignment (as the choice or a conflict), unless a clear
        // or an assignment that had seen it replaced it.
        let shown = state.meals[slot]?.assignment.writes.contains {
          $0.value == recipe && isStamp($0.timestamp, issuedAgainFrom: stamp)
        }
        let holds = removedBySeer || shown == true
        problem = holds ? nil : "\(write.record) lost the assignment of \(RecordKey.recipe(recipe))"
      }
      if let problem {
        found.append(
          Violation(
            text:
              "\(name(write.device)) at step \(write.step) \(write.operation): \(problem)",
            records: [write.record], devices: [write.device]))
      }
    }
    found += unwrittenFieldValues(in: finals)
    let lost = lostToRestore.count
    let detail =
      "\(writes.count - lost) of \(writes.count) writes checked, "
      + (lost > 0 ? "\(lost) lost with unsynced state on restore from backup, " : "")
      + "\(removals.count) removals checked through the writes they removed"
    return (found, detail)
  }

  /// Whether `stamp` is `logged`, or `logged` issued again by a later incarnation after a
  /// forged claim on its writes (same time, the new incarnation's id; ADR 0029).
  func isStamp(_ stamp: HybridTimestamp, issuedAgainFrom logged: HybridTimestamp) -> Bool {
    guard stamp.wallMilliseconds == logged.wallMilliseconds, stamp.logical == logged.logical
    else { return false }
    var seen: Set<ReplicaID> = [logged.replica]
    var next = [logged.replica]
    while let current = next.popLast() {
      if current == stamp.replica { return true }
      for successor in reissuedAs[current] ?? [] where seen.insert(successor).inserted {
        next.append(successor)
      }
    }
    return false
  }

  /// The positions of the logged writes that a logged removal had seen: the removal took them
  /// away, whatever survives of their record.
  private func writesRemovedBySeers() -> Set<Int> {
    var removalsOf: [Int: [RecordKey: [LoggedRemoval]]] = [:]
    for removal in removals {
      removalsOf[removal.household, default: [:]][removal.record, default: []].append(removal)
    }
    var removed: Set<Int> = []
    for (position, write) in writes.enumerated()
    where removalsOf[write.household]?[write.record]?.contains(where: {
      $0.hasSeen(write.dot)
    }) ?? false {
      removed.insert(position)
    }
    return removed
  }

  /// Of the values a field holds at the end at the stamp of a logged write that wrote another
  /// value (a tie, which the check of acknowledged writes accepts when a logged write made the
  /// value held), those a logged write made, by household.
  ///
  /// Only the values ties name are looked for: a set of every value every write made was some
  /// 6 MB of heap at 50 devices and 100,000 steps, at the end of the run, where its peak is.
  private func valuesMadeAtTies(in finals: [HouseholdState]) -> [Set<StampedValue>] {
    var tied = finals.map { _ in Set<StampedValue>() }
    for write in writes {
      guard case .field(let field, let stamp, let value) = write.effect,
        let (finalStamp, finalValue) = finals[write.household].field(field)
      else { continue }
      let held = StampedValue(finalStamp, finalValue)
      if held.ties(StampedValue(stamp, value)) { tied[write.household].insert(held) }
    }
    var made = finals.map { _ in Set<StampedValue>() }
    for write in writes {
      guard case .field(_, let stamp, let value) = write.effect,
        tied[write.household].contains(StampedValue(stamp, value))
      else { continue }
      made[write.household].insert(StampedValue(stamp, value))
    }
    return made
  }

  /// Each field a logged write set holds a value someone wrote: a logged write's, or the
  /// default no one chose (stamped at genesis). A creation that stamped its defaults as a
  /// write would pass the check above (its stamp is later) while a choice was lost to it.
  ///
  /// It goes record by record, keeping a flag per field of one record, and names only the
  /// fields that fail: at 50 devices and 100,000 steps, the stamps' sets and the names of every
  /// field were some 30 MB of heap at the end of the run, and a flag per field of the run 19 MB.
  private func unwrittenFieldValues(in finals: [HouseholdState]) -> [Violation] {
    var unmade: [(household: Int, violation: Violation)] = []
    for (household, writesOfRecords) in writesByRecord.enumerated() {
      for positions in writesOfRecords.values {
        // Whether a logged write made the value the field holds at the end (or it holds none,
        // or the default no one chose).
        var madeByALoggedWrite: [FieldRef: Bool] = [:]
        for position in positions {
          guard case .field(let field, let stamp, _) = writes[position].effect,
            madeByALoggedWrite[field] != true
          else { continue }
          let held = finals[household].field(field)?.stamp
          madeByALoggedWrite[field] = held == nil || held == HouseholdState.genesis || held == stamp
        }
        for (field, made) in madeByALoggedWrite where !made {
          guard let (stamp, value) = finals[household].field(field) else { continue }
          let text =
            "\(field) holds \(value.debugDescription) at \(stamp), which no logged write made"
          unmade.append((household, Violation(text: text, records: [field.record])))
        }
      }
    }
    // In order of household and text, which begins with the field's name (two fields may
    // share a name), so that a failing run reports the same on every run.
    return unmade.sorted { ($0.household, $0.violation.text) < ($1.household, $1.violation.text) }
      .map(\.violation)
  }

  /// Each counter's contribution from each replica equals that replica's logged increments;
  /// increments lost to a restore may or may not have escaped before it.
  private func counterMismatches() -> ([Violation], String) {
    struct Tally {
      var required: UInt64 = 0
      var made: UInt64 = 0
    }
    struct CounterOfReplica: Hashable {
      let household: Int
      let counter: CounterRef
      let replica: ReplicaID
    }
    var tallies: [CounterOfReplica: Tally] = [:]
    let removed = writesRemovedBySeers()
    for (position, write) in writes.enumerated() {
      guard case .increment(let counter, let count, let contributor) = write.effect else {
        continue
      }
      let key = CounterOfReplica(household: write.household, counter: counter, replica: contributor)
      tallies[key, default: Tally()].made = max(tallies[key]?.made ?? 0, count)
      // A removal that had seen an increment took it away with its record (a recipe deleted).
      if !lostToRestore.contains(position) && !removed.contains(position) {
        tallies[key, default: Tally()].required = max(tallies[key]?.required ?? 0, count)
      }
    }
    var found: [Violation] = []
    var made: UInt64 = 0
    var counted: UInt64 = 0
    for household in 0..<configuration.households {
      let state = finalState(of: household)
      let counters =
        state.ingredients.keys.map { CounterRef.ingredientUses($0) }
        + state.recipes.keys.map { CounterRef.recipeUses($0) }
      for counter in counters {
        for (replica, value) in state.contributions(counter) ?? [:] {
          counted += value
          let tally = tallies[
            CounterOfReplica(household: household, counter: counter, replica: replica)]
          if tally == nil {
            found.append(
              Violation(
                text:
                  "household \(household + 1): \(counter) counts \(value) from \(replica), which made no increments",
                records: [counter.record]))
          }
        }
      }
    }
    for (key, tally) in tallies.sorted(byName: { "\($0.key.counter)\($0.key.replica)" }) {
      made += tally.made
      let final = finalState(of: key.household).contributions(key.counter)?[key.replica] ?? 0
      guard final < tally.required || final > tally.made else { continue }
      found.append(
        Violation(
          text:
            "household \(key.household + 1): \(key.counter) counts \(final) from \(key.replica), but it made \(tally.made)\(tally.required < tally.made ? " (at least \(tally.required) survived)" : "")",
          records: [key.counter.record]))
    }
    let lost = tallies.values.reduce(0) { $0 + $1.made - $1.required }
    return (
      found,
      "\(made) increments made, \(counted) counted"
        + (lost > 0 ? ", up to \(lost) lost with unsynced state on restore from backup" : "")
    )
  }

  /// Every record was created by a member of its own household.
  private func crossedRecords() -> [Violation] {
    var found: [Violation] = []
    for household in 0..<configuration.households {
      let state = finalState(of: household)
      // Its devices' members and the guests its owner added (acknowledged adds only).
      let members = Set(householdDevices[household].map { devices[$0].member })
        .union(created[household].guests)
      if state.householdID != householdIDs[household] {
        found.append(
          Violation(text: "household \(household + 1) holds the state of \(state.householdID)"))
      }
      var creators = Creators(state: state)
      HouseholdState.forEachMap(&creators, carrying: state.carriedMapNames)
      for (creator, record) in creators.found.sorted(by: { $0.1 < $1.1 })
      where !members.contains(creator) {
        found.append(
          Violation(
            text:
              "household \(household + 1) holds \(record), made by a member of another household"))
      }
    }
    return found
  }

  /// What the scripted scenario must end with.
  private func scenarioExpectation() -> (String, String, [Violation])? {
    switch configuration.scenario {
    case .household, .mixedVersions:
      return nil
    case .offlineDefaults:
      let expected = Set(HouseholdReplica.defaultCategoryNames.map { CategoryKey(normalizing: $0) })
      let found = devices.filter {
        $0.replica.map { Set($0.categories().map(\.key)) != expected } ?? false
      }.map {
        Violation(
          text: "\(name($0.index)) shows \($0.replica?.categories().count ?? 0) categories",
          devices: [$0.index])
      }
      return ("every device shows the 7 default categories once", "\(devices.count) devices", found)
    case .offlineSameCategory:
      let found = devices.filter { $0.replica.map { $0.categories().count != 1 } ?? false }.map {
        Violation(
          text: "\(name($0.index)) shows \($0.replica?.categories().count ?? 0) categories",
          devices: [$0.index])
      }
      return ("every device shows one \"Test Category\"", "\(devices.count) devices", found)
    case .slotConflict:
      let slot = Vocabulary.contestedSlot
      let found = devices.compactMap { device -> Violation? in
        guard let meals = device.replica?.state.meals else { return nil }
        let choices = meals[slot]?.assignment.writes.count ?? 0
        let members = householdDevices[device.household].count
        guard meals.count != 1 || choices != members else { return nil }
        return Violation(
          text:
            "\(name(device.index)) shows \(meals.count) planned meals and \(choices) choices in \(slot), not 1 meal with \(members) choices",
          records: [.meal(slot)], devices: [device.index])
      }
      return (
        "the contested slot is one meal showing every choice", "\(devices.count) devices", found
      )
    }
  }
}

/// Every record of a state with the member who created it, described for a person.
private struct Creators: HouseholdMapVisitor {
  let state: HouseholdState
  var found: [(MemberID, String)] = []

  mutating func visit<Record>(_ map: HouseholdMap<Record>) {
    state[keyPath: map.records].forEachBoxedValue { key, record in
      found.append((record.value.owner, "\(map.singular) \(key)"))
    }
  }
}

extension HouseholdState {
  /// The names of the parts in which two states differ.
  func differingParts(from other: HouseholdState) -> [String] {
    struct Differing: HouseholdMapVisitor {
      let state: HouseholdState
      let other: HouseholdState
      var parts: [String] = []
      mutating func visit<Record>(_ map: HouseholdMap<Record>) {
        if state[keyPath: map.records] != other[keyPath: map.records] {
          parts.append(map.field)
        }
      }
    }
    var differing = Differing(state: self, other: other)
    if owner != other.owner { differing.parts.append("owner") }
    if dissolved != other.dissolved { differing.parts.append("dissolved") }
    Self.forEachMap(&differing, carrying: carriedMapNames(with: other))
    if moves != other.moves { differing.parts.append("categoryMoves") }
    return differing.parts.isEmpty ? ["its encoding"] : differing.parts
  }
}

/// A field's value with the stamp of the write that made it.
private struct StampedValue: Hashable {
  let stamp: HybridTimestamp
  let value: String

  init(_ stamp: HybridTimestamp, _ value: String) {
    self.stamp = stamp
    self.value = value
  }

  /// Whether this value, which a field holds, shares the stamp of `written`, a logged write's,
  /// with another value: a tie the check of acknowledged writes accepts only when a logged
  /// write made this value. Genesis stamps every default no one chose, so it ties nothing.
  func ties(_ written: StampedValue) -> Bool {
    stamp == written.stamp && value != written.value && written.stamp != HouseholdState.genesis
  }
}

extension Sequence {
  /// The elements in the order of their names, each named once: a name built inside the
  /// comparison is built again on every comparison, and a record's formats its identifier
  /// (most of a short run's final checks, before the names were built once).
  fileprivate func sorted(byName name: (Element) -> String) -> [Element] {
    map { (name: name($0), element: $0) }.sorted { $0.name < $1.name }.map(\.element)
  }
}
