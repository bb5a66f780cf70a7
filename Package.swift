// swift-tools-version:6.0
import PackageDescription

// The commit `mockapns --version` names: MOCKAPNS_BUILD_COMMIT when set (scripts/package.sh
// and scripts/install.sh set it from git, and the environment is part of what SwiftPM caches
// the manifest's evaluation by, so a build after `git pull` names the new commit), else the
// checkout's HEAD as the manifest saw it, marked when the tree had changes; empty outside git.
let buildCommit: String = {
    if let given = Context.environment["MOCKAPNS_BUILD_COMMIT"] { return given }
    guard let git = Context.gitInformation else { return "" }
    return String(git.currentCommit.prefix(12)) + (git.hasUncommittedChanges ? ", modified" : "")
}()

let package = Package(
    name: "MockAPNs",
    platforms: [.macOS(.v15)],
    products: [
        // The one library: `import MockAPNs` is the front door for Swift tests (the other
        // modules are this package's own, their declarations `package`).
        .library(name: "MockAPNs", targets: ["MockAPNs"]),
        .executable(name: "mockapns", targets: ["MockAPNsCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.10.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.21.0"),
    ],
    targets: [
        // The numbers and names the RFCs give to things on the wire (TLS alerts, HTTP/2 error
        // codes), one table each, shared by the core and the protocol modules. No dependencies.
        .target(name: "MockAPNsWire"),
        // The one JSON scanner: the parser with positions and paths, the object reader that
        // names each mistake, the writer. No dependencies.
        .target(name: "MockAPNsJSON"),
        // The brain: Apple's rules as plain values. No sockets, no NIO channels.
        .target(
            name: "MockAPNsCore",
            dependencies: [
                "MockAPNsWire",
                "MockAPNsJSON",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        // The legacy binary protocol's rules: frame decoder and parser, the connection's
        // session, feedback tuples, the mistakes it diagnoses. No I/O.
        .target(name: "MockAPNsLegacy", dependencies: ["MockAPNsCore", "MockAPNsJSON", "MockAPNsWire"]),
        // Broadcast push (iOS 18): channels, the channel management API's and broadcast sends'
        // decisions. No I/O.
        .target(name: "MockAPNsBroadcast", dependencies: ["MockAPNsCore", "MockAPNsWire", "MockAPNsJournal"]),
        // The JSON scenario model, its decoder and the rule engine. No I/O.
        .target(name: "MockAPNsScenario", dependencies: ["MockAPNsCore", "MockAPNsWire", "MockAPNsBroadcast"]),
        // The provider judge and its report: what the journal's notifications say about a
        // provider's retry logic. No I/O.
        .target(name: "MockAPNsVerdicts", dependencies: ["MockAPNsCore", "MockAPNsJournal", "MockAPNsWire"]),
        // Devices, Apple's storage rules and the delivery log, as pure logic.
        .target(name: "MockAPNsDelivery", dependencies: ["MockAPNsCore", "MockAPNsJournal", "MockAPNsWire"]),
        // Web push (Safari 16+, RFC 8030/8291/8292): subscriptions as a browser makes them,
        // VAPID checks, aes128gcm decryption, Declarative Web Push, the decision. No I/O.
        .target(
            name: "MockAPNsWebPush",
            dependencies: [
                "MockAPNsCore",
                "MockAPNsWire",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The development PKI: a generated CA, certificates and provider keys (tooling, not
        // the request path).
        .target(
            name: "MockAPNsDevelopmentPKI",
            dependencies: [
                "MockAPNsCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        // The journal: its events and records (Records/) and their JSON, the packed store, its
        // readers and sinks.
        .target(
            name: "MockAPNsJournal",
            dependencies: ["MockAPNsCore", "MockAPNsJSON", "MockAPNsWire"]
        ),
        // The journal as a packet capture: recorded connections as TCP conversations in a
        // pcapng file (Wireshark, tshark). Reads the journal's events; no I/O.
        .target(
            name: "MockAPNsCapture",
            dependencies: ["MockAPNsCore", "MockAPNsJSON", "MockAPNsJournal", "MockAPNsLegacy", "MockAPNsWire"]
        ),
        // System OpenSSL (libssl/libcrypto 3.x), used only by MockAPNsTLS.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        // System libnghttp2, used only by MockAPNsHTTP2.
        .systemLibrary(
            name: "CNghttp2",
            pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"]), .brew(["nghttp2"])]
        ),
        // One NIO channel handler that speaks TLS through OpenSSL over memory BIOs.
        .target(
            name: "MockAPNsTLS",
            dependencies: [
                "MockAPNsWire",
                "COpenSSL",
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // A recycling allocator for each nghttp2 session (C, so nghttp2 can call it directly).
        .target(name: "CMemoryPool"),
        // One NIO channel handler that drives an nghttp2 server session, and one that drives a
        // client session (upstream mode), after the TLS handler.
        .target(
            name: "MockAPNsHTTP2",
            dependencies: [
                "MockAPNsWire",
                "MockAPNsTLS",
                "CNghttp2",
                "CMemoryPool",
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The server's own log lines: the swift-log handler in MockAPNs' formats (text or JSON),
        // the outputs and their writer threads, the notices of refused HTTP/2 streams.
        .target(
            name: "MockAPNsLogging",
            dependencies: [
                "MockAPNsJSON",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The journal's readers beside the server: the access log, the activity feed (metrics
        // and verdicts), the Prometheus metrics, the JSONL file sink.
        .target(
            name: "MockAPNsObservation",
            dependencies: [
                "MockAPNsCore",
                "MockAPNsJournal",
                "MockAPNsVerdicts",
                "MockAPNsBroadcast",
                "MockAPNsLogging",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The delivery runtime: the delivery service (the model run on the server clock, fed
        // from the journal) and its forwarders (the simulator command's process runner, the
        // webhook's HTTP/1.1 client).
        .target(
            name: "MockAPNsDeliveryRuntime",
            dependencies: [
                "MockAPNsCore",
                "MockAPNsJournal",
                "MockAPNsDelivery",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // The webhook forwarder's HTTP/1.1 client.
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The control API (Hummingbird): thin routes over `ControlledServer`, the access checks,
        // the OpenAPI document, the dashboard.
        .target(
            name: "MockAPNsControl",
            dependencies: [
                "MockAPNsFleet",
                "MockAPNsCore",
                "MockAPNsJournal",
                "MockAPNsScenario",
                "MockAPNsBroadcast",
                "MockAPNsVerdicts",
                "MockAPNsDelivery",
                "MockAPNsObservation",
                "MockAPNsWebPush",
                // The low-level 400 every HTTP/1.1 listener answers alike (HTTP1ProtocolErrorHandler),
                // and the connection timeouts' conversions.
                "MockAPNsConnections",
                "MockAPNsWire",
                // The bearer token's random bytes (Access/BearerToken.swift).
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                // The low-level 400s answered before Hummingbird sees a request.
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                // The HTTP/1 request parts the control API's connection handler sees.
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The OpenAPI document, served at GET /openapi.json, and the dashboard's script
            // and style sheet.
            resources: [
                .embedInCode("control-api.openapi.json"),
                .embedInCode("Dashboard/app.js"),
                .embedInCode("Dashboard/delivery.js"),
                .embedInCode("Dashboard/style.css"),
            ]
        ),
        // What every listener's connections share, whatever their protocol: the bootstrap,
        // the pipeline (scenario handshake refusal, read gate, TLS, journal recorder, guard of
        // deadlines), the scenario switch, the wire faults, the tracker used at shutdown.
        .target(
            name: "MockAPNsConnections",
            dependencies: [
                "MockAPNsCore",
                "MockAPNsWire",
                "MockAPNsJournal",
                "MockAPNsTLS",
                "MockAPNsHTTP2",
                "MockAPNsScenario",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // The HTTP/1.1 listeners' shared guard and low-level refusals.
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Upstream mode: the upstream's address and settings, a pooled HTTP/2 client over
        // OpenSSL and nghttp2, and the clients a running server relays through.
        // Sessions: credentials the server issued, each resolved to its own scenario,
        // registry and journal view; the default session is the server's own state.
        .target(
            name: "MockAPNsSessions",
            dependencies: [
                "MockAPNsCore",
                "MockAPNsConnections",
                "MockAPNsScenario",
                "MockAPNsBroadcast",
                // Control tokens are kept as SHA-256 digests.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The fleet: replicas sharing their state through PostgreSQL. A log of changes each
        // replica applies (LISTEN/NOTIFY, and a periodic re-read), the journal's records
        // shipped from each replica's file, and the fleet-wide reads of them.
        .target(
            name: "MockAPNsFleet",
            dependencies: [
                "MockAPNsJSON",
                "MockAPNsJournal",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "MockAPNsUpstream",
            dependencies: [
                "MockAPNsCore",
                "MockAPNsWire",
                // What --record-scenario writes: the scenario model's rules.
                "MockAPNsScenario",
                "MockAPNsJSON",
                "MockAPNsTLS",
                "MockAPNsHTTP2",
                "MockAPNsLogging",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The legacy binary gateway and feedback service over NIO: their listeners, channel
        // handlers and journaling (MockAPNsLegacy holds their rules).
        .target(
            name: "MockAPNsLegacyServer",
            dependencies: [
                "MockAPNsCore",
                "MockAPNsJSON",
                "MockAPNsWire",
                "MockAPNsLegacy",
                "MockAPNsJournal",
                "MockAPNsScenario",
                "MockAPNsConnections",
                "MockAPNsSessions",
                "MockAPNsTLS",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The one answer flow every endpoint and transport shares: the scenario's decision,
        // the core's verdict or the rule's answer or fault, rendered and handed to a
        // transport's writer, then the record. No channel: the writers are the server's.
        .target(
            name: "MockAPNsAnswer",
            dependencies: [
                "MockAPNsCore",
                "MockAPNsWire",
                "MockAPNsScenario",
                "MockAPNsJournal",
                "MockAPNsConnections",
                "MockAPNsUpstream",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The server: listeners, pipelines, and the embedding API.
        .target(
            name: "MockAPNs",
            dependencies: [
                "MockAPNsAnswer",
                "MockAPNsCapture",
                "MockAPNsControl",
                "MockAPNsObservation",
                "MockAPNsLogging",
                "MockAPNsDeliveryRuntime",
                "MockAPNsCore",
                "MockAPNsScenario",
                "MockAPNsLegacy",
                "MockAPNsLegacyServer",
                "MockAPNsBroadcast",
                "MockAPNsVerdicts",
                "MockAPNsDelivery",
                "MockAPNsDevelopmentPKI",
                "MockAPNsJournal",
                "MockAPNsWire",
                "MockAPNsTLS",
                "MockAPNsHTTP2",
                "MockAPNsWebPush",
                "MockAPNsConnections",
                "MockAPNsSessions",
                "MockAPNsFleet",
                "MockAPNsUpstream",
                "MockAPNsJSON",
                // Session certificates carry their key's digest; session keys are P-256.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // Web push over HTTP/1.1 (NIO's codec).
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The build's facts the manifest knows (the commit), for `mockapns --version`: a C
        // target because only C settings carry a value into the code.
        .target(
            name: "CMockAPNsBuildInfo",
            cSettings: [.define("MOCKAPNS_BUILD_COMMIT", to: "\"\(buildCommit)\"")]
        ),
        .executableTarget(
            name: "MockAPNsCLI",
            dependencies: [
                "CMockAPNsBuildInfo",
                "MockAPNs",
                "MockAPNsCapture",
                "MockAPNsControl",
                "MockAPNsObservation",
                "MockAPNsLogging",
                "MockAPNsCore",
                "MockAPNsScenario",
                "MockAPNsLegacy",
                "MockAPNsVerdicts",
                "MockAPNsDelivery",
                "MockAPNsDevelopmentPKI",
                "MockAPNsJournal",
                "MockAPNsUpstream",
                "MockAPNsFleet",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                // `journal` and `health` ask the control API over HTTP/1.1 with these.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            // The server's allocator in a release build on Linux is jemalloc. A notification's
            // record is made on an event loop and released by the journal's readers on another
            // thread; glibc's allocator takes the making thread's arena lock for each such free,
            // and the event loop waited on it (a futex call every dozen requests). jemalloc keeps
            // a freed block in the freeing thread's cache and hands them back in batches:
            // measured, 8 to 14% less server CPU per request (docs/architecture.md, "Choices").
            // Debug builds, the tests and the sanitizers keep the system allocator, and the
            // library products never choose one for a program that embeds them.
            linkerSettings: [.linkedLibrary("jemalloc", .when(platforms: [.linux], configuration: .release))]
        ),
        // A load generator for the legacy binary gateway (Benchmarks/legacy.sh).
        .executableTarget(
            name: "LegacyLoadGenerator",
            dependencies: [
                "MockAPNsCore",
                "MockAPNsLegacy",
                "MockAPNsTLS",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Benchmarks/LegacyLoadGenerator"
        ),
        // Embedded start-up time (Benchmarks/startup.sh).
        .executableTarget(
            name: "EmbeddedStartup",
            dependencies: ["MockAPNs"],
            path: "Benchmarks/EmbeddedStartup"
        ),
        // What the test targets share: the one subprocess runner, the raw HTTP/2 frame model,
        // waits that fail on timeout.
        .target(
            name: "MockAPNsTestSupport",
            dependencies: ["MockAPNsCore", "MockAPNsJournal", "MockAPNsWire", "MockAPNsBroadcast"],
            path: "Tests/MockAPNsTestSupport"
        ),
        .testTarget(
            name: "MockAPNsCoreTests",
            dependencies: [
                "MockAPNsTestSupport",
                "MockAPNsCore",
                "MockAPNsScenario",
                "MockAPNsDevelopmentPKI",
                "MockAPNsJournal",
                "MockAPNsWire",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .testTarget(
            name: "MockAPNsWebPushTests",
            dependencies: [
                "MockAPNsWebPush",
                "MockAPNsCore",
                "MockAPNsWire",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "MockAPNsCaptureTests",
            dependencies: ["MockAPNsCapture", "MockAPNsCore", "MockAPNsJournal", "MockAPNsWire"]
        ),
        .testTarget(
            name: "MockAPNsJSONTests",
            dependencies: ["MockAPNsJSON"]
        ),
        .testTarget(
            name: "MockAPNsLegacyTests",
            dependencies: ["MockAPNsLegacy", "MockAPNsCore"]
        ),
        .testTarget(
            name: "MockAPNsLegacyServerTests",
            dependencies: ["MockAPNsLegacyServer", "MockAPNsLegacy", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "MockAPNsBroadcastTests",
            dependencies: ["MockAPNsBroadcast", "MockAPNsCore", "MockAPNsScenario", "MockAPNsJournal", "MockAPNsWire"]
        ),
        .testTarget(
            name: "MockAPNsScenarioTests",
            dependencies: ["MockAPNsScenario", "MockAPNsCore", "MockAPNsBroadcast", "MockAPNsWire"]
        ),
        .testTarget(
            name: "MockAPNsVerdictsTests",
            dependencies: ["MockAPNsVerdicts", "MockAPNsCore", "MockAPNsJournal", "MockAPNsLegacy", "MockAPNsTestSupport"]
        ),
        .testTarget(
            name: "MockAPNsDeliveryTests",
            dependencies: ["MockAPNsDelivery", "MockAPNsDeliveryRuntime", "MockAPNsCore", "MockAPNsJournal", "MockAPNsWire"]
        ),
        .testTarget(
            name: "MockAPNsLoggingTests",
            dependencies: [
                "MockAPNsLogging",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "MockAPNsObservationTests",
            dependencies: ["MockAPNsObservation", "MockAPNsCore", "MockAPNsJournal", "MockAPNsWire"]
        ),
        .testTarget(
            name: "MockAPNsWireTests",
            dependencies: ["MockAPNsWire"]
        ),
        .testTarget(
            name: "MockAPNsJournalTests",
            dependencies: ["MockAPNsTestSupport", "MockAPNsCore", "MockAPNsJournal", "MockAPNsWire"]
        ),
        .testTarget(
            name: "MockAPNsTLSTests",
            dependencies: [
                "MockAPNsTestSupport",
                "MockAPNsTLS",
                "MockAPNsCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "MockAPNsHTTP2Tests",
            dependencies: [
                "MockAPNsTestSupport",
                "MockAPNsHTTP2",
                "CMemoryPool",
                "MockAPNsCore",
                "MockAPNsWire",
                "MockAPNsTLS",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "MockAPNsAnswerTests",
            dependencies: [
                "MockAPNsAnswer",
                "MockAPNsCore",
                "MockAPNsWire",
                "MockAPNsScenario",
                "MockAPNsJournal",
                "MockAPNsConnections",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "MockAPNsTests",
            dependencies: [
                "MockAPNsTestSupport",
                "MockAPNs",
                "MockAPNsControl",
                "MockAPNsObservation",
                "MockAPNsLogging",
                "MockAPNsCore",
                "MockAPNsScenario",
                "MockAPNsLegacy",
                "MockAPNsBroadcast",
                "MockAPNsVerdicts",
                "MockAPNsDelivery",
                "MockAPNsDevelopmentPKI",
                "MockAPNsJournal",
                "MockAPNsWire",
                "MockAPNsTLS",
                "MockAPNsHTTP2",
                "MockAPNsConnections",
                "MockAPNsWebPush",
                "MockAPNsUpstream",
                "MockAPNsFleet",
                "MockAPNsJSON",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
    ]
)

// libFuzzer targets (scripts/fuzz.sh), in the manifest only when MOCKAPNS_FUZZ is set: they
// drive the modules' `package` API directly (the public API is only the embedding front
// door), so they are built as part of this package, with the fuzzer and address sanitizers,
// in a build folder of their own. Each is an executable whose `main` (named `<target>_main`,
// as SwiftPM links it) hands the command line to libFuzzer through CFuzzerDriver.
if Context.environment["MOCKAPNS_FUZZ"] != nil {
    func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
        .executableTarget(name: name, dependencies: ["CFuzzerDriver"] + dependencies, path: "Fuzz/Sources/\(name)")
    }
    package.targets += [
        .target(name: "CFuzzerDriver", path: "Fuzz/Sources/CFuzzerDriver"),
        fuzzTarget("FuzzLegacyFrameDecoder", ["MockAPNsCore", "MockAPNsLegacy"]),
        fuzzTarget("FuzzJSONParser", ["MockAPNsCore"]),
        fuzzTarget("FuzzJournal", ["MockAPNsCore", "MockAPNsWire", "MockAPNsJournal"]),
        fuzzTarget("FuzzScenarioDecoder", ["MockAPNsCore", "MockAPNsScenario"]),
        fuzzTarget("FuzzConfigurationDecoder", ["MockAPNs"]),
        fuzzTarget("FuzzProviderToken", ["MockAPNsCore"]),
        fuzzTarget("FuzzHTTP2RequestValidator", ["MockAPNsCore", "MockAPNsWire"]),
        fuzzTarget("FuzzWebPush", [
            "MockAPNsCore", "MockAPNsWebPush", "MockAPNsWire", .product(name: "Crypto", package: "swift-crypto"),
        ]),
        fuzzTarget("FuzzHTTP2Connection", [
            "MockAPNsHTTP2", "MockAPNsWire",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
        ]),
    ]
}
