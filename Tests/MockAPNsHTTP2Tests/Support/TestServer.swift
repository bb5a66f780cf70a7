import MockAPNsWire
import MockAPNsHTTP2
import NIOCore
import NIOPosix
import Synchronization

/// What the server side saw, shared between the event loop and the test.
final class EventLog: Sendable {
    private struct State {
        var requests: [HTTP2Request] = []
        var frames: [HTTP2FrameRecord] = []
        var errors: [HTTP2ConnectionError] = []
        var streamErrors: [HTTP2StreamError] = []
        var closedStreams: [(streamID: Int32, errorCode: UInt32)] = []
        var refusals: [HTTP2RequestRefusal] = []
    }

    private let state = Mutex(State())

    var requests: [HTTP2Request] { state.withLock { $0.requests } }
    var frames: [HTTP2FrameRecord] { state.withLock { $0.frames } }
    var errors: [HTTP2ConnectionError] { state.withLock { $0.errors } }
    var streamErrors: [HTTP2StreamError] { state.withLock { $0.streamErrors } }
    var closedStreams: [(streamID: Int32, errorCode: UInt32)] { state.withLock { $0.closedStreams } }
    var refusals: [HTTP2RequestRefusal] { state.withLock { $0.refusals } }

    func append(_ request: HTTP2Request) { state.withLock { $0.requests.append(request) } }
    func append(_ frame: HTTP2FrameRecord) { state.withLock { $0.frames.append(frame) } }
    func append(_ error: HTTP2ConnectionError) { state.withLock { $0.errors.append(error) } }
    func append(_ error: HTTP2StreamError) { state.withLock { $0.streamErrors.append(error) } }
    func append(_ refusal: HTTP2RequestRefusal) { state.withLock { $0.refusals.append(refusal) } }
    func appendClosed(_ streamID: Int32, _ errorCode: UInt32) {
        state.withLock { $0.closedStreams.append((streamID, errorCode)) }
    }
}

/// How the test server answers a request; runs on the connection's event loop.
typealias Responder = @Sendable (NGHTTP2ServerHandler, HTTP2Request, any Channel) -> Void

/// A delegate that logs everything and lets the test decide the answer.
final class TestDelegate: NGHTTP2ServerDelegate {
    let log: EventLog
    let channel: any Channel
    let responder: Responder

    init(log: EventLog, channel: any Channel, responder: @escaping Responder) {
        self.log = log
        self.channel = channel
        self.responder = responder
    }

    func http2Handler(_ handler: NGHTTP2ServerHandler, didReceive request: HTTP2Request) {
        log.append(request)
        responder(handler, request, channel)
    }

    func http2Handler(_ handler: NGHTTP2ServerHandler, didRecord frame: HTTP2FrameRecord) {
        log.append(frame)
    }

    func http2Handler(_ handler: NGHTTP2ServerHandler, connectionError: HTTP2ConnectionError) {
        log.append(connectionError)
    }

    func http2Handler(_ handler: NGHTTP2ServerHandler, streamError: HTTP2StreamError) {
        log.append(streamError)
    }

    func http2Handler(_ handler: NGHTTP2ServerHandler, didCloseStream streamID: Int32, errorCode: UInt32) {
        log.appendClosed(streamID, errorCode)
    }

    func http2Handler(_ handler: NGHTTP2ServerHandler, didRefuse refusal: HTTP2RequestRefusal) {
        log.append(refusal)
    }
}

/// Answers 200 with an `apns-id` header and no body.
let answerOK: Responder = { handler, request, _ in
    handler.respond(streamID: request.streamID, status: 200, headers: [HTTPHeader(name: "apns-id", value: "A-1")], body: nil)
}

/// A cleartext HTTP/2 (prior knowledge) server on 127.0.0.1 with an ephemeral port, whose
/// pipeline is just the handler under test.
final class TestServer {
    let group: MultiThreadedEventLoopGroup
    let channel: any Channel
    let log = EventLog()
    var port: Int { channel.localAddress?.port ?? 0 }

    init(
        configuration: HTTP2ServerConfiguration = .init(recordsFrames: true),
        receiveBufferSize: Int? = nil,
        responder: @escaping Responder = answerOK
    ) throws {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let log = self.log
        channel = try ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(
                .recvAllocator,
                value: receiveBufferSize.map { AdaptiveRecvByteBufferAllocator(minimum: $0, initial: $0, maximum: $0) }
                    ?? AdaptiveRecvByteBufferAllocator()
            )
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let delegate = TestDelegate(log: log, channel: channel, responder: responder)
                    try channel.pipeline.syncOperations.addHandler(
                        NGHTTP2ServerHandler(configuration: configuration, delegate: delegate)
                    )
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .wait()
    }

    func stop() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }
}

extension HTTP2ServerConfiguration {
    /// The GOAWAY debug data the tests expect, passed in as a server passes its own.
    static let testGoAwayDebugData = GoAwayDebugData(
        shutdown: Array(#"{"reason":"Shutdown"}"#.utf8), idleTimeout: Array(#"{"reason":"IdleTimeout"}"#.utf8)
    )

    /// This configuration with `testGoAwayDebugData`.
    var withTestGoAwayDebugData: HTTP2ServerConfiguration {
        var copy = self
        copy.goAwayDebugData = Self.testGoAwayDebugData
        return copy
    }
}
