// swift-tools-version:6.0
import PackageDescription

// Upcoming features for every Swift target, in one place.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),  // `any P` spelled out
    .enableUpcomingFeature("InternalImportsByDefault"),  // C modules never leak into dependents
]

let package = Package(
    name: "Quire",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "quire", targets: ["quire"]),
        .executable(name: "quire-bench", targets: ["quire-bench"]),
        .library(name: "QuireModel", targets: ["QuireModel"]),
    ],
    targets: [
        // C libraries from Debian packages.
        .systemLibrary(name: "CCmark", pkgConfig: "libcmark", providers: [.apt(["libcmark-dev"])]),
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CGettextPo", providers: [.apt(["libgettextpo-dev"])]),
        .systemLibrary(name: "CInotifyTools", providers: [.apt(["libinotifytools0-dev"])]),
        // Linked into the executable only: it takes the place of glibc's malloc for the process.
        .systemLibrary(name: "CMimalloc", providers: [.apt(["libmimalloc-dev"])]),

        .target(name: "QuireModel", swiftSettings: swiftSettings),
        .target(
            name: "QuireCore",
            dependencies: ["QuireModel", "CCmark", "CYAML", "CCrypto", "CGettextPo"],
            swiftSettings: swiftSettings),
        .target(name: "QuireWatch", dependencies: ["QuireCore", "CInotifyTools"], swiftSettings: swiftSettings),
        // The dashboard's editing service: SCGI on a Unix socket behind nginx, and the dashboard's
        // own files (Web/), compiled into the binary.
        .target(
            name: "QuireDashboard", dependencies: ["QuireModel", "QuireCore"], resources: [.embedInCode("Web")],
            swiftSettings: swiftSettings),
        // What both executables share: the option tables and their parser, the console, and the
        // allocator (importing CMimalloc here links mimalloc into each executable).
        .target(name: "QuireCommandLine", dependencies: ["QuireModel", "QuireCore", "CMimalloc"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "quire", dependencies: ["QuireModel", "QuireCore", "QuireWatch", "QuireDashboard", "QuireCommandLine"],
            swiftSettings: swiftSettings),
        // The benchmark: drives the `quire` built next to it (and `hugo server`) on generated sites.
        .executableTarget(
            name: "quire-bench", dependencies: ["QuireModel", "QuireCore", "QuireDashboard", "QuireCommandLine"],
            swiftSettings: swiftSettings),

        .testTarget(
            name: "QuireModelTests", dependencies: ["QuireModel"],
            resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
        // What tests share: the built `quire` binary's path (tests that run it must find the one
        // their build made) and a step run with an unprivileged user's file access (CI runs as root).
        .systemLibrary(name: "CFilesystemIdentity", path: "Tests/CFilesystemIdentity"),
        .target(
            name: "QuireTestSupport", dependencies: ["CFilesystemIdentity"], path: "Tests/QuireTestSupport",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "QuireCoreTests", dependencies: ["QuireCore", "QuireModel", "QuireTestSupport"],
            resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
        .testTarget(name: "QuireWatchTests", dependencies: ["QuireWatch", "QuireCore"], swiftSettings: swiftSettings),
        .testTarget(
            name: "QuireDashboardTests", dependencies: ["QuireDashboard", "QuireCore", "QuireModel"], swiftSettings: swiftSettings),
        .testTarget(name: "QuireCLITests", dependencies: ["QuireCore", "QuireTestSupport"], swiftSettings: swiftSettings),
    ]
)
