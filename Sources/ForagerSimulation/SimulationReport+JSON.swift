import SemanticCRDT
import SemanticCRDTJSON

extension SimulationReport {
  /// The report as JSON, for machines: the same figures as ``text``, keys sorted.
  public var json: [UInt8] {
    var writer = JSONWriter()
    writer.beginObject()
    if let baseline {
      writer.key("baseline")
      writer.beginArray()
      for household in baseline {
        writer.beginObject()
        writer.field("categories", household.categories)
        writer.field("category_names", household.categoryNames)
        writer.field("double_booked_slots", household.doubleBookedSlots)
        writer.field("increments_counted", household.incrementsCounted)
        writer.field("increments_made", household.incrementsMade)
        writer.field("meals", household.meals)
        writer.field("template_names", household.templateNames)
        writer.field("templates", household.templates)
        writer.endObject()
      }
      writer.endArray()
    }
    writer.key("configuration")
    writeConfiguration(to: &writer)
    writer.key("convergence_rounds")
    if let rounds = convergenceRounds { writer.value(rounds) } else { writer.null() }
    writer.field("crashes", crashes)
    writer.key("defences")
    writer.beginObject()
    writer.field("damaged_journals", defences.damagedJournals)
    writer.field("failed_publications", defences.failedPublications)
    writer.field("failed_saves", defences.failedSaves)
    writer.field("forged_claims", defences.forgedClaims)
    writer.field("ignored_acknowledgments", defences.ignoredAcknowledgments)
    writer.field("ignored_versions", defences.ignoredVersions)
    writer.field("refused_forged_claims", defences.refusedForgedClaims)
    writer.field("refused_skipping_deltas", defences.refusedSkippingDeltas)
    writer.field("refused_unreadable", defences.refusedUnreadable)
    writer.field("refused_unsound_states", defences.refusedUnsoundStates)
    writer.field("reissued_records", defences.reissuedRecords)
    writer.field("skipped_folder_entries", defences.skippedFolderEntries)
    writer.endObject()
    writer.field("folder_syncs", folderSyncs)
    writer.field("published_lines", publishedLines)
    writer.field("published_snapshots", publishedSnapshots)
    writer.field("crashes_during_save", crashesDuringSave)
    if let failure {
      writer.key("failure")
      writer.beginObject()
      writer.field("shortened", failure.shortened)
      writer.field("steps", failure.steps)
      writer.field("trace", failure.trace)
      writer.endObject()
    }
    writer.field("holds", holds)
    writer.key("hostile_acts")
    writer.beginObject()
    for (act, count) in hostileActs.sorted(by: { $0.key < $1.key }) {
      writer.key(act)
      writer.value(count)
    }
    writer.endObject()
    writer.key("households")
    writer.beginArray()
    for household in households {
      writer.beginObject()
      writer.field("categories_per_device", household.categoriesPerDevice)
      writer.field("conflicted_slots", household.conflictedSlots)
      writer.field("devices", household.devices)
      writer.field("incarnations", household.incarnations)
      writer.field("items", household.items)
      writer.field("lists", household.lists)
      writer.field("meals", household.meals)
      writer.field("plans", household.plans)
      writer.field("recipes", household.recipes)
      writer.field("templates", household.templates)
      writer.endObject()
    }
    writer.endArray()
    writer.key("invariants")
    writer.beginArray()
    for invariant in invariants {
      writer.beginObject()
      writer.field("detail", invariant.detail)
      writer.field("holds", invariant.holds)
      writer.field("name", invariant.name)
      writer.field("violations", invariant.violations)
      writer.endObject()
    }
    writer.endArray()
    writer.key("messages")
    writer.beginObject()
    writer.field("announcements", announcements)
    writer.field("blocked", blocked)
    writer.field("deltas", deltas)
    writer.field("delivered", delivered)
    writer.field("dropped", dropped)
    writer.field("duplicated", duplicated)
    writer.field("full_states", fullStates)
    writer.field("reordered", reordered)
    writer.field("refused_after_dissolving", refusedAfterDissolving)
    writer.field("refused_clock_skew", refusedClockSkew)
    writer.field("refused_other_household", refusedOtherHousehold)
    writer.field("sent", messagesSent)
    writer.field("stale_deltas_discarded", staleDeltasDiscarded)
    writer.endObject()
    writer.key("operations")
    writer.beginObject()
    writer.field("acknowledged_writes", acknowledgedWrites)
    writer.field("attempted", operations)
    writer.field("lost_in_crashed_saves", lostInCrashedSaves)
    writer.endObject()
    writer.field("restored_from_backup", restoredFromBackup)
    writer.endObject()
    return writer.bytes
  }

  private func writeConfiguration(to writer: inout JSONWriter) {
    let c = configuration
    writer.beginObject()
    writer.field("amnesia", "\(c.amnesiaRate)")
    writer.field("baseline", c.baseline)
    writer.field("clock_skew_ms", c.clockSkewMilliseconds)
    writer.field("crash_rate", "\(c.crashRate)")
    writer.field("devices", c.devices)
    writer.field("drop", "\(c.dropRate)")
    writer.field("duplicate", "\(c.duplicateRate)")
    if !c.announcesVersions { writer.field("full_states_first", true) }
    writer.field("hostile", "\(c.hostileRate)")
    writer.field("households", c.households)
    if let budget = c.changeLogBudget { writer.field("log_budget", budget) }
    writer.field("partitions", c.partitions)
    writer.field("reorder", "\(c.reorderRate)")
    writer.field("scenario", c.scenario.rawValue)
    writer.field("seed", c.seed)
    writer.field("steps", min(c.steps, c.stopAfter ?? c.steps))
    writer.field("storage", c.storage.rawValue)
    writer.field("transport", c.transport.rawValue)
    writer.endObject()
  }
}
