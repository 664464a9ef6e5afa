import CRDTTestSupport
import ForagerSimulation
import ForagerTestSupport
import SemanticCRDT
import SemanticCRDTJSON
import SharedSupport
import Testing

@testable import ForagerModel

/// A record kind this build does not know is carried as a map of such records, merged as the
/// declaring build merges it (ADR 0037): households of three devices, one of which runs this
/// build and two the test-only newer one (``NewerHousehold``), hold byte for byte what three
/// newer devices hold after the same edits and exchanges — full states and deltas, each sent
/// as bytes and read by the receiver's build — and a newer device reads every merged shelf
/// from what the older one relayed.
@Suite struct CarriedMapPropertyTests {
  static let shelves = ["cellar", "spices", "Ölregal"].map(CarriedKey.init)

  enum Step: CustomStringConvertible {
    /// An edit this build declares, on any device (`RandomHousehold`'s operation number).
    case edit(device: Int, operation: Int, seed: UInt64)
    /// A newer device writes field `field` of a shelf, creating it if absent.
    case shelf(device: Int, key: Int, field: Int, value: Int64)
    /// A newer device removes a shelf.
    case removeShelf(device: Int, key: Int)
    /// `into` merges `from`'s whole state, or the delta since its version.
    case send(from: Int, into: Int, delta: Bool)

    var description: String {
      switch self {
      case .edit(let device, let operation, let seed):
        "device \(device) edit \(operation) (\(seed))"
      case .shelf(let device, let key, let field, let value):
        "device \(device) writes field \(field) of shelf \(key) = \(value)"
      case .removeShelf(let device, let key): "device \(device) removes shelf \(key)"
      case .send(let from, let into, let delta):
        "\(from) sends \(into) \(delta ? "a delta" : "its state")"
      }
    }
  }

  static func generate(_ random: inout SplitMix64) -> [Step] {
    (0..<random.int(in: 6...40)).map { _ in
      switch random.int(in: 0..<12) {
      case 0...2:
        .edit(
          device: random.int(in: 0..<3),
          // Any of `RandomHousehold`'s edits but the last, a merge: sends are steps here.
          operation: random.int(in: 0..<(RandomHousehold.operationCount - 1)),
          seed: random.next())
      case 3...6:
        .shelf(
          device: random.int(in: 0..<2), key: random.int(in: 0..<3), field: random.int(in: 0..<4),
          value: random.draw(in: 0...5))
      case 7: .removeShelf(device: random.int(in: 0..<2), key: random.int(in: 0..<3))
      default:
        .send(
          from: random.int(in: 0..<3), into: random.int(in: 0..<3),
          delta: random.int(in: 0..<2) == 0)
      }
    }
  }

  /// A device of either build, and what the tests read of it.
  enum Device {
    case newer(NewerHousehold)
    case older(HouseholdReplica)

    var bytes: [UInt8] {
      switch self {
      case .newer(let household): household.bytes
      case .older(let replica): JSONWriter.encode(replica.state)
      }
    }

    var version: HouseholdVersion {
      switch self {
      case .newer(let household): household.version
      case .older(let replica): replica.state.version
      }
    }

    func delta(since version: HouseholdVersion) -> [UInt8]? {
      switch self {
      case .newer(let household): household.delta(since: version)
      case .older(let replica): replica.delta(since: version).map { JSONWriter.encode($0) }
      }
    }

    mutating func merge(_ bytes: [UInt8]) throws {
      switch self {
      case .newer(var household):
        try household.merge(bytes)
        self = .newer(household)
      case .older(var replica):
        _ = try replica.merge(try JSONReader.decode(HouseholdState.self, from: bytes))
        self = .older(replica)
      }
    }

    mutating func edit(operation: Int, seed: UInt64) {
      var random = SplitMix64(seed: seed)
      let name = random.pick(["Produce", "Café", "日本の食材", "bay leaves"])
      switch self {
      case .newer(var household):
        RandomHousehold.apply(
          operation: operation, name: name, random: &random, to: &household.replica, peers: [])
        self = .newer(household)
      case .older(var replica):
        RandomHousehold.apply(
          operation: operation, name: name, random: &random, to: &replica, peers: [])
        self = .older(replica)
      }
    }
  }

  /// Runs `steps`; with `mixed`, device 2 runs this build, otherwise the newer one. Returns
  /// each device's bytes, or what went wrong.
  static func run(_ steps: [Step], mixed: Bool) -> Result<[Device], Failure> {
    let start = RandomHousehold.replicas(seed: 5, devices: 3, operations: 0)
    var devices: [Device] = start.indices.map { index in
      index == 2 && mixed ? .older(start[index]) : .newer(NewerHousehold(replica: start[index]))
    }
    for step in steps {
      switch step {
      case .edit(let device, let operation, let seed):
        devices[device].edit(operation: operation, seed: seed)
      case .shelf(let device, let key, let field, let value):
        guard case .newer(var household) = devices[device] else { continue }
        let replica = household.replica.replicaID
        let stamp = household.replica.clock.tick()
        let creation = Creation(timestamp: stamp, member: RandomHousehold.owner)
        _ = household.shelves.update(shelves[key], by: replica, default: Shelf(creation: creation))
        {
          switch field {
          case 0: $0.keepers.write("keeper \(value)", at: stamp)
          case 1: $0.label.assign("label \(value)", at: stamp)
          case 2: $0.lastChecked.raise(to: value * 1_000)
          default: $0.restocks.increment(by: UInt64(value) + 1, replica: replica)
          }
        }
        devices[device] = .newer(household)
      case .removeShelf(let device, let key):
        guard case .newer(var household) = devices[device] else { continue }
        _ = household.shelves.remove(shelves[key])
        devices[device] = .newer(household)
      case .send(let from, let into, let delta):
        guard from != into else { continue }
        let bytes = delta ? devices[from].delta(since: devices[into].version) : devices[from].bytes
        guard let bytes else { continue }
        do {
          try devices[into].merge(bytes)
        } catch {
          return .failure(Failure("device \(into) refused what device \(from) sent: \(error)"))
        }
      }
    }
    return .success(devices)
  }

  struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
  }

  @Test func anOlderBuildCarriesANewerRecordKindAsTheNewerBuildMergesIt() {
    let failure = checkProperty(
      "older builds carry record kinds they do not know", iterations: 60,
      generate: Self.generate
    ) { steps in
      let typed: [Device]
      let mixed: [Device]
      switch (Self.run(steps, mixed: false), Self.run(steps, mixed: true)) {
      case (.success(let all), .success(let some)): (typed, mixed) = (all, some)
      case (.failure(let failure), _), (_, .failure(let failure)): return failure.description
      }
      for device in 0..<3 where typed[device].bytes != mixed[device].bytes {
        return "device \(device) holds other bytes when device 2 runs the older build"
      }
      // Every device gets every other's state, in each order: all converge, to the same bytes.
      for order in UnknownFieldPropertyTests.permutations(3) {
        var devices = mixed
        for round in 0..<2 {
          for from in order {
            for into in 0..<3 where into != from {
              do {
                try devices[into].merge(devices[from].bytes)
              } catch {
                return "round \(round), order \(order): \(into) refused \(from): \(error)"
              }
            }
          }
        }
        guard devices.allSatisfy({ $0.bytes == devices[0].bytes }) else {
          return "after a full exchange in order \(order) the devices hold different bytes"
        }
        guard case .older(let older) = devices[2], case .newer(let newer) = devices[0] else {
          return "device 2 is not the older build"
        }
        guard let (_, relayed) = try? NewerHousehold.read(JSONWriter.encode(older.state)),
          relayed == newer.shelves
        else { return "a newer build reads other shelves from what the older one holds" }
      }
      return nil
    }
    #expect(failure == nil, "\(failure.map(String.init(describing:)) ?? "")")
  }

  /// Not vacuous: the runs make shelves of every field, remove some, and the older device
  /// relays them.
  @Test func theStepsReachEveryFieldAndTheOlderDeviceCarriesShelves() throws {
    var reached: Set<String> = []
    var carried = 0
    for seed in 0..<UInt64(30) {
      var random = SplitMix64(seed: seed)
      guard case .success(let devices) = Self.run(Self.generate(&random), mixed: true) else {
        Issue.record("seed \(seed) failed")
        continue
      }
      guard case .older(let older) = devices[2] else { continue }
      carried += older.state[carried: NewerHousehold.shelvesKey].count
      let text = String(decoding: older.state.json, as: UTF8.self)
      for marker in ["keepers:mv", "label:lww", "lastChecked:max", "restocks:counter"]
      where text.contains("\"\(marker)\"") {
        reached.insert(marker)
      }
    }
    #expect(reached.count == 4)
    #expect(carried > 10)
  }
}

extension HouseholdState {
  fileprivate var json: [UInt8] { JSONWriter.encode(self) }
}
