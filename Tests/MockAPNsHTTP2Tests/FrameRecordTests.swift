import MockAPNsWire
import MockAPNsTestSupport
import MockAPNsHTTP2
import NIOCore
import XCTest

/// The frame journal for a known exchange.
final class FrameRecordTests: XCTestCase {
    func testRecordsOfAKnownExchange() throws {
        let server = try TestServer { handler, request, _ in
            // The upper-case name goes out lowercase, as HTTP/2 requires.
            handler.respond(
                streamID: request.streamID, status: 200, headers: [HTTPHeader(name: "Apns-ID", value: "ID-1")], body: ByteBuffer(string: "ok")
            )
        }
        defer { server.stop() }
        let ping = ClientBytes.frame(type: 0x6, streamID: 0, payload: [9, 9, 9, 9, 9, 9, 9, 9])

        _ = try RawHTTP2Client.exchange(
            port: server.port,
            send: ClientBytes.opening() + ClientBytes.headers(streamID: 1, endStream: false)
                + ClientBytes.data(streamID: 1, Array("{}".utf8), endStream: true) + ping,
            timeout: .milliseconds(300), group: server.group
        )

        let frames = server.log.frames
        let inbound = frames.filter { $0.direction == .inbound }
        let outbound = frames.filter { $0.direction == .outbound }

        XCTAssertEqual(inbound.map(\.type), [.settings, .settings, .headers, .data, .ping])
        XCTAssertEqual(inbound[0].details, .settings([]))
        XCTAssertTrue(inbound[1].has(HTTP2FrameFlags.ack))
        XCTAssertEqual(inbound[2].streamID, 1)
        XCTAssertEqual(inbound[2].flags, HTTP2FrameFlags.endHeaders)
        XCTAssertEqual(inbound[2].length, ClientBytes.requestHeaderBlock.count)
        XCTAssertEqual(inbound[2].details, .headers([
            HTTPHeader(name: ":method", value: "POST"),
            HTTPHeader(name: ":scheme", value: "http"),
            HTTPHeader(name: ":path", value: "/"),
            HTTPHeader(name: ":authority", value: "localhost"),
        ]))
        XCTAssertEqual(inbound[3].length, 2)
        XCTAssertTrue(inbound[3].has(HTTP2FrameFlags.endStream))
        XCTAssertEqual(inbound[4].details, .ping(opaqueData: [9, 9, 9, 9, 9, 9, 9, 9]))

        XCTAssertEqual(outbound.first?.details, .settings([
            HTTP2Setting(identifier: HTTP2Setting.headerTableSize, value: 4096),
            HTTP2Setting(identifier: HTTP2Setting.maxConcurrentStreams, value: 1000),
            HTTP2Setting(identifier: HTTP2Setting.initialWindowSize, value: 65535),
            HTTP2Setting(identifier: HTTP2Setting.maxFrameSize, value: 16384),
            HTTP2Setting(identifier: HTTP2Setting.maxHeaderListSize, value: 8000),
        ]))
        XCTAssertTrue(outbound.contains { $0.type == .settings && $0.has(HTTP2FrameFlags.ack) })
        let headers = try XCTUnwrap(outbound.first { $0.type == .headers })
        XCTAssertEqual(headers.streamID, 1)
        XCTAssertFalse(headers.has(HTTP2FrameFlags.endStream))
        XCTAssertEqual(headers.details, .headers([
            HTTPHeader(name: ":status", value: "200"), HTTPHeader(name: "apns-id", value: "ID-1"),
        ]))
        let data = try XCTUnwrap(outbound.first { $0.type == .data })
        XCTAssertEqual(data.length, 2)
        XCTAssertTrue(data.has(HTTP2FrameFlags.endStream))
        let pong = try XCTUnwrap(outbound.first { $0.type == .ping })
        XCTAssertTrue(pong.has(HTTP2FrameFlags.ack))
        XCTAssertEqual(pong.details, .ping(opaqueData: [9, 9, 9, 9, 9, 9, 9, 9]))
    }

    func testGoAwayAndResetAreDecoded() throws {
        var configuration = HTTP2ServerConfiguration(recordsFrames: true)
        configuration.goAwayDebugData.shutdown = Array("going away".utf8)
        let server = try TestServer(configuration: configuration) { handler, request, _ in
            handler.resetStream(streamID: request.streamID, errorCode: HTTP2ErrorCode.refusedStream)
            handler.gracefulShutdown()
        }
        defer { server.stop() }

        _ = try RawHTTP2Client.exchange(
            port: server.port, send: ClientBytes.opening() + ClientBytes.headers(streamID: 1, endStream: true),
            group: server.group
        )

        let outbound = server.log.frames.filter { $0.direction == .outbound }
        XCTAssertTrue(outbound.contains { $0.type == .rstStream && $0.streamID == 1 && $0.details == .rstStream(errorCode: 7) })
        XCTAssertTrue(outbound.contains {
            $0.type == .goaway && $0.details == .goaway(errorCode: 0, lastStreamID: 1, debugData: Array("going away".utf8))
        })
    }

    func testNothingIsRecordedWhenRecordingIsOff() throws {
        let server = try TestServer(configuration: .init(recordsFrames: false))
        defer { server.stop() }

        _ = try RawHTTP2Client.exchange(
            port: server.port, send: ClientBytes.opening() + ClientBytes.headers(streamID: 1, endStream: true),
            timeout: .milliseconds(200), group: server.group
        )

        XCTAssertEqual(server.log.requests.count, 1)
        XCTAssertTrue(server.log.frames.isEmpty)
    }
}
