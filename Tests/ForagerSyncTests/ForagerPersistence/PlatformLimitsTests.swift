import ForagerSync
import ForagerTestSupport
import Foundation
import Testing

/// Each platform's storage decisions, played on any platform (docs/platforms.md).
@Suite struct PlatformLimitsTests {
  @Test func onlyTVOSCreatesNoHouseholdAndOnlyWatchOSReadsLessByDefault() {
    for platform in PlatformLimits.Platform.allCases {
      let limits = PlatformLimits(platform)
      #expect(limits.createsHouseholds == (platform != .tvOS), "\(platform)")
      #expect(
        limits.maximumFileSize == (platform == .watchOS ? 32 << 20 : 256 << 20), "\(platform)")
    }
    #expect(ReplicaStore.defaultMaximumFileSize == PlatformLimits.current.maximumFileSize)
    #expect(PlatformLimits.current.platform == .linux)
  }

  /// On tvOS a missing file is no proof that the household does not exist (the system purges
  /// the app's caches): a first launch that would create one is refused, with nothing written,
  /// while joining works and a file that is there opens.
  @Test func aTVOSStoreJoinsButNeverCreatesAHousehold() async throws {
    let root = TemporaryFolder()
    let file = root.file("household.json")
    let tv = PlatformLimits(.tvOS)
    do {
      _ = try await HouseholdStore(
        fileURL: file, firstLaunch: .createHousehold(ownerName: "Sam"), platform: tv)
      Issue.record("a tvOS store created a household")
    } catch {
      #expect(error.problem == .householdNotCreatedOnCache(.tvOS))
    }
    #expect(!FileManager.default.fileExists(atPath: file.path))

    let household = HouseholdID()
    let joined = try await HouseholdStore(
      fileURL: file, firstLaunch: .join(household, member: MemberID()), platform: tv)
    #expect(joined.householdID == household && joined.isFirstLaunch)
  }

  /// Elsewhere a missing file still starts a household, as before.
  @Test func otherPlatformsCreateAHouseholdOnAMissingFile() async throws {
    for platform in PlatformLimits.Platform.allCases where platform != .tvOS {
      let root = TemporaryFolder()
      let store = try await HouseholdStore(
        fileURL: root.file("household.json"), firstLaunch: .createHousehold(ownerName: "Sam"),
        platform: PlatformLimits(platform))
      #expect(store.isFirstLaunch, "\(platform)")
    }
  }
}
