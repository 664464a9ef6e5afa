// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "ForagerSync",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  products: [
    .library(name: "SemanticCRDT", targets: ["SemanticCRDT"]),
    .library(name: "ForagerSync", targets: ["ForagerSync"]),
    .library(name: "ForagerSimulation", targets: ["ForagerSimulation"]),
    .executable(name: "forager-sim", targets: ["forager-sim"]),
    .executable(name: "forager-sync", targets: ["forager-sync"]),
  ],
  dependencies: [],
  targets: [
    .target(name: "SemanticCRDT"),
    .target(name: "ForagerSync", dependencies: ["SemanticCRDT"]),
    .target(name: "ForagerSimulation", dependencies: ["ForagerSync", "SemanticCRDT"]),
    .executableTarget(name: "forager-sim", dependencies: ["ForagerSimulation"]),
    .target(name: "ForagerSyncTool", dependencies: ["ForagerSync", "SemanticCRDT"]),
    .executableTarget(name: "forager-sync", dependencies: ["ForagerSyncTool"]),
    .target(
      name: "CRDTTestSupport",
      dependencies: ["SemanticCRDT"],
      path: "Tests/CRDTTestSupport"
    ),
    .target(
      name: "ForagerTestSupport",
      dependencies: ["ForagerSync", "CRDTTestSupport"],
      path: "Tests/ForagerTestSupport"
    ),
    .executableTarget(
      name: "StoreCrashWorker",
      dependencies: ["ForagerSync", "ForagerTestSupport"],
      path: "Tests/StoreCrashWorker"
    ),
    .testTarget(
      name: "SemanticCRDTTests",
      dependencies: ["SemanticCRDT", "CRDTTestSupport"],
      resources: [.copy("Fixtures")]
    ),
    .testTarget(
      name: "ForagerSyncTests",
      dependencies: [
        "ForagerSync", "SemanticCRDT", "CRDTTestSupport", "ForagerTestSupport", "StoreCrashWorker",
      ],
      resources: [.copy("Fixtures")]
    ),
    .testTarget(
      name: "ForagerSimulationTests",
      dependencies: ["ForagerSimulation", "ForagerSync", "ForagerTestSupport", "forager-sim"]
    ),
    .executableTarget(
      name: "FolderSyncWorker",
      dependencies: ["ForagerSync", "ForagerSyncTool", "SemanticCRDT"],
      path: "Tests/FolderSyncWorker"
    ),
    .testTarget(
      name: "ForagerSyncToolTests",
      dependencies: [
        "ForagerSyncTool", "ForagerSync", "SemanticCRDT", "ForagerTestSupport", "CRDTTestSupport",
        "forager-sync", "FolderSyncWorker",
      ]
    ),
    .testTarget(
      name: "CRDTTestSupportTests",
      dependencies: ["CRDTTestSupport"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
