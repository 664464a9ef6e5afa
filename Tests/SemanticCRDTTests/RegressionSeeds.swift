/// Seeds of scenarios that once failed, run before the random ones. Each entry says what the
/// seed found; keep them even after the fix.
enum RegressionSeeds {
  /// The first seed of each type that failed once scenarios gave replicas accented ids and
  /// delivered messages decomposed: an id spelled `"e\u{301}"` was equal to `"é"` but sorted
  /// elsewhere, so siblings and ties were ordered differently on different replicas (see
  /// `ReplicaIDSpellingTests`).
  static let orSet: [UInt64] = [6_598_729_584_425_311_974]
  static let orMap: [UInt64] = [16_577_508_195_977_595_657]
  static let lwwMap: [UInt64] = [13_707_644_295_610_886_158]
  static let mvRegister: [UInt64] = [9_794_268_840_334_890_531]
  static let lwwRegister: [UInt64] = [6_941_237_466_361_033_135]
  /// A key removed and assigned again minted the dot its first assignment had, so a peer that
  /// had seen that one dropped the new assignment (ADR 0011).
  /// (And, the last, the accented spelling's.)
  static let mapOfRegisters: [UInt64] = [
    2_200_841_030_025_844_195, 18_228_424_633_041_264_882,
  ]
  /// The same reuse lost an insert into a set created again under its key. (And, the last,
  /// the accented spelling's.)
  static let mapOfSets: [UInt64] = [6_795_063_452_045_566_314, 6_139_421_627_857_837_662]
  /// The same reuse brought back a field of a nested map that had been removed. (And, the
  /// last, the accented spelling's.)
  static let mapOfMaps: [UInt64] = [
    14_130_006_282_739_560_628, 15_006_866_584_353_428_303,
  ]
}
