import MockAPNsWire
import MockAPNsTestSupport
import MockAPNsHTTP2
import NIOCore
import XCTest

/// Bytes that break HTTP/2 in different ways: each gets the right GOAWAY, an error for the
/// delegate, and a closed connection; nothing crashes and the server keeps serving.
final class MalformedInputTests: XCTestCase {
    private struct Case {
        var name: String
        var bytes: [UInt8]
        var expectedCode: UInt32
    }

    private let cases: [Case] = [
        Case(
            name: "DATA larger than MAX_FRAME_SIZE",
            bytes: ClientBytes.opening() + ClientBytes.headers(streamID: 1, endStream: false)
                + ClientBytes.data(streamID: 1, Array(repeating: 0, count: 16385), endStream: true),
            expectedCode: HTTP2ErrorCode.frameSizeError
        ),
        Case(
            name: "HPACK garbage",
            bytes: ClientBytes.opening()
                + ClientBytes.frame(type: 0x1, flags: 0x5, streamID: 1, payload: [0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
            expectedCode: HTTP2ErrorCode.compressionError
        ),
        Case(
            name: "request on an even (server) stream ID",
            bytes: ClientBytes.opening() + ClientBytes.headers(streamID: 2, endStream: true),
            expectedCode: HTTP2ErrorCode.protocolError
        ),
        Case(
            name: "SETTINGS with a length that is not a multiple of 6",
            bytes: ClientBytes.opening() + ClientBytes.frame(type: 0x4, streamID: 0, payload: [0, 3, 0, 0, 0]),
            expectedCode: HTTP2ErrorCode.frameSizeError
        ),
        Case(
            name: "connection WINDOW_UPDATE of zero",
            bytes: ClientBytes.opening() + ClientBytes.frame(type: 0x8, streamID: 0, payload: [0, 0, 0, 0]),
            expectedCode: HTTP2ErrorCode.protocolError
        ),
        Case(
            name: "CONTINUATION without HEADERS",
            bytes: ClientBytes.opening() + ClientBytes.frame(type: 0x9, flags: 0x4, streamID: 1, payload: [0x82]),
            expectedCode: HTTP2ErrorCode.protocolError
        ),
    ]

    func testEachBrokenInputGetsItsGoAwayAndTheServerCarriesOn() throws {
        let server = try TestServer()
        defer { server.stop() }

        for (index, testCase) in cases.enumerated() {
            let result = try RawHTTP2Client.exchange(port: server.port, send: testCase.bytes, group: server.group)

            XCTAssertTrue(result.closedByServer, testCase.name)
            let goaway = result.frames.first { $0.type == 0x7 }
            XCTAssertEqual(goaway?.goAwayErrorCode, testCase.expectedCode, testCase.name)
            waitFor { server.log.errors.count == index + 1 }
            XCTAssertEqual(server.log.errors.last?.errorCode, testCase.expectedCode, testCase.name)
            XCTAssertEqual(server.log.errors.last?.message.isEmpty, false, testCase.name)
        }

        let healthy = try RawHTTP2Client.exchange(
            port: server.port, send: ClientBytes.opening() + ClientBytes.headers(streamID: 1, endStream: true),
            timeout: .milliseconds(200), group: server.group
        )
        XCTAssertTrue(healthy.frames.contains { $0.type == 0x1 && $0.streamID == 1 })
    }

    func testTLSOnTheCleartextPortIsNamedInTheError() throws {
        let server = try TestServer()
        defer { server.stop() }
        let clientHelloStart: [UInt8] = [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]
            + Array(repeating: 0, count: 32)

        let result = try RawHTTP2Client.exchange(port: server.port, send: clientHelloStart, group: server.group)

        XCTAssertTrue(result.closedByServer)
        XCTAssertEqual(result.frames.last?.goAwayErrorCode, HTTP2ErrorCode.protocolError)
        waitFor { !server.log.errors.isEmpty }
        XCTAssertEqual(server.log.errors.first?.kind, .badPreface)
        XCTAssertTrue(server.log.errors.first?.message.contains("TLS handshake") ?? false)
    }

    func testPingFloodGetsEnhanceYourCalm() throws {
        // One read batch holding far more PINGs than nghttp2 queues answers for (1000).
        let server = try TestServer(receiveBufferSize: 1 << 20)
        defer { server.stop() }
        let ping = ClientBytes.frame(type: 0x6, streamID: 0, payload: [0, 0, 0, 0, 0, 0, 0, 1])
        let bytes = ClientBytes.opening() + Array((0..<3000).map { _ in ping }.joined())

        let result = try RawHTTP2Client.exchange(port: server.port, send: bytes, group: server.group)

        XCTAssertTrue(result.closedByServer)
        XCTAssertEqual(result.frames.last?.goAwayErrorCode, HTTP2ErrorCode.enhanceYourCalm)
        waitFor { !server.log.errors.isEmpty }
        XCTAssertEqual(server.log.errors.first?.kind, .flooded)
    }

    func testTruncatedFrameThenHangUpIsHarmless() throws {
        let server = try TestServer()
        defer { server.stop() }

        // Half a HEADERS frame, then the client gives up.
        let half = Array(ClientBytes.headers(streamID: 1, endStream: true).prefix(6))
        let result = try RawHTTP2Client.exchange(
            port: server.port, send: ClientBytes.opening() + half, timeout: .milliseconds(200), group: server.group
        )

        XCTAssertFalse(result.closedByServer, "the server waits for the rest of the frame")
        XCTAssertTrue(server.log.requests.isEmpty)
        XCTAssertTrue(server.log.errors.isEmpty)
    }

    func testResponsesToUnknownOrAnsweredStreamsAreIgnored() throws {
        let server = try TestServer { handler, request, _ in
            handler.respond(streamID: 999, status: 200, headers: [], body: nil)
            handler.respond(streamID: request.streamID, status: 200, headers: [HTTPHeader(name: "x-first", value: "1")], body: nil)
            handler.respond(streamID: request.streamID, status: 500, headers: [HTTPHeader(name: "x-second", value: "1")], body: nil)
        }
        defer { server.stop() }

        let result = try RawHTTP2Client.exchange(
            port: server.port, send: ClientBytes.opening() + ClientBytes.headers(streamID: 1, endStream: true),
            timeout: .milliseconds(200), group: server.group
        )

        XCTAssertEqual(result.frames.filter { $0.type == 0x1 }.map(\.streamID), [1])
        XCTAssertFalse(result.frames.contains { $0.type == 0x7 || $0.type == 0x3 })
        let sent = server.log.frames.filter { $0.direction == .outbound && $0.type == .headers }
        XCTAssertEqual(sent.count, 1)
        XCTAssertEqual(sent.first?.details, .headers([
            HTTPHeader(name: ":status", value: "200"), HTTPHeader(name: "x-first", value: "1"),
        ]))
    }

    func testUpperCaseHeaderNameResetsOnlyThatStream() throws {
        let server = try TestServer()
        defer { server.stop() }
        // :method POST, :scheme http, :path /, then `Apns-Topic: x` as a literal (new name).
        let block: [UInt8] = [0x83, 0x86, 0x84, 0x00, 0x0a] + Array("Apns-Topic".utf8) + [0x01, 0x78]

        let result = try RawHTTP2Client.exchange(
            port: server.port,
            send: ClientBytes.opening()
                + ClientBytes.frame(type: 0x1, flags: 0x5, streamID: 1, payload: block)
                + ClientBytes.headers(streamID: 3, endStream: true),
            timeout: .milliseconds(300), group: server.group
        )

        XCTAssertFalse(result.closedByServer)
        XCTAssertEqual(result.frames.first { $0.type == 0x3 }?.streamID, 1)
        XCTAssertEqual(result.frames.first { $0.type == 0x3 }?.resetErrorCode, HTTP2ErrorCode.protocolError)
        XCTAssertTrue(result.frames.contains { $0.type == 0x1 && $0.streamID == 3 }, "the next stream is served")
        XCTAssertEqual(server.log.requests.map(\.streamID), [3])
        let error = try XCTUnwrap(server.log.streamErrors.first)
        XCTAssertEqual(error.streamID, 1)
        XCTAssertEqual(error.errorCode, HTTP2ErrorCode.protocolError)
        XCTAssertTrue(error.message.contains("Apns-Topic"), error.message)
        XCTAssertTrue(server.log.errors.isEmpty)
    }

    func testHeaderListOverTheAnnouncedLimitResetsTheStreamWhenConfiguredSo() throws {
        let server = try TestServer(configuration: .init(maxHeaderListSize: 8000, recordsFrames: true, headerListOverflow: .resetStream))
        defer { server.stop() }
        let block = ClientBytes.requestHeaderBlock + ClientBytes.literal("authorization", String(repeating: "a", count: 9000))

        let result = try RawHTTP2Client.exchange(
            port: server.port,
            send: ClientBytes.opening()
                + ClientBytes.frame(type: 0x1, flags: 0x5, streamID: 1, payload: block)
                + ClientBytes.headers(streamID: 3, endStream: true),
            timeout: .milliseconds(300), group: server.group
        )

        let resets = result.frames.filter { $0.type == 0x3 }
        XCTAssertEqual(resets.map(\.streamID), [1])
        XCTAssertEqual(resets.first?.resetErrorCode, HTTP2ErrorCode.protocolError)
        XCTAssertEqual(server.log.requests.map(\.streamID), [3], "the next stream is served")
        XCTAssertTrue(server.log.streamErrors.first?.message.contains("MAX_HEADER_LIST_SIZE") ?? false)
        XCTAssertTrue(server.log.errors.isEmpty)
    }

    /// h2spec http2/6.10/1: a header block over HEADERS and two CONTINUATION frames, about
    /// 8,100 bytes counted, just over the announced 8,000. By default the block is decoded
    /// and answered 431 (RFC 9113, section 10.5.1), and the connection serves on.
    func testHeaderListOverTheLimitAcrossContinuationFramesIsAnswered431() throws {
        let server = try TestServer(configuration: .init(maxHeaderListSize: 8000, recordsFrames: true))
        defer { server.stop() }
        let dummy = ClientBytes.literal("x-dummy0", String(repeating: "x", count: 4000))

        let result = try RawHTTP2Client.exchange(
            port: server.port,
            send: ClientBytes.opening()
                + ClientBytes.frame(type: 0x1, flags: 0x1, streamID: 1, payload: ClientBytes.requestHeaderBlock)
                + ClientBytes.frame(type: 0x9, flags: 0x0, streamID: 1, payload: dummy)
                + ClientBytes.frame(type: 0x9, flags: 0x4, streamID: 1, payload: dummy)
                + ClientBytes.headers(streamID: 3, endStream: true),
            timeout: .milliseconds(300), group: server.group
        )

        XCTAssertFalse(result.closedByServer)
        XCTAssertFalse(result.frames.contains { $0.type == 0x3 || $0.type == 0x7 }, "no reset, no GOAWAY")
        let answer = try XCTUnwrap(result.frames.first { $0.type == 0x1 && $0.streamID == 1 })
        XCTAssertEqual(answer.flags & 0x1, 0x1, "the answer ends the stream")
        let sent = server.log.frames.first { $0.direction == .outbound && $0.type == .headers && $0.streamID == 1 }
        XCTAssertEqual(sent?.details, .headers([HTTPHeader(name: ":status", value: "431")]))
        XCTAssertEqual(server.log.requests.map(\.streamID), [3], "the oversized request is not delivered; the next is")
        let refusal = try XCTUnwrap(server.log.refusals.first)
        XCTAssertEqual(refusal.streamID, 1)
        XCTAssertEqual(refusal.status, 431)
        XCTAssertTrue(refusal.message.contains("MAX_HEADER_LIST_SIZE of 8000"), refusal.message)
        XCTAssertTrue(server.log.errors.isEmpty)
    }

    /// h2spec http2/5.1.1/2: a HEADERS on stream 3 after stream 5 is a connection error
    /// PROTOCOL_ERROR (nghttp2 alone would ignore it).
    func testANewStreamBelowAnOpenedOneIsAConnectionError() throws {
        let server = try TestServer()
        defer { server.stop() }

        let result = try RawHTTP2Client.exchange(
            port: server.port,
            send: ClientBytes.opening() + ClientBytes.headers(streamID: 5, endStream: true),
            later: [(.milliseconds(50), ClientBytes.headers(streamID: 3, endStream: true))],
            group: server.group
        )

        XCTAssertTrue(result.closedByServer)
        let goaway = try XCTUnwrap(result.frames.first { $0.type == 0x7 })
        XCTAssertEqual(goaway.goAwayErrorCode, HTTP2ErrorCode.protocolError)
        XCTAssertEqual(goaway.payload.prefix(4), [0, 0, 0, 5], "last stream 5")
        XCTAssertEqual(server.log.requests.map(\.streamID), [5])
        XCTAssertEqual(server.log.errors.first?.errorCode, HTTP2ErrorCode.protocolError)
        XCTAssertTrue(server.log.errors.first?.message.contains("stream 3") ?? false, "\(server.log.errors)")
    }

    /// Late trailers on a stream the client did open are not that error: RFC 9113 lets a
    /// client send them before it learns the stream was answered.
    func testHeadersOnAnEarlierOpenedStreamDoNotEndTheConnection() throws {
        let server = try TestServer()
        defer { server.stop() }

        let result = try RawHTTP2Client.exchange(
            port: server.port,
            send: ClientBytes.opening() + ClientBytes.headers(streamID: 1, endStream: false)
                + ClientBytes.headers(streamID: 3, endStream: true),
            later: [
                (.milliseconds(50), ClientBytes.frame(type: 0x1, flags: 0x5, streamID: 1, payload: [0x00, 0x01, 0x78, 0x01, 0x79])),
                (.milliseconds(100), ClientBytes.headers(streamID: 7, endStream: true)),
            ],
            timeout: .milliseconds(400), group: server.group
        )

        XCTAssertFalse(result.closedByServer)
        XCTAssertFalse(result.frames.contains { $0.type == 0x7 }, "no GOAWAY")
        XCTAssertEqual(Set(server.log.requests.map(\.streamID)), [1, 3, 7])
    }

    func testHeaderListJustUnderTheLimitIsAccepted() throws {
        let server = try TestServer()
        defer { server.stop() }
        // 4 request fields (about 150 bytes counted) plus one of 32 + 13 + 7000 bytes.
        let block = ClientBytes.requestHeaderBlock + ClientBytes.literal("authorization", String(repeating: "a", count: 7000))

        _ = try RawHTTP2Client.exchange(
            port: server.port,
            send: ClientBytes.opening() + ClientBytes.frame(type: 0x1, flags: 0x5, streamID: 1, payload: block),
            timeout: .milliseconds(200), group: server.group
        )

        XCTAssertEqual(server.log.requests.first?.head[.authorization]?.count, 7000)
        XCTAssertTrue(server.log.streamErrors.isEmpty)
    }

    func testStreamsTheServerResetsAreNotStreamErrors() throws {
        let server = try TestServer { handler, request, _ in
            handler.resetStream(streamID: request.streamID, errorCode: HTTP2ErrorCode.cancel)
        }
        defer { server.stop() }

        let result = try RawHTTP2Client.exchange(
            port: server.port, send: ClientBytes.opening() + ClientBytes.headers(streamID: 1, endStream: true),
            timeout: .milliseconds(200), group: server.group
        )

        XCTAssertEqual(result.frames.first { $0.type == 0x3 }?.resetErrorCode, HTTP2ErrorCode.cancel)
        XCTAssertTrue(server.log.streamErrors.isEmpty)
        XCTAssertEqual(server.log.closedStreams.first?.errorCode, HTTP2ErrorCode.cancel)
    }

    func testTrailersJoinTheRequestAndAreRecordedAsTheirOwnBlock() throws {
        let server = try TestServer()
        defer { server.stop() }
        // `x-trailer: yes` as a literal without indexing, new name.
        let trailerBlock: [UInt8] = [0x00, 0x09] + Array("x-trailer".utf8) + [0x03] + Array("yes".utf8)

        _ = try RawHTTP2Client.exchange(
            port: server.port,
            send: ClientBytes.opening() + ClientBytes.headers(streamID: 1, endStream: false)
                + ClientBytes.data(streamID: 1, Array("abc".utf8), endStream: false)
                + ClientBytes.frame(type: 0x1, flags: 0x5, streamID: 1, payload: trailerBlock),
            timeout: .milliseconds(200), group: server.group
        )

        let request = try XCTUnwrap(server.log.requests.first)
        XCTAssertEqual(request.head.fields.last, HTTPHeader(name: "x-trailer", value: "yes"))
        XCTAssertEqual(request.head.fields.count, 5)
        XCTAssertEqual(String(decoding: request.body, as: UTF8.self), "abc")
        let blocks = server.log.frames.filter { $0.direction == .inbound && $0.type == .headers }
        XCTAssertEqual(blocks.count, 2)
        XCTAssertEqual(blocks.last?.details, .headers([HTTPHeader(name: "x-trailer", value: "yes")]))
    }
}

/// Waits for the event loop to catch up with what the client has already seen; fails the
/// test when it has not within 5 seconds.
func waitFor(_ condition: () -> Bool, file: StaticString = #filePath, line: UInt = #line) {
    do {
        try waitUntilSync("the server to catch up", timeout: .seconds(5)) { condition() }
    } catch {
        XCTFail("\(error)", file: file, line: line)
    }
}
