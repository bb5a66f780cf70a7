import MockAPNsWire
import MockAPNsTestSupport
import MockAPNsHTTP2
import NIOCore
import XCTest

/// Protocol errors, limits, timeouts and PING, driven by a raw TCP client that sends the
/// bytes no well-behaved client would.
final class ConnectionLifecycleTests: XCTestCase {
    private func exchange(_ server: TestServer, _ bytes: [UInt8], timeout: TimeAmount = .seconds(5)) throws -> RawHTTP2Client.Exchange {
        try RawHTTP2Client.exchange(port: server.port, send: bytes, timeout: timeout, group: server.group)
    }

    func testClientWithoutPrefaceGetsProtocolErrorAndOtherConnectionsCarryOn() throws {
        let server = try TestServer()
        defer { server.stop() }

        let bad = try exchange(server, Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))

        XCTAssertTrue(bad.closedByServer)
        XCTAssertEqual(bad.frames.first?.type, 0x4, "the server's SETTINGS come first")
        let goaway = try XCTUnwrap(bad.frames.last)
        XCTAssertEqual(goaway.type, 0x7)
        XCTAssertEqual(goaway.goAwayErrorCode, HTTP2ErrorCode.protocolError)
        waitFor { !server.log.errors.isEmpty }
        let error = try XCTUnwrap(server.log.errors.first)
        XCTAssertEqual(error.kind, .badPreface)
        XCTAssertEqual(error.errorCode, HTTP2ErrorCode.protocolError)
        XCTAssertTrue(error.message.contains(#""GET / HTTP/1.1\r\n"#), error.message)

        let healthy = try ProcessRunner.runIfInstalled("curl", [
            "-s", "-i", "--http2-prior-knowledge", "--max-time", "10", "http://127.0.0.1:\(server.port)/",
        ])
        XCTAssertTrue(healthy.stdout.hasPrefix("HTTP/2 200"), healthy.stdout + healthy.stderr)
    }

    func testBrokenFrameGetsGoAwayProtocolErrorAndClose() throws {
        let server = try TestServer()
        defer { server.stop() }

        // DATA on stream 0 is a connection error (RFC 9113, 6.1).
        let result = try exchange(server, ClientBytes.opening() + ClientBytes.data(streamID: 0, [1, 2, 3], endStream: false))

        XCTAssertTrue(result.closedByServer)
        let goaway = try XCTUnwrap(result.frames.first { $0.type == 0x7 })
        XCTAssertEqual(goaway.goAwayErrorCode, HTTP2ErrorCode.protocolError)
        waitFor { !server.log.errors.isEmpty }
        XCTAssertEqual(server.log.errors.first?.kind, .protocolViolation)
        XCTAssertEqual(server.log.errors.first?.errorCode, HTTP2ErrorCode.protocolError)
        XCTAssertFalse(server.log.errors.first?.message.isEmpty ?? true)
    }

    func testStreamFlowControlViolationResetsTheStream() throws {
        let server = try TestServer(configuration: .init(initialWindowSize: 1000, recordsFrames: true))
        defer { server.stop() }

        // The client acknowledged a 1000-byte stream window, then sends 5000 bytes at once.
        // nghttp2 treats a stream window overrun as a stream error (RFC 9113, 6.9).
        let bytes = ClientBytes.opening()
            + ClientBytes.headers(streamID: 1, endStream: false)
            + ClientBytes.data(streamID: 1, Array(repeating: 0x61, count: 5000), endStream: true)
        let result = try exchange(server, bytes, timeout: .milliseconds(300))

        let reset = try XCTUnwrap(result.frames.first { $0.type == 0x3 })
        XCTAssertEqual(reset.streamID, 1)
        XCTAssertEqual(reset.resetErrorCode, HTTP2ErrorCode.flowControlError)
        XCTAssertTrue(server.log.requests.isEmpty)
        XCTAssertEqual(server.log.streamErrors.first?.streamID, 1)
        XCTAssertEqual(server.log.streamErrors.first?.errorCode, HTTP2ErrorCode.flowControlError)
    }

    func testConnectionFlowControlViolationGetsGoAwayFlowControlError() throws {
        // A receive buffer large enough that nghttp2 sees every byte in one read batch, with
        // no WINDOW_UPDATE sent in between.
        let server = try TestServer(receiveBufferSize: 1 << 20)
        defer { server.stop() }

        // Six full frames on three streams: 98,304 bytes against a 65,535-byte connection
        // window (nghttp2 credits the first half back once, when it queues WINDOW_UPDATE).
        var bytes = ClientBytes.opening()
        for stream: UInt32 in [1, 3, 5] {
            bytes += ClientBytes.headers(streamID: stream, endStream: false)
        }
        for stream: UInt32 in [1, 1, 3, 3, 5, 5] {
            bytes += ClientBytes.data(streamID: stream, Array(repeating: 0x61, count: 16384), endStream: false)
        }
        let result = try exchange(server, bytes)

        XCTAssertTrue(result.closedByServer)
        let goaway = try XCTUnwrap(result.frames.first { $0.type == 0x7 })
        XCTAssertEqual(goaway.goAwayErrorCode, HTTP2ErrorCode.flowControlError)
        waitFor { !server.log.errors.isEmpty }
        XCTAssertEqual(server.log.errors.first?.kind, .protocolViolation)
        XCTAssertEqual(server.log.errors.first?.errorCode, HTTP2ErrorCode.flowControlError)
    }

    func testExceedingTheStreamLimitGetsAGoAwayWithTheConfiguredDebugData() throws {
        var configuration = HTTP2ServerConfiguration(maxConcurrentStreams: 2, recordsFrames: true)
        configuration.goAwayDebugData.streamLimit = Array("Maximum active streams violated for this endpoint.".utf8)
        let server = try TestServer(configuration: configuration) { _, _, _ in }
        defer { server.stop() }

        // Three requests left open (no END_STREAM) against a limit of two.
        let bytes = ClientBytes.opening()
            + ClientBytes.headers(streamID: 1, endStream: false)
            + ClientBytes.headers(streamID: 3, endStream: false)
            + ClientBytes.headers(streamID: 5, endStream: false)
        let result = try exchange(server, bytes)

        XCTAssertTrue(result.closedByServer)
        let goaways = result.frames.filter { $0.type == 0x7 }
        XCTAssertEqual(goaways.count, 1)
        XCTAssertEqual(goaways.first?.goAwayErrorCode, HTTP2ErrorCode.refusedStream)
        XCTAssertEqual(goaways.first?.goAwayDebugText, "Maximum active streams violated for this endpoint.")
        waitFor { !server.log.errors.isEmpty }
        XCTAssertEqual(server.log.errors.first?.kind, .streamLimitExceeded)
    }

    func testExceedingTheStreamLimitTheNghttp2Way() throws {
        let configuration = HTTP2ServerConfiguration(
            maxConcurrentStreams: 2, recordsFrames: true, streamLimitViolation: .nghttp2Default
        )
        let server = try TestServer(configuration: configuration) { _, _, _ in }
        defer { server.stop() }

        let streams = ClientBytes.headers(streamID: 1, endStream: false)
            + ClientBytes.headers(streamID: 3, endStream: false)
            + ClientBytes.headers(streamID: 5, endStream: false)

        // Limit acknowledged: nghttp2 calls it a connection error.
        let acknowledged = try exchange(server, ClientBytes.opening() + streams)
        XCTAssertTrue(acknowledged.closedByServer)
        XCTAssertEqual(acknowledged.frames.first { $0.type == 0x7 }?.goAwayErrorCode, HTTP2ErrorCode.protocolError)

        // Limit not yet acknowledged: the extra stream is refused, the connection lives on.
        let pending = try exchange(server, ClientBytes.opening(acknowledgingSettings: false) + streams, timeout: .milliseconds(300))
        XCTAssertFalse(pending.closedByServer)
        let reset = try XCTUnwrap(pending.frames.first { $0.type == 0x3 })
        XCTAssertEqual(reset.streamID, 5)
        XCTAssertEqual(reset.resetErrorCode, HTTP2ErrorCode.refusedStream)
        XCTAssertFalse(pending.frames.contains { $0.type == 0x7 })
        XCTAssertEqual(server.log.streamErrors.last?.streamID, 5)
        XCTAssertEqual(server.log.streamErrors.last?.errorCode, HTTP2ErrorCode.refusedStream)
    }

    func testIdleConnectionGetsGoAwayIdleTimeoutAndCloses() throws {
        let server = try TestServer(
            configuration: HTTP2ServerConfiguration(idleTimeout: .milliseconds(200), recordsFrames: true).withTestGoAwayDebugData)
        defer { server.stop() }

        let started = Date()
        let result = try exchange(server, ClientBytes.opening() + ClientBytes.headers(streamID: 1, endStream: true))

        XCTAssertTrue(result.closedByServer)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.2)
        XCTAssertTrue(result.frames.contains { $0.type == 0x1 && $0.streamID == 1 }, "the request was answered first")
        let goaway = try XCTUnwrap(result.frames.last)
        XCTAssertEqual(goaway.type, 0x7)
        XCTAssertEqual(goaway.goAwayErrorCode, HTTP2ErrorCode.noError)
        XCTAssertEqual(goaway.goAwayDebugText, #"{"reason":"IdleTimeout"}"#)
        XCTAssertTrue(server.log.errors.isEmpty)
    }

    func testFramesFromTheClientKeepTheIdleTimerAway() throws {
        let server = try TestServer(configuration: .init(idleTimeout: .milliseconds(600)))
        defer { server.stop() }
        let ping = ClientBytes.frame(type: 0x6, streamID: 0, payload: [0, 0, 0, 0, 0, 0, 0, 7])

        // A PING every 150 ms for 900 ms: never 600 ms without a frame.
        let result = try RawHTTP2Client.exchange(
            port: server.port, send: ClientBytes.opening(),
            later: (1...6).map { (delay: .milliseconds(150 * Int64($0)), bytes: ping) },
            timeout: .milliseconds(1000), group: server.group
        )

        XCTAssertFalse(result.closedByServer)
        XCTAssertFalse(result.frames.contains { $0.type == 0x7 })
        XCTAssertEqual(result.frames.filter { $0.type == 0x6 }.count, 6)
    }

    func testOpenStreamKeepsTheIdleTimerAway() throws {
        // The delegate never answers: the stream stays open, so the connection is not idle.
        let server = try TestServer(configuration: .init(idleTimeout: .milliseconds(100))) { _, _, _ in }
        defer { server.stop() }

        let result = try exchange(
            server, ClientBytes.opening() + ClientBytes.headers(streamID: 1, endStream: true), timeout: .milliseconds(500)
        )

        XCTAssertFalse(result.closedByServer)
        XCTAssertFalse(result.frames.contains { $0.type == 0x7 })
    }

    func testPingIsAnswered() throws {
        let server = try TestServer()
        defer { server.stop() }
        let opaque: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]

        let result = try exchange(
            server, ClientBytes.opening() + ClientBytes.frame(type: 0x6, streamID: 0, payload: opaque),
            timeout: .milliseconds(300)
        )

        let pong = try XCTUnwrap(result.frames.first { $0.type == 0x6 })
        XCTAssertEqual(pong.flags, 0x1)
        XCTAssertEqual(pong.payload, opaque)
    }

    func testSendGoAwayWithoutCloseKeepsTheConnection() throws {
        let server = try TestServer { handler, request, _ in
            handler.sendGoAway(errorCode: HTTP2ErrorCode.noError, debugData: Array("null".utf8), closeAfter: false)
            handler.respond(streamID: request.streamID, status: 200, headers: [], body: nil)
        }
        defer { server.stop() }

        let result = try exchange(
            server, ClientBytes.opening() + ClientBytes.headers(streamID: 1, endStream: true), timeout: .milliseconds(300)
        )

        XCTAssertFalse(result.closedByServer)
        let goaway = try XCTUnwrap(result.frames.first { $0.type == 0x7 })
        XCTAssertEqual(goaway.goAwayDebugText, "null")
        XCTAssertTrue(result.frames.contains { $0.type == 0x1 && $0.streamID == 1 })
    }

    func testSendGoAwayWithCloseEndsTheConnection() throws {
        let server = try TestServer { handler, _, _ in
            handler.sendGoAway(
                errorCode: HTTP2ErrorCode.internalError, lastStreamID: 0,
                debugData: Array(#"{"reason":"InternalServerError"}"#.utf8), closeAfter: true
            )
        }
        defer { server.stop() }

        let result = try exchange(server, ClientBytes.opening() + ClientBytes.headers(streamID: 1, endStream: true))

        XCTAssertTrue(result.closedByServer)
        let goaway = try XCTUnwrap(result.frames.last)
        XCTAssertEqual(goaway.goAwayErrorCode, HTTP2ErrorCode.internalError)
        XCTAssertEqual(Array(goaway.payload[0..<4]), [0, 0, 0, 0], "last stream ID as given")
        XCTAssertEqual(goaway.goAwayDebugText, #"{"reason":"InternalServerError"}"#)
        XCTAssertTrue(server.log.errors.isEmpty, "a GOAWAY the server chose is not a client error")
    }
}
