import Foundation

/// What the platform's storage lets a store do: decided once per platform, so that each
/// decision is tested on any platform (docs/platforms.md).
///
/// A store reads its platform's limits (``current``); a test passes another platform's to see
/// its decisions.
public struct PlatformLimits: Hashable, Sendable {
  /// The platforms whose storage differs for a store.
  public enum Platform: String, CaseIterable, Hashable, Sendable {
    case macOS, iOS, watchOS, tvOS, visionOS, linux, other
  }

  /// The platform these limits are of.
  public let platform: Platform

  /// The limits of `platform`.
  public init(_ platform: Platform) {
    self.platform = platform
  }

  /// The limits of the platform this code runs on.
  public static let current = PlatformLimits(.current)

  /// Whether a missing replica file may start a new household (`HouseholdStore.FirstLaunch.createHousehold(ownerName:owner:)`).
  ///
  /// Not on tvOS: an app there has no lasting local storage (its files live in Caches, which
  /// the system purges), so a missing file says nothing about whether the household exists,
  /// and creating one would fork a second household beside the family's. A tvOS app joins, and
  /// merges the household from a peer.
  public var createsHouseholds: Bool { platform != .tvOS }

  /// The largest replica file a store reads by default (``ReplicaStore/defaultMaximumFileSize``):
  /// 32 MiB on watchOS, whose apps are held to tens of MB of memory; 256 MiB elsewhere.
  public var maximumFileSize: Int { platform == .watchOS ? 32 << 20 : 256 << 20 }
}

extension PlatformLimits.Platform {
  /// The platform this code was built for.
  public static var current: Self {
    #if os(tvOS)
      .tvOS
    #elseif os(watchOS)
      .watchOS
    #elseif os(visionOS)
      .visionOS
    #elseif os(iOS)
      .iOS
    #elseif os(macOS)
      .macOS
    #elseif os(Linux)
      .linux
    #else
      .other
    #endif
  }
}
