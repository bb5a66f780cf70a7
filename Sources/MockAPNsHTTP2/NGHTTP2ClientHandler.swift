import MockAPNsTLS
import MockAPNsWire
import NIOCore

/// The client side of HTTP/2 on one connection, as a single channel handler around an
/// nghttp2 client session; it sits after the TLS handler (`OpenSSLHandler` in client mode).
///
/// The session starts once TLS completes with ALPN `h2`. Requests come in through
/// ``send(_:timeout:promise:)`` (on the channel's event loop; those sent before the handshake
/// finishes wait for it) and each promise is completed once: with the response, or with an
/// ``HTTP2ClientError`` saying why there is none. Output is written and flushed after each
/// read and each request. A request still unanswered at its deadline is reset (CANCEL) and
/// fails with ``HTTP2ClientError/timedOut(_:)``.
package final class NGHTTP2ClientHandler: ChannelInboundHandler, NGHTTP2ClientSessionListener {
    package typealias InboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    private struct Waiting {
        var id: Int
        var request: HTTP2ClientRequest
        var promise: EventLoopPromise<HTTP2ClientResponse>
        var timeout: TimeAmount
        var deadline: Scheduled<Void>?
    }

    private struct Pending {
        var promise: EventLoopPromise<HTTP2ClientResponse>
        var deadline: Scheduled<Void>?
    }

    private let handshakeTimeout: TimeAmount
    private var context: ChannelHandlerContext?
    private var session: NGHTTP2ClientSession?
    private var waiting: [Waiting] = []
    private var nextWaitingID = 0
    private var pending: [Int32: Pending] = [:]
    private var handshakeDeadline: Scheduled<Void>?
    private var goAwayReceived = false
    /// Set once the connection can carry nothing more; every later request fails with it.
    private var failure: HTTP2ClientError?

    /// - Parameter handshakeTimeout: how long TLS may take once connected before every
    ///   request fails with ``HTTP2ClientError/handshakeTimedOut(_:)``.
    package init(handshakeTimeout: TimeAmount) {
        self.handshakeTimeout = handshakeTimeout
    }

    /// Whether new requests may be sent here: not failed, not closed, no GOAWAY received.
    package var isUsable: Bool { failure == nil && !goAwayReceived }

    /// Requests sent and not yet answered (waiting for the handshake included).
    package var outstanding: Int { waiting.count + pending.count }

    // MARK: Requests

    /// Sends `request` and completes `promise` with its response, or fails it. Call on the
    /// channel's event loop (a handler not yet in a pipeline takes requests too, and sends
    /// them once the connection is ready).
    package func send(_ request: HTTP2ClientRequest, timeout: TimeAmount, promise: EventLoopPromise<HTTP2ClientResponse>) {
        if let failure { return promise.fail(failure) }
        guard let session else {
            nextWaitingID += 1
            let id = nextWaitingID
            let bound = NIOLoopBound(self, eventLoop: promise.futureResult.eventLoop)
            let deadline = promise.futureResult.eventLoop.scheduleTask(in: timeout) { bound.value.expireWaiting(id) }
            waiting.append(Waiting(id: id, request: request, promise: promise, timeout: timeout, deadline: deadline))
            return
        }
        submit(request, timeout: timeout, promise: promise, on: session)
        flush()
    }

    /// Fails every request, now and later, with `error` (the connection could not be made).
    package func fail(_ error: HTTP2ClientError) {
        guard failure == nil else { return }
        failure = error
        handshakeDeadline?.cancel()
        let waiting = self.waiting
        let pending = self.pending
        self.waiting = []
        self.pending = [:]
        for entry in waiting {
            entry.deadline?.cancel()
            entry.promise.fail(error)
        }
        for (_, entry) in pending.sorted(by: { $0.key < $1.key }) {
            entry.deadline?.cancel()
            entry.promise.fail(error)
        }
    }

    /// Says goodbye (GOAWAY NO_ERROR) and closes the connection; what is still unanswered
    /// fails with `reason`.
    package func close(reason: String) {
        session?.submitGoAway()
        flush()
        fail(.closed(reason))
        context?.close(promise: nil)
    }

    private func submit(
        _ request: HTTP2ClientRequest, timeout: TimeAmount, promise: EventLoopPromise<HTTP2ClientResponse>, on session: NGHTTP2ClientSession
    ) {
        let body = request.body.isEmpty ? nil : ByteBuffer(bytes: request.body)
        guard let streamID = session.submitRequest(headers: request.headers, body: body) else {
            return promise.fail(HTTP2ClientError.refused("the connection takes no more streams"))
        }
        let bound = NIOLoopBound(self, eventLoop: promise.futureResult.eventLoop)
        let deadline = promise.futureResult.eventLoop.scheduleTask(in: timeout) { bound.value.expire(streamID, after: timeout) }
        pending[streamID] = Pending(promise: promise, deadline: deadline)
    }

    private func expireWaiting(_ id: Int) {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
        let entry = waiting.remove(at: index)
        entry.promise.fail(HTTP2ClientError.timedOut(entry.timeout))
    }

    private func expire(_ streamID: Int32, after timeout: TimeAmount) {
        guard let entry = pending.removeValue(forKey: streamID) else { return }
        entry.promise.fail(HTTP2ClientError.timedOut(timeout))
        session?.submitReset(streamID: streamID, errorCode: HTTP2ErrorCode.cancel)
        flush()
    }

    // MARK: Channel events

    package func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { startHandshakeDeadline(context) }
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        fail(.closed("the connection closed before the answer"))
        self.context = nil
        session?.close()
        session = nil
    }

    package func channelActive(context: ChannelHandlerContext) {
        startHandshakeDeadline(context)
        context.fireChannelActive()
    }

    private func startHandshakeDeadline(_ context: ChannelHandlerContext) {
        guard handshakeDeadline == nil, session == nil else { return }
        let timeout = handshakeTimeout
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        handshakeDeadline = context.eventLoop.scheduleTask(in: timeout) {
            let handler = bound.value
            guard handler.session == nil else { return }
            handler.fail(.handshakeTimedOut(timeout))
            handler.context?.close(promise: nil)
        }
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let completed as TLSHandshakeCompleted:
            handshakeDeadline?.cancel()
            guard completed.session.negotiatedALPN == "h2" else {
                fail(.notHTTP2(negotiated: completed.session.negotiatedALPN))
                context.close(promise: nil)
                return
            }
            start(context: context)
        case let failed as TLSHandshakeFailed:
            fail(.handshakeFailed(failed.reason))
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func start(context: ChannelHandlerContext) {
        guard failure == nil else { return }
        do {
            let session = try NGHTTP2ClientSession(listener: self)
            self.session = session
            let waiting = self.waiting
            self.waiting = []
            for entry in waiting {
                entry.deadline?.cancel()
                submit(entry.request, timeout: entry.timeout, promise: entry.promise, on: session)
            }
            flush()
        } catch {
            fail(.protocolError("could not start HTTP/2: \(error)"))
            context.close(promise: nil)
        }
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let session else { return }
        if let broken = session.receive(unwrapInboundIn(data)) {
            flush()
            fail(.protocolError(broken))
            context.close(promise: nil)
            return
        }
        flush()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        fail(.closed("the connection closed before the answer"))
        context.fireChannelInactive()
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A handshake failure has already been reported by its event, with its reason.
        if session != nil || !(error is TLSError) {
            fail(.protocolError("\(error)"))
        }
        context.close(promise: nil)
    }

    /// Writes whatever nghttp2 has queued, in one buffer; closes once the session is over.
    private func flush() {
        guard let context, let session else { return }
        var buffer: ByteBuffer?
        session.drainOutput { bytes in
            if buffer == nil { buffer = context.channel.allocator.buffer(capacity: max(bytes.count, 1024)) }
            buffer?.writeBytes(bytes)
        }
        if let buffer { context.writeAndFlush(wrapOutboundOut(buffer), promise: nil) }
        if let broken = session.failure {
            fail(.protocolError(broken))
            context.close(promise: nil)
        } else if !session.isAlive {
            fail(.closed("the server ended the HTTP/2 session"))
            context.close(promise: nil)
        }
    }

    // MARK: NGHTTP2ClientSessionListener

    func session(didClose streamID: Int32, response: HTTP2ClientResponse?, errorCode: UInt32) {
        guard let entry = pending.removeValue(forKey: streamID) else { return }
        entry.deadline?.cancel()
        if let response {
            entry.promise.succeed(response)
        } else if errorCode == HTTP2ErrorCode.refusedStream {
            entry.promise.fail(HTTP2ClientError.refused("the server refused the stream (REFUSED_STREAM, or above its GOAWAY's last stream)"))
        } else if errorCode == HTTP2ErrorCode.noError {
            entry.promise.fail(HTTP2ClientError.closed("the stream ended without a complete answer"))
        } else {
            entry.promise.fail(HTTP2ClientError.reset(errorCode: errorCode))
        }
    }

    func session(didReceiveGoAway lastStreamID: Int32, errorCode: UInt32) {
        goAwayReceived = true
    }
}

@available(*, unavailable)
extension NGHTTP2ClientHandler: Sendable {}

/// One request an `NGHTTP2ClientHandler` sends.
package struct HTTP2ClientRequest: Sendable {
    /// The pseudo-headers (`:method`, `:scheme`, `:authority`, `:path`) first, then the rest.
    package var headers: [HTTPHeader]
    package var body: [UInt8]

    package init(headers: [HTTPHeader], body: [UInt8]) {
        self.headers = headers
        self.body = body
    }
}

/// Why a request sent through `NGHTTP2ClientHandler` got no response.
package enum HTTP2ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The TCP connection could not be made.
    case connectFailed(String)
    /// TLS failed (the server's certificate did not verify, a protocol mismatch): OpenSSL's reason.
    case handshakeFailed(String)
    /// TLS did not finish in time.
    case handshakeTimedOut(TimeAmount)
    /// The server did not choose `h2` through ALPN.
    case notHTTP2(negotiated: String?)
    /// The server did not process the request (REFUSED_STREAM, a GOAWAY naming an earlier
    /// stream, no streams left): it may be sent again on another connection.
    case refused(String)
    /// The server reset the stream with this error code.
    case reset(errorCode: UInt32)
    /// The connection or the stream ended before a complete answer.
    case closed(String)
    /// The server broke HTTP/2.
    case protocolError(String)
    /// No complete answer in time; the stream was reset with CANCEL.
    case timedOut(TimeAmount)

    /// Whether the request is known not to have been processed, so sending it again is safe.
    package var isRetryable: Bool {
        switch self {
        case .refused: true
        case .connectFailed, .handshakeFailed, .handshakeTimedOut, .notHTTP2, .reset, .closed, .protocolError, .timedOut: false
        }
    }

    package var description: String {
        switch self {
        case .connectFailed(let why): "could not connect: \(why)"
        case .handshakeFailed(let why): "TLS handshake failed: \(why)"
        case .handshakeTimedOut(let limit): "no TLS handshake within \(Self.seconds(limit))"
        case .notHTTP2(let negotiated):
            "the server did not agree to HTTP/2 through ALPN (it chose \(negotiated.map { "\"\($0)\"" } ?? "nothing"))"
        case .refused(let why): why
        case .reset(let code): "the server reset the stream (\(HTTP2ErrorCode.name(of: code)))"
        case .closed(let why): why
        case .protocolError(let why): why
        case .timedOut(let limit): "no complete answer within \(Self.seconds(limit)); the stream was cancelled"
        }
    }

    private static func seconds(_ amount: TimeAmount) -> String {
        let milliseconds = amount.nanoseconds / 1_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(Double(milliseconds) / 1000) s"
    }
}
