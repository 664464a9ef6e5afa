// swift-tools-version:6.0
import PackageDescription

// The benchmark suite, a package of its own so that the library's users never build it.
// Run: swift run -c release --package-path Benchmarks forager-bench --quick
let package = Package(
  name: "ForagerBenchmarks",
  platforms: [.macOS(.v13)],
  dependencies: [.package(name: "ForagerSync", path: "..")],
  targets: [
    .executableTarget(
      name: "forager-bench",
      dependencies: [
        .product(name: "ForagerSync", package: "ForagerSync"),
        .product(name: "SemanticCRDT", package: "ForagerSync"),
        .product(name: "SemanticCRDTJSON", package: "ForagerSync"),
      ]
    )
  ],
  swiftLanguageModes: [.v6]
)
