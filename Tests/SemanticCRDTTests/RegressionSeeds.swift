/// Seeds of scenarios that once failed, run before the random ones. Each entry says what the
/// seed found; keep them even after the fix.
enum RegressionSeeds {
  static let orSet: [UInt64] = []
  static let orMap: [UInt64] = []
  static let lwwMap: [UInt64] = []
  static let mvRegister: [UInt64] = []
}
