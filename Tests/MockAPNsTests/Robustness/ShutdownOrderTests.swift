import MockAPNsTestSupport
import Foundation
import XCTest

/// `mockapns serve` on SIGTERM: listeners stop first, then every connection is told GOAWAY,
/// including one whose TLS handshake finishes only after the signal, which is never served.
final class ShutdownOrderTests: XCTestCase {
    func testAConnectionThatFinishesItsHandshakeAfterSIGTERMGetsGoAwayAndNoAnswer() async throws {
        let executable = Fixtures.executable
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: executable), "build mockapns first: \(executable)")
        let portsFile = Fixtures.temporaryPath("ports.json")
        let journalFile = Fixtures.temporaryPath("journal.jsonl")
        let server = Process()
        server.executableURL = URL(fileURLWithPath: executable)
        server.arguments = [
            "serve", "--no-auth", "--http2-port", "0", "--web-push-port", "0", "--gateway-port", "0", "--feedback-port", "0", "--control-port", "0",
            "--ports-file", portsFile, "--journal", journalFile, "--cert-dir", Fixtures.certificateDirectory,
        ]
        // The server's own words, for a start that fails: shown with the failure.
        let serverLog = Fixtures.temporaryPath("serve.log")
        _ = FileManager.default.createFile(atPath: serverLog, contents: nil)
        let logHandle = try XCTUnwrap(FileHandle(forWritingAtPath: serverLog))
        server.standardOutput = logHandle
        server.standardError = logHandle
        try server.run()
        defer { if server.isRunning { server.terminate() } }
        let ports: [String: Int]
        do {
            ports = try PortsFile.wait(portsFile, for: "control")
        } catch {
            let log = (try? String(contentsOfFile: serverLog, encoding: .utf8)) ?? ""
            throw WaitTimeout(description: "\(error); the server is \(server.isRunning ? "running" : "gone (status \(server.terminationStatus))"); its output: \(log.suffix(2000))")
        }
        let http2 = try XCTUnwrap(ports["http2"]), control = try XCTUnwrap(ports["control"])

        // A TCP connection the server has accepted, whose TLS handshake has not started.
        let client = try RobustnessClient(["late-handshake", String(http2), Fixtures.caPath])
        defer { client.terminate() }
        let connected = await client.nextLine()
        XCTAssertEqual(connected, "connected")
        let opened = try ProcessRunner.run("curl", ["-sS", "http://127.0.0.1:\(control)/v1/events?type=connectionOpened&wait=10000"])
        XCTAssertTrue(opened.stdout.contains("connectionOpened"), opened.stdout)

        kill(server.processIdentifier, SIGTERM)
        // The listener stops accepting first.
        let deadline = Date().addingTimeInterval(10)
        while Self.accepts(port: http2), Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        XCTAssertFalse(Self.accepts(port: http2), "the HTTP/2 listener closed after SIGTERM")

        client.send("go")
        let lines = await client.finish()
        let goAway = try XCTUnwrap(lines.first { $0.hasPrefix("goaway ") }, "\(lines)")
        XCTAssertTrue(goAway.hasPrefix("goaway 0 0 "), "GOAWAY NO_ERROR naming stream 0: \(goAway)")
        XCTAssertTrue(goAway.contains(#""reason":"Shutdown""#), goAway)
        XCTAssertFalse(lines.contains { $0.hasPrefix("frame 1 ") }, "no response HEADERS: the request was never served: \(lines)")
        XCTAssertTrue(lines.contains("eof True"), "\(lines)")

        server.waitUntilExit()
        XCTAssertEqual(server.terminationStatus, 0)
        let journal = try String(contentsOfFile: journalFile, encoding: .utf8)
        XCTAssertFalse(journal.contains(#""type":"notification""#), "no notification was accepted after SIGTERM")
        XCTAssertTrue(journal.contains(#""type":"connectionClosed""#), journal)
    }

    /// Whether a TCP connection to `port` is accepted now.
    private static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// SIGTERM after a burst of pushes, with a dashboard's event stream open, never has
    /// SwiftNIO schedule work on an event loop that has already shut down.
    /// SwiftNIO's strict mode (`SWIFTNIO_STRICT=1`) turns its "Cannot schedule tasks on an
    /// EventLoop that has already shut down" message into a crash; both are looked for. The
    /// fault this guards against (the control API's HTTP server released after the event
    /// loops stopped) showed in one shutdown in three, so the shutdown is repeated ten times.
    func testShutdownNeverSchedulesOnAStoppedEventLoop() async throws {
        let executable = Fixtures.executable
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: executable), "build mockapns first: \(executable)")
        _ = try ProcessRunner.runIfInstalled("h2load", ["--version"])
        let payload = Fixtures.temporaryPath("payload.json")
        try #"{"aps":{"alert":"shutdown"}}"#.write(toFile: payload, atomically: true, encoding: .utf8)
        for run in 1...10 {
            let portsFile = Fixtures.temporaryPath("ports.json")
            let streamFile = Fixtures.temporaryPath("stream.txt")
            _ = FileManager.default.createFile(atPath: streamFile, contents: nil)
            let server = Process()
            server.executableURL = URL(fileURLWithPath: executable)
            server.arguments = [
                "serve", "--no-auth", "--http2-port", "0", "--web-push-port", "0", "--gateway-port", "0", "--feedback-port", "0", "--broadcast-manage-port", "0",
                "--control-port", "0", "--ports-file", portsFile, "--cert-dir", Fixtures.certificateDirectory, "--log-level", "warning",
            ]
            server.environment = ProcessInfo.processInfo.environment.merging(["SWIFTNIO_STRICT": "1"]) { $1 }
            let errors = Pipe()
            server.standardOutput = FileHandle.nullDevice
            server.standardError = errors
            try server.run()
            defer { if server.isRunning { server.terminate() } }
            let ports = try PortsFile.wait(portsFile, for: "control")
            let http2 = try XCTUnwrap(ports["http2"]), control = try XCTUnwrap(ports["control"])

            let stream = try Self.background("curl", ["-sN", "-o", streamFile, "http://127.0.0.1:\(control)/v1/events/stream"])
            defer { stream.terminate() }
            try waitUntilSync("the event stream to start", timeout: .seconds(10), interval: .milliseconds(20)) {
                (FileManager.default.contents(atPath: streamFile)?.count ?? 0) > 0
            }
            let load = try ProcessRunner.run("h2load", [
                "-n", "2000", "-c", "8", "-m", "100", "-t", "2", "-d", payload, "-H", "apns-topic: com.example.app",
                "https://127.0.0.1:\(http2)/3/device/\(Fixtures.token)",
            ], timeout: 60)
            XCTAssertTrue(load.stdout.contains("2000 succeeded"), "run \(run): \(load.stdout) \(load.stderr)")

            kill(server.processIdentifier, SIGTERM)
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            server.waitUntilExit()
            XCTAssertEqual(server.terminationReason, .exit, "run \(run): \(stderr.suffix(2000))")
            XCTAssertEqual(server.terminationStatus, 0, "run \(run): \(stderr.suffix(2000))")
            XCTAssertFalse(stderr.contains("Cannot schedule tasks on an EventLoop"), "run \(run): \(stderr.suffix(2000))")
        }
    }

    /// The control API stops gracefully: a long poll waiting when the server shuts down is
    /// answered with what there is, and an event stream ends, instead of being cut off.
    func testWaitingControlRequestsAreAnsweredWhenTheServerStops() async throws {
        let (server, ports) = try await TestServer.start { $0.controlPort = 0 }
        let control = try XCTUnwrap(ports.control)
        let answer = Fixtures.temporaryPath("long-poll.json")
        let sent = Fixtures.temporaryPath("long-poll.trace")
        let streamed = Fixtures.temporaryPath("stream.txt")
        let longPoll = try Self.background("curl", [
            "-s", "-o", answer, "--trace-ascii", sent, "http://127.0.0.1:\(control)/v1/notifications/wait?count=5&timeout=60000",
        ])
        let stream = try Self.background("curl", ["-sN", "-o", streamed, "http://127.0.0.1:\(control)/v1/events/stream"])
        // Both are in: the stream has begun, and the long poll's request has been sent whole.
        try waitUntilSync("the stream and the long poll to be under way", timeout: .seconds(10), interval: .milliseconds(10)) {
            let trace = FileManager.default.contents(atPath: sent).map { String(decoding: $0, as: UTF8.self) } ?? ""
            return (FileManager.default.contents(atPath: streamed)?.count ?? 0) > 0 && trace.contains("=> Send header")
        }
        let started = Date()
        try await server.shutdown()
        XCTAssertLessThan(Date().timeIntervalSince(started), 4, "waiting requests do not hold the shutdown")
        longPoll.waitUntilExit()
        stream.waitUntilExit()
        XCTAssertEqual(longPoll.terminationStatus, 0)
        XCTAssertEqual(stream.terminationStatus, 0, "the stream ended cleanly")
        let body = try String(contentsOfFile: answer, encoding: .utf8)
        XCTAssertTrue(body.contains(#""complete":false"#), body)
    }

    /// Starts a program and leaves it running.
    private static func background(_ name: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try ProcessRunner.locate(name))
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }
}
