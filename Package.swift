// swift-tools-version:6.0
import PackageDescription

/// Where test code may start processes (`Process`, exit tests): not on iOS, tvOS, watchOS or
/// visionOS, where Xcode builds the test targets too.
let runsProcesses: [SwiftSetting] = [
  .define("RUNS_PROCESSES", .when(platforms: [.macOS, .linux, .windows]))
]

let package = Package(
  name: "ForagerSync",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  products: [
    .library(name: "SemanticCRDT", targets: ["SemanticCRDT"]),
    .library(name: "SemanticCRDTJSON", targets: ["SemanticCRDTJSON"]),
    .library(name: "ForagerSync", targets: ["ForagerSync"]),
    .library(name: "ForagerSimulation", targets: ["ForagerSimulation"]),
    .executable(name: "forager-sim", targets: ["forager-sim"]),
    .executable(name: "forager-sync", targets: ["forager-sync"]),
  ],
  dependencies: [],
  targets: [
    .target(name: "SharedSupport"),
    .target(name: "CommandTable"),
    .target(name: "SemanticCRDT"),
    .target(name: "SemanticCRDTJSON", dependencies: ["SemanticCRDT", "SharedSupport"]),
    .target(
      name: "ForagerModel", dependencies: ["SemanticCRDT", "SemanticCRDTJSON", "SharedSupport"]),
    .target(
      name: "ForagerWire",
      dependencies: ["ForagerModel", "SemanticCRDT", "SemanticCRDTJSON", "SharedSupport"]),
    .target(
      name: "ForagerPersistence",
      dependencies: ["ForagerModel", "SemanticCRDT", "SemanticCRDTJSON", "SharedSupport"]),
    .target(
      name: "ForagerTransport",
      dependencies: ["ForagerModel", "ForagerPersistence", "SemanticCRDT"]),
    .target(
      name: "ForagerSync",
      dependencies: [
        "ForagerModel", "ForagerWire", "ForagerPersistence", "ForagerTransport", "SemanticCRDT",
        "SemanticCRDTJSON",
      ]),
    .target(
      name: "ForagerSimulation",
      dependencies: [
        "ForagerSync", "SemanticCRDT", "SemanticCRDTJSON", "SharedSupport", "CommandTable",
      ]),
    .executableTarget(name: "forager-sim", dependencies: ["ForagerSimulation"]),
    .target(
      name: "ForagerSyncTool",
      dependencies: ["ForagerSync", "SemanticCRDT", "SemanticCRDTJSON", "CommandTable"]),
    .executableTarget(name: "forager-sync", dependencies: ["ForagerSyncTool"]),
    .target(
      name: "CRDTTestSupport",
      dependencies: ["SemanticCRDT", "SharedSupport"],
      path: "Tests/CRDTTestSupport"
    ),
    .target(
      name: "ForagerTestSupport",
      dependencies: [
        "ForagerSync", "ForagerModel", "SemanticCRDT", "SemanticCRDTJSON", "ForagerSimulation",
        "CRDTTestSupport", "SharedSupport",
      ],
      path: "Tests/ForagerTestSupport",
      swiftSettings: runsProcesses
    ),
    .executableTarget(
      name: "StoreCrashWorker",
      dependencies: ["ForagerSync", "ForagerTestSupport"],
      path: "Tests/StoreCrashWorker"
    ),
    .testTarget(
      name: "SemanticCRDTTests",
      dependencies: ["SemanticCRDT", "SemanticCRDTJSON", "CRDTTestSupport", "SharedSupport"],
      resources: [.copy("Fixtures")]
    ),
    .testTarget(
      name: "ForagerSyncTests",
      dependencies: [
        "ForagerSync", "ForagerModel", "ForagerWire", "ForagerPersistence", "SemanticCRDT",
        "SemanticCRDTJSON", "CRDTTestSupport", "ForagerTestSupport", "SharedSupport",
        "StoreCrashWorker", "ForagerSimulation",
      ],
      resources: [.copy("Fixtures")],
      swiftSettings: runsProcesses
    ),
    .testTarget(
      name: "ForagerSimulationTests",
      dependencies: [
        "ForagerSimulation", "ForagerSync", "SemanticCRDT", "ForagerTestSupport", "forager-sim",
      ],
      swiftSettings: runsProcesses
    ),
    .executableTarget(
      name: "FolderSyncWorker",
      dependencies: ["ForagerSync", "ForagerSyncTool", "SemanticCRDT", "SharedSupport"],
      path: "Tests/FolderSyncWorker"
    ),
    .testTarget(
      name: "ForagerSyncToolTests",
      dependencies: [
        "ForagerSyncTool", "ForagerSync", "ForagerPersistence", "SemanticCRDT", "SemanticCRDTJSON",
        "ForagerTestSupport", "CRDTTestSupport", "SharedSupport", "forager-sync",
        "FolderSyncWorker",
      ],
      swiftSettings: runsProcesses
    ),
    .testTarget(
      name: "CommandTableTests", dependencies: ["CommandTable"], swiftSettings: runsProcesses),
    .testTarget(name: "SharedSupportTests", dependencies: ["SharedSupport", "CRDTTestSupport"]),
    .testTarget(
      name: "CRDTTestSupportTests",
      dependencies: ["CRDTTestSupport", "SemanticCRDT", "SharedSupport"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
