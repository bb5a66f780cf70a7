import MockAPNsConnections
import Foundation
import MockAPNs
import MockAPNsTestSupport
import XCTest

/// The embedding API's lifecycle: a server starts once, a failed start leaves nothing
/// running, and the scoped helper always shuts down.
final class ServerLifecycleTests: XCTestCase {
    /// A port that was free a moment ago: bound by a server, which then let it go.
    private func releasedPort() async throws -> Int {
        let (server, ports) = try await TestServer.start()
        try await server.shutdown()
        return ports.http2
    }

    /// A server binding `port` for HTTP/2 starts, so nothing else holds it.
    private func assertPortIsFree(_ port: Int, _ message: String, line: UInt = #line) async throws {
        let server = MockAPNsServer(configuration: TestServer.configuration { $0.http2Port = port })
        do {
            let ports = try await server.start()
            XCTAssertEqual(ports.http2, port, message, line: line)
            try await server.shutdown()
        } catch {
            XCTFail("\(message): \(error)", line: line)
        }
    }

    func testAServerThatPlaysNoEnvironmentRefusesToStartAndSaysWhy() async throws {
        var configuration = MockAPNsConfiguration()
        configuration.environments = []
        let server = MockAPNsServer(configuration: configuration)
        do {
            try await server.start()
            XCTFail("a server with no environment started")
        } catch let error as MockAPNsServer.UsageError {
            XCTAssertEqual(error, .noEnvironment)
            XCTAssertTrue(error.description.contains("configuration.environments"), error.description)
        }
        XCTAssertNil(server.ports)
    }

    func testAServerStartsOnceAndNotAgainAfterItsShutdown() async throws {
        let (server, _) = try await TestServer.start()
        do {
            try await server.start()
            XCTFail("a second start was accepted")
        } catch let error as MockAPNsServer.UsageError {
            XCTAssertEqual(error, .alreadyStarted)
        }
        try await server.shutdown()
        XCTAssertNil(server.ports)
        // A second shutdown does nothing.
        try await server.shutdown()
        do {
            try await server.start()
            XCTFail("a start after the shutdown was accepted")
        } catch let error as MockAPNsServer.UsageError {
            XCTAssertEqual(error, .stopped)
            XCTAssertTrue(error.description.contains("make a new MockAPNsServer"), error.description)
        }
    }

    /// The HTTP/2 listener binds first; when the gateway's port is taken, the start fails and
    /// the HTTP/2 port it had bound is free again, and the server does not start again.
    func testAFailedStartStopsWhatItHadStarted() async throws {
        let (holder, held) = try await TestServer.start()
        let http2Port = try await releasedPort()
        let clashing = MockAPNsServer(configuration: TestServer.configuration {
            $0.http2Port = http2Port
            $0.legacy.gatewayPort = held.gateway ?? 0
        })
        do {
            try await clashing.start()
            XCTFail("a server bound a port in use")
        } catch let error as ListenerBindFailed {
            XCTAssertEqual(error.listener, "legacy gateway")
        }
        try await holder.shutdown()
        XCTAssertNil(clashing.ports)
        try await assertPortIsFree(http2Port, "the failed start left its HTTP/2 listener bound")
        do {
            try await clashing.start()
            XCTFail("a server whose start failed started again")
        } catch let error as MockAPNsServer.UsageError {
            XCTAssertEqual(error, .stopped)
        }
    }

    /// A start that fails before anything listens (no server certificate) undoes steps it
    /// never reached without a crash or a hang, and the server is not started again.
    func testAStartThatFailsBeforeAnyListenerStopsCleanly() async throws {
        let missing = NSTemporaryDirectory() + "mockapns-no-credentials-\(UInt64.random(in: 0...UInt64.max))"
        let server = MockAPNsServer(configuration: TestServer.configuration { $0.certificateDirectory = missing })
        do {
            try await server.start()
            XCTFail("a server without a certificate started")
        } catch is MockAPNsServer.UsageError {
            XCTFail("the first start was refused as a lifecycle error rather than for its certificate")
        } catch {
            XCTAssertTrue(String(describing: error).contains(missing), "the error names the folder: \(error)")
        }
        XCTAssertNil(server.ports)
        try await server.shutdown()
        do {
            try await server.start()
            XCTFail("a server whose start failed started again")
        } catch let error as MockAPNsServer.UsageError {
            XCTAssertEqual(error, .stopped)
        }
    }

    func testTheScopedHelperShutsDownWhenItsBodyThrows() async throws {
        struct Failure: Error {}
        let http2Port = try await releasedPort()
        var seen: MockAPNsServer?
        do {
            try await withMockAPNsServer(TestServer.configuration { $0.http2Port = http2Port }) { server, ports in
                seen = server
                XCTAssertEqual(ports.http2, http2Port)
                XCTAssertEqual(server.ports, ports)
                throw Failure()
            }
            XCTFail("the body's error was not thrown")
        } catch is Failure {}
        XCTAssertNil(seen?.ports, "the server still runs after the body threw")
        try await assertPortIsFree(http2Port, "the scoped helper left its listener bound")
    }

    func testTheScopedHelperReturnsWhatItsBodyReturnsAndThenShutsDown() async throws {
        let http2Port = try await releasedPort()
        let bound = try await withMockAPNsServer(TestServer.configuration { $0.http2Port = http2Port }) { _, ports in
            ports
        }
        XCTAssertEqual(bound.http2, http2Port)
        try await assertPortIsFree(http2Port, "the scoped helper left its listener bound after returning")
    }
}
