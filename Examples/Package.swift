// swift-tools-version:6.0
// An app-shaped example on ForagerSync's public API alone: two devices of one household, each
// with its HouseholdStore, syncing through a shared folder and by messages. `.ci/run` runs it.
// And one device driven a command at a time, for the Syncthing pair test.
import PackageDescription

let package = Package(
  name: "ForagerExamples",
  platforms: [.macOS(.v13), .iOS(.v16)],
  dependencies: [.package(name: "ForagerSync", path: "..")],
  targets: [
    .executableTarget(
      name: "household-example",
      dependencies: [.product(name: "ForagerSync", package: "ForagerSync")]),
    .executableTarget(
      name: "folder-device",
      dependencies: [.product(name: "ForagerSync", package: "ForagerSync")]),
  ],
  swiftLanguageModes: [.v6]
)
