/// A named simulation: what the devices do before the random part of the run.
public enum Scenario: String, CaseIterable, Sendable {
  /// The first design's reported bug: every device seeds the default categories on first
  /// launch while offline. The household must end with seven categories on every device (the
  /// old design made fourteen with two devices).
  case offlineDefaults = "offline-defaults"
  /// The app's test plan: every device, in airplane mode, creates "Test Category" spelled its
  /// own way. The household must end with one category.
  case offlineSameCategory = "offline-same-category"
  /// Every device, offline, assigns its own recipe to the same dinner slot. The slot must end
  /// as one planned meal showing the other choices as conflicts, not as a double booking.
  case slotConflict = "slot-conflict"
  /// A random mixed run of the whole household model under every fault: the default.
  case household
  /// The household run with devices on two builds of the model: this one, and a test-only
  /// newer one that adds a record kind (a pantry's shelves), which this build carries. Each
  /// household's first device starts on the newer build; an older device may be updated when
  /// it restarts; the last never is, and relays between newer ones to the end.
  case mixedVersions = "mixed-versions"

  /// One line for `--help`.
  public var summary: String {
    switch self {
    case .offlineDefaults: "devices seed the default categories offline, then sync (expect 7)"
    case .offlineSameCategory: "devices create \"Test Category\" offline, spelled differently"
    case .slotConflict: "devices fill the same dinner slot offline with different recipes"
    case .household: "a random mixed run of every operation under every fault (default)"
    case .mixedVersions: "the household run with devices on this build and a newer one"
    }
  }

  /// Whether the random workload runs after the scripted start. The scripted scenarios only
  /// gossip (under faults) after their script, so their outcome is exactly the script's.
  var runsWorkload: Bool { self == .household || self == .mixedVersions }
}
