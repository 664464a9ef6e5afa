import ForagerSync
import Foundation

extension SyncFolder {
  /// A device whose id and name are both `name`, a readable id (lowercase letters, digits and
  /// `-`): its file in the folder is `<name>.forager.json`, as tests name it.
  public init(
    url: URL, device name: String, coordination: any FileCoordinating = FileCoordination.none
  ) {
    self.init(url: url, deviceID: DeviceID(name)!, deviceName: name, coordination: coordination)
  }
}
