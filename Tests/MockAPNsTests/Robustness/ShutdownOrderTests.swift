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
            "serve", "--no-auth", "--http2-port", "0", "--gateway-port", "0", "--feedback-port", "0", "--control-port", "0",
            "--ports-file", portsFile, "--journal", journalFile, "--cert-dir", Fixtures.certificateDirectory,
        ]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer { if server.isRunning { server.terminate() } }
        let ports = try PortsFile.wait(portsFile, for: "control")
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
}
