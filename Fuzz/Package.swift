// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for MockAPNs. Built only with the fuzzer and address sanitizers
// (scripts/fuzz.sh); each target is an executable whose `main` comes from libFuzzer.
//
// The main package is a path dependency: its identity is the name of the directory that
// holds it, which differs between clones, so it is read from this manifest's location.
let mainDirectory = Context.packageDirectory.split(separator: "/").dropLast().joined(separator: "/")
let mainPackage = String(mainDirectory.split(separator: "/").last ?? "MockAPNs")

/// Each target is an executable whose `main` (named `<target>_main`, as SwiftPM links it)
/// hands the command line to libFuzzer through CFuzzerDriver.
func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: ["CFuzzerDriver"] + dependencies, path: "Sources/\(name)")
}

let core: Target.Dependency = .product(name: "MockAPNsCore", package: mainPackage)
let wire: Target.Dependency = .product(name: "MockAPNsWire", package: mainPackage)
let scenario: Target.Dependency = .product(name: "MockAPNsScenario", package: mainPackage)
let legacy: Target.Dependency = .product(name: "MockAPNsLegacy", package: mainPackage)

let package = Package(
    name: "MockAPNsFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: "/" + mainDirectory),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
    ],
    targets: [
        .target(name: "CFuzzerDriver"),
        fuzzTarget("FuzzLegacyFrameDecoder", [core, legacy]),
        fuzzTarget("FuzzJSONParser", [core]),
        fuzzTarget("FuzzJournal", [core, wire, .product(name: "MockAPNsJournal", package: mainPackage)]),
        fuzzTarget("FuzzScenarioDecoder", [core, scenario]),
        fuzzTarget("FuzzConfigurationDecoder", [.product(name: "MockAPNs", package: mainPackage)]),
        fuzzTarget("FuzzProviderToken", [core]),
        fuzzTarget("FuzzHTTP2RequestValidator", [core, wire]),
        fuzzTarget("FuzzHTTP2Connection", [
            .product(name: "MockAPNsHTTP2", package: mainPackage),
            .product(name: "MockAPNsWire", package: mainPackage),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
        ]),
    ]
)
