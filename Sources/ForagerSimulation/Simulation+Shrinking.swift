import ForagerSync

extension Simulation {
  /// A failing prefix of a failing run one step longer than a passing one, by bisection over
  /// `stopAfter` (a prefix of a run is that run cut short, so each probe replays the same
  /// events): the shortest failing prefix when a failure, once it appears, stays. With it, the
  /// events of that prefix that touched the records and devices of its violations.
  ///
  /// - Complexity: About log₂(steps) reruns of at most `steps` steps.
  static func shortestFailingPrefix(
    of configuration: SimulationConfiguration, failingAt steps: Int, cores: Cores
  ) -> SimulationReport.Failure {
    var passing = -1
    var failing = steps
    while failing - passing > 1 {
      let middle = (passing + failing) / 2
      var probe = configuration
      probe.stopAfter = middle
      var simulation = Simulation(probe, cores: cores)
      if simulation.run().holds { passing = middle } else { failing = middle }
    }
    var shortest = configuration
    shortest.stopAfter = failing
    var simulation = Simulation(shortest, cores: cores)
    _ = simulation.run()
    return SimulationReport.Failure(steps: failing, shortened: true, trace: simulation.trace())
  }

  /// The violations, then the events that touched their records or were crashes, restarts and
  /// backups of their devices, at most 40.
  func trace() -> [String] {
    let records = Set(violations.flatMap(\.records))
    let involved = Set(violations.flatMap(\.devices))
    var lines = violations.prefix(5).map { "violation: \($0.text)" }
    let relevant = events.filter { event in
      !Set(event.records).isDisjoint(with: records)
        || (event.records.isEmpty && event.device.map(involved.contains) ?? true)
    }
    lines += relevant.suffix(40).map { "step \($0.step): \($0.text)" }
    return lines
  }
}
