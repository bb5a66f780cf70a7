import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest

/// Connection-level behaviour over real TLS: Apple's SETTINGS, bad bytes, shutdown.
final class HTTP2ConnectionTests: XCTestCase {
    private static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    private static let emptySettings: [UInt8] = [0, 0, 0, 0x4, 0, 0, 0, 0, 0]

    func testTokenConnectionStartsWithOneStream() async throws {
        let (server, ports) = try await TestServer.start { $0.http2.maxConcurrentStreams = 1000 }
        let exchange = try RawTLSClient.exchange(port: ports.http2, send: Self.preface + Self.emptySettings, timeout: 1)
        let settings = try XCTUnwrap(RawHTTP2Frame.parse(exchange.received).first { $0.type == RawHTTP2Frame.settings && $0.flags & 1 == 0 })
        let values = Dictionary(settings.settingsValues, uniquingKeysWith: { $1 })
        XCTAssertEqual(values[0x3], 1, "no certificate: one stream until a valid provider token")
        try await server.shutdown()
    }

    func testCertificateConnectionGetsApplesSettings() async throws {
        let (server, ports) = try await TestServer.start { $0.http2.maxConcurrentStreams = 1000 }
        let exchange = try RawTLSClient.exchange(port: ports.http2, certificate: "universal", send: Self.preface + Self.emptySettings, timeout: 1)
        XCTAssertEqual(exchange.negotiatedALPN, "h2")
        let settings = try XCTUnwrap(RawHTTP2Frame.parse(exchange.received).first { $0.type == RawHTTP2Frame.settings && $0.flags & 1 == 0 })
        let values = Dictionary(settings.settingsValues, uniquingKeysWith: { $1 })
        XCTAssertEqual(values[0x1], 4096, "HEADER_TABLE_SIZE")
        XCTAssertEqual(values[0x3], 1000, "MAX_CONCURRENT_STREAMS")
        XCTAssertEqual(values[0x4], 65535, "INITIAL_WINDOW_SIZE")
        XCTAssertEqual(values[0x5], 16384, "MAX_FRAME_SIZE")
        XCTAssertEqual(values[0x6], 8000, "MAX_HEADER_LIST_SIZE")
        XCTAssertNil(values[0x2], "Apple does not send ENABLE_PUSH")
        try await server.shutdown()
    }

    func testClientWithoutALPNIsServedHTTP2ByDefault() async throws {
        let (server, ports) = try await TestServer.start()
        let exchange = try RawTLSClient.exchange(port: ports.http2, alpn: [], certificate: "universal",
                                                 send: Self.preface + Self.emptySettings, timeout: 1)
        XCTAssertNil(exchange.negotiatedALPN)
        XCTAssertTrue(RawHTTP2Frame.parse(exchange.received).contains { $0.type == RawHTTP2Frame.settings },
                      "the server speaks HTTP/2 to a client that offered no ALPN, as APNs does")
        try await server.shutdown()
    }

    func testClientWithoutALPNCanBeRefused() async throws {
        let (server, ports) = try await TestServer.start { $0.http2.acceptsClientsWithoutALPN = false }
        let result = try ProcessRunner.run("openssl", [
            "s_client", "-connect", "127.0.0.1:\(ports.http2)", "-CAfile", Fixtures.caPath, "-servername", "localhost",
        ], input: Data())
        XCTAssertTrue((result.stderr + result.stdout).contains("no application protocol"), result.stderr)
        try await server.shutdown()
    }

    func testBytesThatAreNotAPrefaceCloseOnlyThatConnection() async throws {
        let (server, ports) = try await TestServer.start()
        let exchange = try RawTLSClient.exchange(port: ports.http2, send: Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        XCTAssertTrue(exchange.closedByServer, "the server must close a connection that does not speak HTTP/2")
        let goAway = RawHTTP2Frame.parse(exchange.received).first { $0.type == RawHTTP2Frame.goAway }
        XCTAssertEqual(goAway?.goAwayErrorCode, 1, "PROTOCOL_ERROR")
        let response = try CurlClient(port: ports.http2).send(
            path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")])
        XCTAssertEqual(response.status, 200, "other connections are not disturbed")
        try await server.shutdown()
    }

    func testABrokenFrameGetsGoAwayAndClose() async throws {
        let (server, ports) = try await TestServer.start()
        // A SETTINGS frame whose length (5) is not a multiple of 6: FRAME_SIZE_ERROR.
        let broken: [UInt8] = [0, 0, 5, 0x4, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5]
        let exchange = try RawTLSClient.exchange(port: ports.http2, send: Self.preface + broken)
        XCTAssertTrue(exchange.closedByServer)
        let goAway = try XCTUnwrap(RawHTTP2Frame.parse(exchange.received).first { $0.type == RawHTTP2Frame.goAway })
        XCTAssertEqual(goAway.goAwayErrorCode, 6, "FRAME_SIZE_ERROR")
        try await server.shutdown()
    }

    func testShutdownSendsGoAwayWithShutdownReason() async throws {
        let (server, ports) = try await TestServer.start()
        // Keep a connection open (the client waits up to 5 s), then shut the server down.
        async let exchange = Task.detached {
            try RawTLSClient.exchange(port: ports.http2, send: Self.preface + Self.emptySettings, timeout: 5)
        }.value
        // Shut down once the server has read the client's SETTINGS: the connection is up.
        try await waitUntil("the client's SETTINGS") {
            server.journal.events(matching: JournalEventFilter()).contains { event in
                if case .http2Frame(let frame) = event.kind { return frame.direction == .inbound && frame.type == .settings }
                return false
            }
        }
        try await server.shutdown(gracePeriod: .seconds(2))
        let result = try await exchange
        XCTAssertTrue(result.closedByServer)
        let goAway = try XCTUnwrap(RawHTTP2Frame.parse(result.received).first { $0.type == RawHTTP2Frame.goAway })
        XCTAssertEqual(goAway.goAwayErrorCode, 0, "NO_ERROR")
        XCTAssertEqual(goAway.goAwayDebugText, #"{"reason":"Shutdown"}"#)
    }

    func testIdleConnectionGetsGoAwayIdleTimeout() async throws {
        let (server, ports) = try await TestServer.start { $0.http2.idleTimeoutSeconds = 0.3 }
        let exchange = try RawTLSClient.exchange(port: ports.http2, send: Self.preface + Self.emptySettings, timeout: 5)
        XCTAssertTrue(exchange.closedByServer)
        let goAway = try XCTUnwrap(RawHTTP2Frame.parse(exchange.received).first { $0.type == RawHTTP2Frame.goAway })
        XCTAssertEqual(goAway.goAwayDebugText, #"{"reason":"IdleTimeout"}"#)
        try await server.shutdown()
    }
}
