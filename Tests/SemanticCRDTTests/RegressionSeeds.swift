/// Seeds of scenarios that once failed, run before the random ones. Each entry says what the
/// seed found; keep them even after the fix.
enum RegressionSeeds {
  static let orSet: [UInt64] = []
  static let orMap: [UInt64] = []
  static let lwwMap: [UInt64] = []
  static let mvRegister: [UInt64] = []
  /// A key removed and assigned again minted the dot its first assignment had, so a peer that
  /// had seen that one dropped the new assignment (ADR 0011).
  static let mapOfRegisters: [UInt64] = [2_200_841_030_025_844_195]
  /// The same reuse lost an insert into a set created again under its key.
  static let mapOfSets: [UInt64] = [6_795_063_452_045_566_314]
  /// The same reuse brought back a field of a nested map that had been removed.
  static let mapOfMaps: [UInt64] = [14_130_006_282_739_560_628]
}
