// swift-tools-version:6.0
import PackageDescription

// Every target, the tests too: a file sees a module's members only if it imports that module
// itself (SE-0444), so an `internal import` stays internal and no file compiles only because
// another file of its module imported Foundation (in the tests, _CryptoExtras).
let importsPerFile: [SwiftSetting] = [.enableUpcomingFeature("MemberImportVisibility")]

let package = Package(
    name: "Shiplane",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "shiplane", targets: ["shiplane"]),
        // Lanes are compiled against this dynamic library: it carries the lane API and the
        // lane host (option parsing, rendering), so a cached lane executable starts in milliseconds.
        .library(name: "ShiplaneKit", type: .dynamic, targets: ["Shiplane", "ShiplaneCLI"]),
        .library(name: "ShiplaneTesting", targets: ["ShiplaneTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // Tests only: the stand-ins' servers stop gracefully (`TestServer.stop`).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // `swift package generate-documentation --target Shiplane` builds the DocC catalog.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibgit2",
            pkgConfig: "libgit2",
            providers: [.apt(["libgit2-dev"]), .brew(["libgit2"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        .target(name: "Git", dependencies: ["CLibgit2"], swiftSettings: importsPerFile),
        // MD5 of eight files at once (AVX2), for the App Store's screenshot and preview checksums.
        .target(name: "CShiplane"),
        .target(
            name: "Shiplane",
            dependencies: [
                "Git", "CZlib", "CShiplane",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: importsPerFile
        ),
        .target(
            name: "ShiplaneCLI",
            dependencies: [
                "Shiplane",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: importsPerFile
        ),
        // No unsafe flags here: SwiftPM refuses a package with them as a versioned dependency.
        // A release install links the command statically by passing them (Scripts/install,
        // Scripts/bundle).
        .executableTarget(name: "shiplane", dependencies: ["ShiplaneCLI"], swiftSettings: importsPerFile),
        .target(name: "ShiplaneTesting", dependencies: ["Shiplane", "Git"], swiftSettings: importsPerFile),
        .testTarget(
            name: "ShiplaneTests",
            dependencies: [
                "Shiplane", "ShiplaneCLI", "ShiplaneTesting", "Git",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: importsPerFile
        ),
    ],
    swiftLanguageModes: [.v6]
)
