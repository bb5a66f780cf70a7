import MockAPNsHTTP2
import MockAPNsTestSupport
import MockAPNsTLS
import MockAPNsWire
import NIOCore
import NIOEmbedded
import XCTest

/// `NGHTTP2ClientHandler` on an `EmbeddedChannel`: what it writes, and when. The upstream
/// client's tests run the same handler against a real server over TLS.
final class NGHTTP2ClientHandlerTests: XCTestCase {
    /// A channel whose TLS handshake chose h2, so the handler's session has started and its
    /// preface and SETTINGS are written.
    private func startedChannel() throws -> (EmbeddedChannel, NGHTTP2ClientHandler) {
        let handler = NGHTTP2ClientHandler()
        let channel = EmbeddedChannel(handler: handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        let session = TLSSessionInfo(
            version: "TLSv1.3", cipher: "TLS_AES_128_GCM_SHA256", negotiatedALPN: "h2", serverName: "localhost",
            clientHello: nil, peerCertificateChainDER: [], peerCertificate: .notPresented
        )
        channel.pipeline.fireUserInboundEventTriggered(TLSHandshakeCompleted(session: session))
        return (channel, handler)
    }

    /// The buffers written so far, each one write.
    private func writes(_ channel: EmbeddedChannel) throws -> [[UInt8]] {
        var writes: [[UInt8]] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
            writes.append(Array(buffer.readableBytesView))
        }
        return writes
    }

    private func request(_ number: Int) -> HTTP2ClientRequest {
        HTTP2ClientRequest(headers: [
            HTTPHeader(name: ":method", value: "POST"), HTTPHeader(name: ":scheme", value: "https"),
            HTTPHeader(name: ":authority", value: "localhost"), HTTPHeader(name: ":path", value: "/3/device/\(number)"),
        ], body: Array(#"{"aps":{}}"#.utf8))
    }

    func testRequestsSentInOneTickLeaveInOneWrite() throws {
        let (channel, handler) = try startedChannel()
        defer { _ = try? channel.finish() }
        XCTAssertEqual(try writes(channel).count, 1, "the preface and SETTINGS")
        // The server's SETTINGS: MAX_CONCURRENT_STREAMS 100 (until then nghttp2 opens one stream).
        try channel.writeInbound(ByteBuffer(bytes: [0, 0, 6, 0x4, 0, 0, 0, 0, 0, 0, 0x3, 0, 0, 0, 100]))
        XCTAssertEqual(try writes(channel).count, 1, "its ACK")

        var promises: [EventLoopPromise<HTTP2ClientResponse>] = []
        for number in 1...5 {
            let promise = channel.eventLoop.makePromise(of: HTTP2ClientResponse.self)
            promises.append(promise)
            handler.send(request(number), promise: promise)
        }
        XCTAssertEqual(try writes(channel).count, 0, "nothing leaves before the tick ends")
        channel.embeddedEventLoop.run()
        let written = try writes(channel)
        XCTAssertEqual(written.count, 1, "five requests, one write")
        let frames = RawHTTP2Frame.parse(written.first ?? [])
        XCTAssertEqual(frames.filter { $0.type == 0x1 }.map(\.streamID), [1, 3, 5, 7, 9], "every request's HEADERS")
        XCTAssertEqual(frames.filter { $0.type == 0x0 }.count, 5, "and its DATA")
        for promise in promises { promise.fail(CancellationError()) }
    }

    /// One timer serves the connection: each request still unanswered at its own deadline
    /// fails then, in the order of the deadlines, not of the requests, and its stream is reset
    /// with CANCEL; the others wait on.
    func testEachRequestTimesOutAtItsOwnDeadlineWhateverOrderItWasSentIn() throws {
        let (channel, handler) = try startedChannel()
        defer { _ = try? channel.finish() }
        try channel.writeInbound(ByteBuffer(bytes: [0, 0, 6, 0x4, 0, 0, 0, 0, 0, 0, 0x3, 0, 0, 0, 100]))
        _ = try writes(channel)

        var failures: [Int: HTTP2ClientError] = [:]
        for (number, milliseconds) in [(1, 300), (2, 100), (3, 200)] {
            let promise = channel.eventLoop.makePromise(of: HTTP2ClientResponse.self)
            promise.futureResult.whenFailure { failures[number] = $0 as? HTTP2ClientError }
            handler.send(request(number), timeout: .milliseconds(Int64(milliseconds)), promise: promise)
        }
        channel.embeddedEventLoop.run()
        _ = try writes(channel)

        func resets() throws -> [UInt32] {
            try writes(channel).flatMap { RawHTTP2Frame.parse($0) }.filter { $0.type == 0x3 }.map(\.streamID)
        }
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(99))
        XCTAssertEqual(failures, [:], "no deadline has passed")
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        XCTAssertEqual(failures, [2: .timedOut(after: .milliseconds(100))])
        XCTAssertEqual(try resets(), [3], "the second request's stream (3) is cancelled")
        XCTAssertEqual(handler.outstandingRequests, 2)

        channel.embeddedEventLoop.advanceTime(by: .milliseconds(100))
        XCTAssertEqual(failures[3], .timedOut(after: .milliseconds(200)))
        XCTAssertEqual(try resets(), [5])
        XCTAssertNil(failures[1])

        channel.embeddedEventLoop.advanceTime(by: .milliseconds(100))
        XCTAssertEqual(failures[1], .timedOut(after: .milliseconds(300)))
        XCTAssertEqual(try resets(), [1])
        XCTAssertEqual(handler.outstandingRequests, 0)
    }

    /// A request sent with less time than those before it (one sent again) is still given up
    /// at its own deadline, not at theirs.
    func testALaterRequestWithLessTimeMovesTheTimerEarlier() throws {
        let (channel, handler) = try startedChannel()
        defer { _ = try? channel.finish() }
        var failed: [Int] = []
        for (number, milliseconds) in [(1, 1000), (2, 50)] {
            let promise = channel.eventLoop.makePromise(of: HTTP2ClientResponse.self)
            promise.futureResult.whenFailure { _ in failed.append(number) }
            handler.send(request(number), timeout: .milliseconds(Int64(milliseconds)), promise: promise)
        }
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(50))
        XCTAssertEqual(failed, [2])
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(949))
        XCTAssertEqual(failed, [2])
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        XCTAssertEqual(failed, [2, 1])
    }
}
