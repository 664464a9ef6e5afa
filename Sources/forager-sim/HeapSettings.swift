#if canImport(Glibc)
  import Glibc
#endif

/// How the simulator's process asks its allocator to keep the heap, on glibc: in one arena,
/// with a fixed threshold for blocks mapped on their own.
///
/// A run holds a household for every device and grows for its whole length, and it frees as
/// much as it keeps: every merge replaces tables, every session replaces versions. glibc gives
/// each thread that allocates an arena of its own (the checks' thread too), keeps what is freed
/// in each arena resident, and raises its threshold for mapping a block on its own each time
/// such a block is freed, so that later large tables come from an arena and leave holes there.
/// One arena and the default threshold, fixed, took the 50-device run's peak resident set from
/// 349 MB to 314 MB with the same report (docs/decisions/0051). The heap the run holds is the
/// same; what changes is how much freed memory stays resident beside it.
///
/// Elsewhere (Darwin's allocator, musl) there is nothing to set: `mallopt` is looked up at run
/// time, as the Swift module map does not export `malloc.h`, and absent it does nothing.
enum HeapSettings {
  /// glibc's `M_ARENA_MAX` and `M_MMAP_THRESHOLD` (`malloc.h`).
  private static let arenaMaximum: Int32 = -8
  private static let mappingThreshold: Int32 = -3
  /// glibc's default threshold, 128 KiB, where its dynamic raise starts.
  private static let defaultMappingThreshold: Int32 = 128 * 1024

  /// Applies the settings. Call before a second thread allocates.
  static func keepHeapCompact() {
    #if canImport(Glibc)
      typealias Setting = @convention(c) (Int32, Int32) -> Int32
      guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
      let mallopt = unsafeBitCast(symbol, to: Setting.self)
      _ = mallopt(arenaMaximum, 1)
      _ = mallopt(mappingThreshold, defaultMappingThreshold)
    #endif
  }
}
