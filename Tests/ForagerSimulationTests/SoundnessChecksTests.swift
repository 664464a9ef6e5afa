import ForagerSync
import Testing

@testable import ForagerSimulation

/// The check of each device's state after a merge finds the same violations, in the same order,
/// on the run's thread and on a second core.
@Suite struct SoundnessChecksTests {
  /// A household with an item on a list, and the same with its templates gone: the item then
  /// names a template that does not exist, what a buggy merge would leave.
  static func states() throws -> (sound: HouseholdState, unsound: HouseholdState) {
    var replica = HouseholdReplica.create(
      household: HouseholdID(), owner: MemberID(), ownerName: "Ana", replica: "phone",
      wallClock: .fixed(1_000))
    let list = try replica.createWeeklyList(name: "This Week")
    try replica.addItem("salt", to: list.id)
    var unsound = replica.state
    for key in unsound.ingredients.keys { unsound.ingredients.remove(key) }
    return (replica.state, unsound)
  }

  @Test(arguments: [Cores.one, .two])
  func violationsComeInTheOrderTheChecksWereAskedIn(cores: Cores) throws {
    let (sound, unsound) = try Self.states()
    #expect(sound.invariantViolations().isEmpty)
    let problems = unsound.invariantViolations()
    #expect(!problems.isEmpty)
    let checks = SoundnessChecks(cores: cores)
    // More states than may wait, so that the run's thread waits for a slot at least once.
    let unsoundAt = [1, 4, 5, 9]
    for order in 0..<(SoundnessChecks.statesInFlight * 5) {
      checks.check(
        unsoundAt.contains(order) ? unsound : sound, device: order % 3, what: "check \(order)")
    }
    let found = checks.violations()
    let expected = unsoundAt.flatMap { order in problems.map { "check \(order): \($0)" } }
    #expect(found.map(\.text) == expected)
    let devices = unsoundAt.flatMap { order in problems.map { _ in [order % 3] } }
    #expect(found.map(\.devices) == devices)
  }

  /// A whole run reports the same, byte for byte, whichever cores check its states.
  @Test func aRunReportsTheSameOnOneCoreOrTwo() {
    var configuration = SimulationConfiguration(seed: 3)
    configuration.steps = 1_500
    configuration.hostileRate = 0.02
    let one = Simulation.run(configuration, cores: .one)
    let two = Simulation.run(configuration, cores: .two)
    #expect(one.holds)
    #expect(one.text == two.text)
    #expect(one.json == two.json)
  }
}
