import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsControl
import MockAPNsCore
import XCTest

/// The control API's sockets: an answer given before the request was read whole still
/// releases the connection, and a client that never finishes its request header is cut off.
final class ControlConnectionTests: XCTestCase {
    /// A 1 MiB header (400) and a body over the 4 MiB limit cut short (413), each followed by
    /// the client closing: every descriptor comes back. They once stayed open for good.
    func testAnswerThenCloseReleasesTheSocket() async throws {
        let (server, ports) = try await TestServer.start { configuration in
            configuration.controlPort = 0
            // Long enough that the request-header deadline cannot be what closes them.
            configuration.timeouts.controlRequestHeaderSeconds = 120
        }
        let control = try XCTUnwrap(ports.control)
        XCTAssertEqual(try ProcessRunner.run("curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(control)/v1/health"]).stdout, "200")
        try await OpenDescriptors.waitForOnlyListeners(on: ports.all, timeout: .seconds(30))

        let client = try RobustnessClient(["early-answer", String(control), "8"])
        let lines = await client.finish()
        XCTAssertEqual(lines.filter { $0.hasPrefix("HTTP/1.1 400") }.count, 8, "\(lines)")
        XCTAssertEqual(lines.filter { $0.hasPrefix("HTTP/1.1 413") }.count, 8, "\(lines)")

        // Every control connection's descriptor is released: waited for, since they close
        // asynchronously; one that stays open for good fails the wait, named.
        try await OpenDescriptors.waitForOnlyListeners(on: ports.all, timeout: .seconds(30))
        XCTAssertEqual(try ProcessRunner.run("curl", ["-sS", "http://127.0.0.1:\(control)/v1/health"]).status, 0)
        try await server.shutdown()
    }

    /// What NIO's parser refuses before a request reaches the router (a bad request line,
    /// `Transfer-Encoding` with `Content-Length`, a 2 MB header) is answered 400 with the
    /// headers of every other control answer (no framing, no sniffing), and the socket closes.
    func testLowLevel400sCarryTheAntiFramingHeadersAndClose() async throws {
        let (server, ports) = try await TestServer.start { configuration in
            configuration.controlPort = 0
            configuration.timeouts.controlRequestHeaderSeconds = 120
        }
        defer { Task { try? await server.shutdown() } }
        let client = HTTP1WireClient(port: try XCTUnwrap(ports.control), tls: false)
        let cases: [(String, [UInt8])] = [
            ("a bad request line", Array("NOT AN HTTP REQUEST LINE\r\n\r\n".utf8)),
            ("Transfer-Encoding with Content-Length", Array(
                "POST /v1/reset HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n".utf8)),
            ("a 2 MB header", Array(("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Large: " + String(repeating: "a", count: 2 << 20) + "\r\n\r\n").utf8)),
        ]
        for (name, request) in cases {
            let outcome = try client.exchange([(request, 0)], readFor: 10)
            XCTAssertEqual(outcome.statuses, [400], "\(name): \(outcome)")
            XCTAssertTrue(outcome.hasHeader("X-Frame-Options", "DENY"), "\(name): \(outcome)")
            XCTAssertTrue(outcome.hasHeader("Content-Security-Policy", ControlResponseHeadersMiddleware.contentSecurityPolicy), "\(name): \(outcome)")
            XCTAssertTrue(outcome.hasHeader("X-Content-Type-Options", "nosniff"), "\(name): \(outcome)")
            XCTAssertTrue(outcome.hasHeader("Connection", "close"), "\(name): \(outcome)")
            XCTAssertTrue(outcome.closed, "\(name): \(outcome)")
        }
    }

    /// The request-header deadline runs only while nothing is being answered: a request sent
    /// behind another (pipelined) may take longer than the deadline to answer.
    func testAPipelinedLongPollOutlivesTheHeaderDeadline() async throws {
        let (server, ports) = try await TestServer.start { configuration in
            configuration.controlPort = 0
            configuration.timeouts.controlRequestHeaderSeconds = 0.5
        }
        let result = try ProcessRunner.run("python3", [RobustnessClient.script, "pipelined", String(try XCTUnwrap(ports.control))])
        // The long poll waits for a notification no one sends: it is answered at its own timeout
        // (408, what a wait that ran out answers), not cut off by the header deadline.
        XCTAssertEqual(result.stdout.split(separator: "\n").map(String.init), ["HTTP/1.1 200 OK", "HTTP/1.1 408 Request Timeout"], result.stderr)
        try await server.shutdown()
    }
}
