import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Connections that never get going are closed at their deadline on every port, and the
/// journal says which deadline passed.
final class ConnectionTimeoutTests: XCTestCase {
    func testIdleConnectionsAreClosedAtEachDeadlineAndJournaled() async throws {
        let (server, ports) = try await TestServer.start { configuration in
            configuration.controlPort = 0
            configuration.timeouts.tlsHandshakeSeconds = 0.3
            configuration.timeouts.http2PrefaceSeconds = 0.3
            configuration.timeouts.controlRequestHeaderSeconds = 0.3
        }
        let cases: [(port: Int?, what: String, certificate: String)] = [
            (ports.http2, "tcp", ""),
            (ports.gateway, "tcp", ""),
            (ports.feedback, "tcp", ""),
            (ports.http2, "tls", ""),
            (ports.http2, "partial-preface", ""),
            (ports.control, "http", ""),
        ]
        for (port, what, certificate) in cases {
            let port = try XCTUnwrap(port)
            let result = try ProcessRunner.run("python3", [RobustnessClient.script, "idle", String(port), what, Fixtures.caPath, certificate])
            XCTAssertTrue(result.stdout.hasPrefix("eof"), "port \(port) \(what): \(result.stdout) \(result.stderr)")
        }
        let diagnoses = server.journal.events(matching: JournalEventFilter(kinds: ["diagnosis"])).compactMap { event -> DiagnosisCode? in
            guard case .diagnosis(let code, _, _) = event.kind else { return nil }
            return code
        }
        XCTAssertEqual(diagnoses.filter { $0 == .timeoutTLSHandshake }.count, 3, "\(diagnoses)")
        XCTAssertEqual(diagnoses.filter { $0 == .timeoutHTTP2Preface }.count, 2, "\(diagnoses)")
        XCTAssertEqual(diagnoses.filter { $0 == .timeoutControlRequestHeader }.count, 1, "\(diagnoses)")
        // A client that does its part in time is served as usual.
        let response = try CurlClient(port: ports.http2).send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")])
        XCTAssertEqual(response.status, 200)
        try await server.shutdown()
    }

    func testTimeoutsAreReadFromTheConfigurationFile() throws {
        let configuration = try MockAPNsConfiguration.parse(json: #"""
        {"timeouts": {"tlsHandshakeSeconds": 2.5, "http2PrefaceSeconds": 1, "controlRequestHeaderSeconds": 30,
                      "webPushIdleSeconds": 5, "webPushHeaderSeconds": 2, "webPushBodySeconds": 3}}
        """#)
        XCTAssertEqual(configuration.timeouts.tlsHandshakeSeconds, 2.5)
        XCTAssertEqual(configuration.timeouts.http2PrefaceSeconds, 1)
        XCTAssertEqual(configuration.timeouts.controlRequestHeaderSeconds, 30)
        XCTAssertEqual(configuration.timeouts.webPushIdleSeconds, 5)
        XCTAssertEqual(configuration.timeouts.webPushHeaderSeconds, 2)
        XCTAssertEqual(configuration.timeouts.webPushBodySeconds, 3)
        XCTAssertThrowsError(try MockAPNsConfiguration.parse(json: #"{"timeouts": {"webPushBodySeconds": 0}}"#)) { error in
            XCTAssertEqual((error as? JSONFileError)?.path, "$.timeouts.webPushBodySeconds")
        }
        XCTAssertThrowsError(try MockAPNsConfiguration.parse(json: #"{"timeouts": {"tlsHandshakeSeconds": 0}}"#)) { error in
            XCTAssertEqual((error as? JSONFileError)?.path, "$.timeouts.tlsHandshakeSeconds")
        }
        XCTAssertThrowsError(try MockAPNsConfiguration.parse(json: #"{"timeouts": {"handshake": 1}}"#)) { error in
            XCTAssertEqual((error as? JSONFileError)?.path, "$.timeouts.handshake")
        }
    }

    func testTimeoutFlagsAreRangeChecked() throws {
        let executable = Fixtures.executable
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: executable), "build mockapns first: \(executable)")
        for flag in ["--tls-handshake-timeout", "--http2-preface-timeout", "--control-header-timeout", "--web-push-idle-timeout",
                     "--web-push-header-timeout", "--web-push-body-timeout"] {
            let result = try ProcessRunner.run(executable, ["serve", "--http2-port", "0", flag, "0"])
            XCTAssertNotEqual(result.status, 0, flag)
            XCTAssertTrue(result.stderr.contains("\(flag) must be from 0.001 to 86400 seconds"), "\(flag): \(result.stderr)")
        }
    }

    /// The soft open-file limit is raised to the hard limit when the server starts.
    func testTheOpenFileLimitIsRaisedAtStart() async throws {
        var limit = rlimit()
        XCTAssertEqual(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit), 0)
        let hard = limit.rlim_max
        try XCTSkipIf(hard <= 512, "the hard limit (\(hard)) leaves nothing to raise")
        limit.rlim_cur = 512
        XCTAssertEqual(setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit), 0)
        let (server, _) = try await TestServer.start()
        XCTAssertEqual(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit), 0)
        XCTAssertEqual(limit.rlim_cur, hard)
        try await server.shutdown()
    }
}

/// When the process runs out of descriptors, a listener says so once, not once per refused
/// connection, and serves again as soon as descriptors are free.
final class ConnectionCapTests: XCTestCase {
    func testRunningOutOfDescriptorsIsReportedOnceAndRecovers() async throws {
        let (server, ports) = try await TestServer.start()
        var limit = rlimit()
        XCTAssertEqual(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit), 0)
        let original = limit
        let client = try RobustnessClient(["hold", String(ports.http2), "40"])
        defer { client.terminate() }
        // Room for a few connections only, then every accept fails with EMFILE. The limit caps
        // descriptor numbers, not their count: the gaps below the highest open one are filled
        // first (and freed after), so exactly six numbers are left whatever earlier tests left open.
        let highest = OpenDescriptors.highestNumber
        var fillers: [Int32] = []
        while true {
            let filler = open("/dev/null", O_RDONLY)
            guard filler >= 0 else { break }
            fillers.append(filler)
            if filler > highest { break }
        }
        defer { for filler in fillers { close(filler) } }
        limit.rlim_cur = rlim_t((fillers.last ?? Int32(highest)) + 1 + 6)
        XCTAssertEqual(setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit), 0)
        client.send("go")
        let opened = await client.nextLine()
        let reported = await server.journal.waitForEvents(count: 1, timeout: .seconds(10)) { event in
            if case .diagnosis(let code, _, _) = event.kind { return code == .connectionsLimitReached }
            return false
        }
        var restored = original
        XCTAssertEqual(setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &restored), 0)
        XCTAssertEqual(opened, "opened 40", "the kernel queues what the server cannot accept")
        XCTAssertEqual(reported.count, 1, "the listener reported the cap")
        client.send("close")
        _ = await client.finish()

        let response = try CurlClient(port: ports.http2).send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")])
        XCTAssertEqual(response.status, 200, "serving again once descriptors are free")
        let reports = server.journal.events(matching: JournalEventFilter(kinds: ["diagnosis"])).filter { event in
            if case .diagnosis(let code, _, _) = event.kind { return code == .connectionsLimitReached }
            return false
        }
        XCTAssertEqual(reports.count, 1, "one report for the whole episode")
        try await server.shutdown()
    }
}
