import ForagerSync

extension SimulationReport {
  /// The human report: the run, what the network and the crashes did, each household, each
  /// invariant, and the old design's figures when asked. Deterministic: no times, no paths.
  public var text: String {
    let c = configuration
    var lines: [String] = []
    lines.append("forager-sim: scenario \(c.scenario.rawValue), seed \(c.seed)")
    let stepsRun = min(c.steps, c.stopAfter ?? c.steps)
    lines.append(
      "  \(Self.count(c.households, "household")), \(c.devices) devices, \(stepsRun) steps (one simulated second each)"
    )
    lines.append(
      "  network: drop \(c.dropRate), duplicate \(c.duplicateRate), reorder \(c.reorderRate), \(c.partitions) partitions; crash rate \(c.crashRate), amnesia \(c.amnesiaRate); clock skew up to \(Self.duration(c.clockSkewMilliseconds))"
    )
    if let budget = c.changeLogBudget {
      lines.append(
        "  change logs: at least \(budget) keys each (the library keeps \(ChangeLog.defaultMinimumBudget))"
      )
    }
    if !c.announcesVersions {
      lines.append("  sessions open with the whole state (--full-states)")
    }
    if c.transport != .messages || c.storage != .memory || c.hostileRate > 0 {
      lines.append(
        "  transport: \(c.transport.rawValue); storage: \(c.storage.rawValue); hostile peer: \(c.hostileRate) per step"
      )
    }
    lines.append("")
    lines.append(
      "operations  \(operations) (\(acknowledgedWrites) writes and removals acknowledged; \(lostInCrashedSaves) changes lost in saves cut short by a crash)"
    )
    lines.append(
      "messages    \(messagesSent) sent (\(deltas) deltas holding \(deltaRecords) records and \(deltaContextRanges) context ranges, \(fullStates) full states, \(announcements) announcements): \(delivered) delivered, \(dropped) dropped, \(duplicated) duplicated, \(reordered) reordered, \(blocked) lost to partitions or crashes, \(staleDeltasDiscarded) deltas for an earlier incarnation discarded"
    )
    lines.append(
      "refused     \(refusedOtherHousehold) states of another household, \(refusedClockSkew) for clock skew, \(refusedAfterDissolving) changes to a dissolved household"
    )
    if c.transport == .folder {
      lines.append(
        "folder      \(folderSyncs) syncs through the households' shared folders: \(publishedLines) lines and \(publishedSnapshots) snapshots published"
      )
    }
    if !hostileActs.isEmpty {
      lines.append(
        "hostile     "
          + hostileActs.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(
            separator: ", "))
    }
    if c.transport == .folder || c.storage == .files || c.hostileRate > 0 {
      let d = defences
      lines.append(
        "defences    \(d.refusedUnreadable) unreadable messages, \(d.refusedSkippingDeltas) deltas skipping changes, \(d.refusedForgedClaims) states claiming more than any device writes and \(d.refusedUnsoundStates) unsound states refused, \(d.ignoredAcknowledgments) acknowledgments and \(d.ignoredVersions) versions claiming unmade changes ignored, \(d.forgedClaims) forged claims found and \(d.reissuedRecords) records written again, \(d.damagedJournals) damaged journals read up to the damage, \(d.skippedFolderEntries) folder entries skipped, \(d.failedPublications) publications and \(d.failedSaves) saves stopped by the disk"
      )
    }
    lines.append(
      "crashes     \(crashes) (\(crashesDuringSave) during a save), \(restoredFromBackup) restarts from an old backup"
    )
    lines.append(
      "converged   "
        + (convergenceRounds.map {
          "after \($0) round\($0 == 1 ? "" : "s") of anti-entropy once the network healed"
        } ?? "no: replicas still differ after 10 rounds of anti-entropy"))
    lines.append("")
    for (index, household) in households.enumerated() {
      let categories =
        Set(household.categoriesPerDevice).count == 1
        ? "\(Self.count(household.categoriesPerDevice[0], "category", "categories")) on every device"
        : "categories per device \(household.categoriesPerDevice.map(String.init).joined(separator: "/"))"
      lines.append(
        "household \(index + 1): \(household.devices) devices; \(categories); \(household.templates) templates, \(household.recipes) recipes, \(household.lists) lists, \(household.items) items, \(household.plans) plans, \(household.meals) planned meals (\(household.conflictedSlots) with conflicting choices); \(household.incarnations) replica ids"
      )
    }
    lines.append("")
    lines.append("invariants")
    for invariant in invariants {
      lines.append(
        "  \(invariant.holds ? "PASS" : "FAIL")  \(invariant.name) (\(invariant.detail))")
      for violation in invariant.violations.prefix(5) {
        lines.append("        \(violation)")
      }
      if invariant.violations.count > 5 {
        lines.append("        … and \(invariant.violations.count - 5) more")
      }
    }
    if let baseline {
      lines.append("")
      lines.append(
        "baseline: the old design (UUID identity, last writer wins, local get-or-create)")
      for (index, household) in baseline.enumerated() {
        let lost =
          household.incrementsMade - min(household.incrementsMade, household.incrementsCounted)
        lines.append(
          "  household \(index + 1): \(household.categories) categories for \(household.categoryNames) names (\(household.categories - household.categoryNames) duplicates); \(household.templates) templates for \(household.templateNames) names; \(household.incrementsMade) usage increments made, \(household.incrementsCounted) counted (\(lost) lost); \(household.doubleBookedSlots) double-booked slots"
        )
      }
    }
    if let failure {
      lines.append("")
      lines.append(
        failure.shortened
          ? "FAILED with seed \(c.seed): the run cut to \(failure.steps) steps still fails (rerun with the same flags and --stop-after \(failure.steps)); its trace:"
          : "FAILED with seed \(c.seed) after \(failure.steps) steps (too long to shorten; rerun with the same flags, or --stop-after a smaller number to look for a shorter failing run); its trace:"
      )
      lines += failure.trace.map { "  \($0)" }
    }
    lines.append("")
    lines.append(holds ? "result: every invariant holds" : "result: FAILED")
    return lines.joined(separator: "\n") + "\n"
  }

  /// "1 household", "2 households".
  static func count(_ number: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(number) \(number == 1 ? singular : plural ?? singular + "s")"
  }

  /// "5m", "90s", "2h", "3d", or milliseconds.
  static func duration(_ milliseconds: UInt64) -> String {
    for (unit, size) in [("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000)]
    where milliseconds >= UInt64(size) && milliseconds % UInt64(size) == 0 {
      return "\(milliseconds / UInt64(size))\(unit)"
    }
    return "\(milliseconds)ms"
  }
}
