import ForagerSync
import SemanticCRDT
import Testing

@testable import ForagerSimulation

/// With memory storage a device's file is read as its running replica while the device is up,
/// since every change is saved as it is made; a crash keeps what the last save held, and says
/// so when the replica changed after it, which would otherwise survive the crash unnoticed.
@Suite struct DeviceFileTests {
  /// A device that is up at the end of a short run, with memory storage.
  static func upDevice() throws -> Device {
    var simulation = Simulation(SimulationTests.shortRun(seed: 3, steps: 300))
    #expect(simulation.run(progress: nil).holds)
    let device = try #require(simulation.devices.first { $0.isUp })
    #expect(device.store == nil)
    return device
  }

  @Test func aCrashKeepsWhatTheLastSaveHeld() throws {
    var device = try Self.upDevice()
    _ = try device.replica!.getOrCreateCategory(displayName: "Saved Before The Crash")
    device.save()
    let saved = try #require(device.replica).state
    #expect(device.disk?.state == saved)
    let keptWhatItSaved = device.crash()
    #expect(keptWhatItSaved)
    #expect(!device.isUp)
    #expect(device.disk?.state == saved)
    // The restarted replica is a new incarnation; the file holds the saved one until it saves.
    try device.restart(
      fromBackup: false, incarnation: "restarted", incarnationSeed: 1,
      configuration: SimulationTests.shortRun())
    #expect(device.replica?.replicaID == "restarted")
    #expect(device.disk?.replica != "restarted")
    #expect(device.disk?.state == saved)
    device.save()
    #expect(device.disk?.replica == "restarted")
  }

  @Test func aChangeNeverSavedIsFoundAtTheCrash() throws {
    var device = try Self.upDevice()
    device.save()
    _ = try device.replica!.getOrCreateCategory(displayName: "Never Saved")
    let keptWhatItSaved = device.crash()
    #expect(!keptWhatItSaved)
  }
}
