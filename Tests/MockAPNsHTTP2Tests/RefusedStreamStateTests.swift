import MockAPNsWire
import MockAPNsHTTP2
import MockAPNsTestSupport
import NIOCore
import NIOEmbedded
import XCTest

/// A connection whose every stream nghttp2 resets (a header value HTTP/2 forbids, as
/// `authorization: bearer ` with its trailing space is) keeps nothing per past stream: not in
/// the session's tables, not in nghttp2's memory.
final class RefusedStreamStateTests: XCTestCase {
    private final class Counting: NGHTTP2ServerDelegate {
        var requests = 0
        var streamErrors = 0
        func http2Handler(_ handler: NGHTTP2ServerHandler, didReceive request: HTTP2Request) {
            requests += 1
        }
        func http2Handler(_ handler: NGHTTP2ServerHandler, streamError: HTTP2StreamError) {
            streamErrors += 1
        }
    }

    /// `count` requests from stream `first` on, each with `authorization: bearer ` (a trailing
    /// space) and a body.
    private func refusedRequests(from first: UInt32, count: Int) -> [UInt8] {
        let block = ClientBytes.requestHeaderBlock + ClientBytes.literal("authorization", "bearer ")
        return (0..<UInt32(count)).flatMap { index -> [UInt8] in
            let stream = first + 2 * index
            return ClientBytes.frame(type: 0x1, flags: 0x4, streamID: stream, payload: block)
                + ClientBytes.data(streamID: stream, Array(#"{"aps":{"alert":"hello"}}"#.utf8), endStream: true)
        }
    }

    func testStreamsResetOverAForbiddenHeaderValueLeaveNoStateBehind() throws {
        let delegate = Counting()
        let handler = NGHTTP2ServerHandler(configuration: .init(maxConcurrentStreams: 100), delegate: delegate)
        let channel = EmbeddedChannel(handler: handler)
        defer { _ = try? channel.finish() }
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        try channel.writeInbound(ByteBuffer(bytes: ClientBytes.opening()))
        var nextStream: UInt32 = 1
        func send(batches: Int) throws {
            for _ in 0..<batches {
                try channel.writeInbound(ByteBuffer(bytes: refusedRequests(from: nextStream, count: 20)))
                nextStream += 40
                while try channel.readOutbound(as: ByteBuffer.self) != nil {}
            }
        }

        try send(batches: 10)
        let warm = try XCTUnwrap(handler.memoryPoolUse)
        try send(batches: 100)
        XCTAssertEqual(delegate.requests, 0, "no reset request is handed over")
        XCTAssertEqual(delegate.streamErrors, 2_200, "every stream is reset, and reported once")
        XCTAssertEqual(
            handler.streamStateCounts,
            HTTP2StreamStateCounts(openStreams: 0, errorReasons: 0, applicationResets: 0, refusalsAwaitingHeaders: 0)
        )
        let after = try XCTUnwrap(handler.memoryPoolUse)
        XCTAssertLessThanOrEqual(after.outstanding, warm.outstanding, "nghttp2 holds no more blocks after 2,000 more resets")
    }
}
