import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import XCTest

/// The control API's sockets: an answer given before the request was read whole still
/// releases the connection, and a client that never finishes its request header is cut off.
final class ControlConnectionTests: XCTestCase {
    /// A 1 MiB header (400) and a body over the 4 MiB limit cut short (413), each followed by
    /// the client closing: every descriptor comes back. They once stayed open for good.
    func testAnswerThenCloseReleasesTheSocket() async throws {
        let (server, ports) = try await TestServer.start { configuration in
            configuration.control.port = 0
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

    /// The request-header deadline runs only while nothing is being answered: a request sent
    /// behind another (pipelined) may take longer than the deadline to answer.
    func testAPipelinedLongPollOutlivesTheHeaderDeadline() async throws {
        let (server, ports) = try await TestServer.start { configuration in
            configuration.control.port = 0
            configuration.timeouts.controlRequestHeaderSeconds = 0.5
        }
        let result = try ProcessRunner.run("python3", [RobustnessClient.script, "pipelined", String(try XCTUnwrap(ports.control))])
        XCTAssertEqual(result.stdout.split(separator: "\n").map(String.init), ["HTTP/1.1 200 OK", "HTTP/1.1 200 OK"], result.stderr)
        try await server.shutdown()
    }
}
