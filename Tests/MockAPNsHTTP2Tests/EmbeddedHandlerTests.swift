import MockAPNsWire
import MockAPNsHTTP2
import MockAPNsTestSupport
import NIOCore
import NIOEmbedded
import XCTest

/// `NGHTTP2ServerHandler`'s state machine on an `EmbeddedChannel`: no sockets, no event loop
/// threads, every step taken by the test. The real-socket tests beside these check the same
/// handler against real clients.
final class EmbeddedHandlerTests: XCTestCase {
    /// Answers each request with `200` (and the given headers) from inside the callback.
    private final class Answering: NGHTTP2ServerDelegate {
        var requests: [HTTP2Request] = []
        var closedStreams: [Int32] = []

        func http2Handler(_ handler: NGHTTP2ServerHandler, didReceive request: HTTP2Request) {
            requests.append(request)
            handler.respond(streamID: request.streamID, status: 200, headers: [HTTPHeader(name: "apns-id", value: "ID-\(request.streamID)")], body: nil)
        }

        func http2Handler(_ handler: NGHTTP2ServerHandler, didCloseStream streamID: Int32, errorCode: UInt32) {
            closedStreams.append(streamID)
        }
    }

    private func activeChannel(
        _ configuration: HTTP2ServerConfiguration = .init(), delegate: Answering
    ) throws -> (EmbeddedChannel, NGHTTP2ServerHandler) {
        let handler = NGHTTP2ServerHandler(configuration: configuration, delegate: delegate)
        let channel = EmbeddedChannel(handler: handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        return (channel, handler)
    }

    /// Every frame written so far.
    private func written(_ channel: EmbeddedChannel) throws -> [RawHTTP2Frame] {
        var bytes: [UInt8] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
            bytes += buffer.readableBytesView
        }
        return RawHTTP2Frame.parse(bytes)
    }

    private func send(_ bytes: [UInt8], to channel: EmbeddedChannel) throws {
        try channel.writeInbound(ByteBuffer(bytes: bytes))
    }

    func testTheServersSettingsGoOutBeforeAnyClientByte() throws {
        let (channel, _) = try activeChannel(.init(maxConcurrentStreams: 7), delegate: Answering())
        defer { _ = try? channel.finish() }
        let frames = try written(channel)
        let settings = try XCTUnwrap(frames.first)
        XCTAssertEqual(settings.type, 0x4)
        XCTAssertEqual(settings.flags & 0x1, 0, "a SETTINGS frame, not an ACK")
        // MAX_CONCURRENT_STREAMS (0x3) = 7 among the announced settings.
        let pairs = settings.settingsValues
        XCTAssertTrue(pairs.contains { $0.0 == 0x3 && $0.1 == 7 }, "\(pairs)")
    }

    func testAnAnswerGivenInsideTheCallbackIsWrittenWhenTheReadBatchEnds() throws {
        let delegate = Answering()
        let (channel, _) = try activeChannel(delegate: delegate)
        defer { _ = try? channel.finish() }
        _ = try written(channel)

        try send(ClientBytes.opening() + ClientBytes.headers(streamID: 1, endStream: true), to: channel)
        XCTAssertEqual(delegate.requests.map(\.streamID), [1])
        let frames = try written(channel)
        let answer = try XCTUnwrap(frames.first { $0.type == 0x1 && $0.streamID == 1 }, "\(frames.map(\.type))")
        XCTAssertEqual(answer.flags & 0x1, 0x1, "HEADERS ends the stream: no body")
        XCTAssertEqual(delegate.closedStreams, [1])
    }

    func testNothingIsTakenOutOfNGHTTP2WhileTheChannelIsNotWritable() throws {
        let delegate = Answering()
        let (channel, _) = try activeChannel(delegate: delegate)
        defer { _ = try? channel.finish() }
        try send(ClientBytes.opening(), to: channel)
        _ = try written(channel)

        // The client stopped reading: the channel's buffer is over its high-water mark.
        channel.isWritable = false
        try send(ClientBytes.headers(streamID: 1, endStream: true) + ClientBytes.headers(streamID: 3, endStream: true), to: channel)
        XCTAssertEqual(delegate.requests.map(\.streamID), [1, 3], "requests are still read and answered")
        XCTAssertTrue(try written(channel).isEmpty, "the answers stay inside nghttp2")

        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        let frames = try written(channel)
        XCTAssertEqual(frames.filter { $0.type == 0x1 }.map(\.streamID), [1, 3], "both answers go out once it is writable again")
    }

    func testAGracefulShutdownSendsGoAwayWithTheConfiguredDebugDataThenClosesWhenStreamsAreDone() throws {
        var configuration = HTTP2ServerConfiguration()
        configuration.goAwayDebugData.shutdown = Array("bye".utf8)
        let delegate = Answering()
        let (channel, _) = try activeChannel(configuration, delegate: delegate)
        try send(ClientBytes.opening() + ClientBytes.headers(streamID: 1, endStream: true), to: channel)
        _ = try written(channel)

        channel.pipeline.fireUserInboundEventTriggered(HTTP2GracefulShutdownEvent())
        let goAway = try XCTUnwrap(try written(channel).first { $0.type == 0x7 })
        XCTAssertEqual(Array(goAway.payload[0..<4]), [0, 0, 0, 1], "the last stream handed to the delegate")
        XCTAssertEqual(goAway.goAwayErrorCode, HTTP2ErrorCode.noError)
        XCTAssertEqual(goAway.goAwayDebugText, "bye")
        channel.embeddedEventLoop.run()
        XCTAssertFalse(channel.isActive, "no stream is open, so the connection closes")
    }
}

extension EmbeddedHandlerTests {
    /// Keeps each request for an answer given later, outside the read (as a relayed one is).
    private final class Keeping: NGHTTP2ServerDelegate {
        var requests: [HTTP2Request] = []
        func http2Handler(_ handler: NGHTTP2ServerHandler, didReceive request: HTTP2Request) { requests.append(request) }
        func http2Handler(_ handler: NGHTTP2ServerHandler, didCloseStream streamID: Int32, errorCode: UInt32) {}
    }

    func testAnswersGivenInOneTickOutsideAReadLeaveInOneWrite() throws {
        let delegate = Keeping()
        let handler = NGHTTP2ServerHandler(configuration: .init(), delegate: delegate)
        let channel = EmbeddedChannel(handler: handler)
        defer { _ = try? channel.finish() }
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        try channel.writeInbound(ByteBuffer(bytes: ClientBytes.opening()
            + ClientBytes.headers(streamID: 1, endStream: true) + ClientBytes.headers(streamID: 3, endStream: true)
            + ClientBytes.headers(streamID: 5, endStream: true)))
        XCTAssertEqual(delegate.requests.map(\.streamID), [1, 3, 5])
        while try channel.readOutbound(as: ByteBuffer.self) != nil {}

        for request in delegate.requests {
            handler.outputAtEndOfTick {
                _ = handler.respond(streamID: request.streamID, status: 200, headers: [], body: nil)
            }
        }
        XCTAssertNil(try channel.readOutbound(as: ByteBuffer.self), "nothing leaves before the tick ends")
        channel.embeddedEventLoop.run()
        var writes: [[UInt8]] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { writes.append(Array(buffer.readableBytesView)) }
        XCTAssertEqual(writes.count, 1, "three answers, one write")
        XCTAssertEqual(RawHTTP2Frame.parse(writes.first ?? []).filter { $0.type == 0x1 }.map(\.streamID), [1, 3, 5])
    }
}
