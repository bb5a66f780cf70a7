import MockAPNsTLS
import MockAPNsWire
import NIOCore

/// The client side of HTTP/2 on one connection, as a single channel handler around an
/// nghttp2 client session; it sits after the TLS handler (`OpenSSLHandler` in client mode).
///
/// The session starts when `TLSHandshakeCompleted` arrives with ALPN `h2`; anything else
/// fails every request (``HTTP2ClientError/alpnNotH2(negotiated:)``,
/// ``HTTP2ClientError/tlsHandshakeFailed(reason:)``). Requests come in through
/// ``send(_:timeout:on:completion:)``, on the channel's event loop; those sent before the session
/// starts (even before the handler joins a pipeline) wait for it. nghttp2 holds streams back
/// while the server's MAX_CONCURRENT_STREAMS is reached. Each completion is called once: with
/// the response, or with an ``HTTP2ClientError`` saying why there is none. A request still
/// unanswered at its timeout is given up (its stream reset with CANCEL).
///
/// Completions are called only once nghttp2 has returned, never from inside it, so whoever
/// hears of an answer may send the next request at once.
package final class NGHTTP2ClientHandler: ChannelDuplexHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = Never
    package typealias OutboundIn = Never
    package typealias OutboundOut = ByteBuffer

    private struct Request {
        var request: HTTP2ClientRequest
        var completion: Completion
        var timeout: TimeAmount?
        /// When it is given up: `timeout` after it was sent.
        var deadline: NIODeadline?
    }

    private let handshakeTimeout: TimeAmount?
    private let maximumResponseBodyBytes: Int
    private var context: ChannelHandlerContext?
    private var session: NGHTTP2ClientSession?
    /// Requests waiting for the session to start.
    private var waiting: [Request] = []
    /// Requests on their streams.
    private var streams: [Int32: Request] = [:]
    private var handshakeTimer: Scheduled<Void>?
    private var wasActive = false
    /// Set once the connection can carry nothing more; every later request fails with it.
    private var ended: HTTP2ClientError?
    /// Calls into nghttp2 on the stack: output is not drained from inside one.
    private var sessionCalls = 0
    /// `finish()` was called: no new requests; the connection closes after its last answer.
    private var finishing = false
    /// A flush waits for the end of the event loop's tick (``send(_:timeout:on:completion:)``).
    private var flushScheduled = false
    /// The one timer that gives up requests past their deadline, and when it fires: the
    /// earliest deadline of those outstanding when it was set. One timer per connection, not
    /// one per request: a timer per request cost more than the rest of the hop's bookkeeping
    /// (its insertion into the loop's heap and its cancellation, for an answer that nearly
    /// always comes first).
    private var expiryTimer: (task: Scheduled<Void>, at: NIODeadline)?

    /// - Parameters:
    ///   - handshakeTimeout: How long TLS may take once the connection is up before every
    ///     request fails with ``HTTP2ClientError/handshakeTimedOut(after:)``; `nil` waits.
    ///   - maximumResponseBodyBytes: The longest response body taken; a longer one fails its
    ///     request with ``HTTP2ClientError/responseTooLarge(limit:)``.
    package init(handshakeTimeout: TimeAmount? = nil, maximumResponseBodyBytes: Int = 64 * 1024) {
        self.handshakeTimeout = handshakeTimeout
        self.maximumResponseBodyBytes = maximumResponseBodyBytes
    }

    /// Whether new requests may be sent here: the connection is neither over nor told by the
    /// server to go away (a pool skips it otherwise).
    package var acceptsNewRequests: Bool { ended == nil && session?.goAway == nil && !finishing }

    /// Requests sent and not yet answered, those waiting for the handshake included.
    package var outstandingRequests: Int { waiting.count + streams.count }

    // MARK: Requests

    /// What a request's sender hears: the response, or why there is none.
    package typealias Completion = (Result<HTTP2ClientResponse, HTTP2ClientError>) -> Void

    /// Sends `request` and completes `promise` with its response, or fails it with an
    /// ``HTTP2ClientError`` (see ``send(_:timeout:on:completion:)``).
    package func send(_ request: HTTP2ClientRequest, timeout: TimeAmount? = nil, promise: EventLoopPromise<HTTP2ClientResponse>) {
        send(request, timeout: timeout, on: promise.futureResult.eventLoop) { promise.completeWith($0.mapError { $0 }) }
    }

    /// Sends `request` and calls `completion` once with its response, or with the
    /// ``HTTP2ClientError`` saying why there is none: a call, not a promise, because a relay
    /// sends one request per request it relays, and a promise's future is an object of its own.
    /// Call on the channel's event loop (`loop`). With a `timeout`, a request unanswered by
    /// then fails with ``HTTP2ClientError/timedOut(after:)`` and its stream, if it has one, is
    /// reset with CANCEL.
    package func send(
        _ request: HTTP2ClientRequest, timeout: TimeAmount? = nil, on loop: any EventLoop, completion: @escaping Completion
    ) {
        if let ended { return completion(.failure(ended)) }
        if let goAway = session?.goAway {
            return completion(.failure(.goAwayBeforeProcessing(lastStreamID: goAway.lastStreamID, errorCode: goAway.errorCode)))
        }
        let deadline = timeout.map { loop.now + $0 }
        let entry = Request(request: request, completion: completion, timeout: timeout, deadline: deadline)
        if let deadline { expireNoLaterThan(deadline, on: loop) }
        guard let session else {
            waiting.append(entry)
            return
        }
        submit(entry, on: session)
        flushAtEndOfTick()
    }

    /// Flushes once the event loop is done with what it is running now: the requests sent in
    /// one tick (those one read of a provider brought, relayed) leave in one write, not one
    /// write each.
    private func flushAtEndOfTick() {
        guard !flushScheduled, let context else { return }
        flushScheduled = true
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let handler = handler.value
            handler.flushScheduled = false
            handler.flush()
        }
    }

    /// Takes no more requests and closes the connection (GOAWAY, then TLS close_notify) once
    /// the requests still outstanding are answered or time out.
    package func finish() {
        finishing = true
        closeIfFinished()
    }

    private func closeIfFinished() {
        guard finishing, outstandingRequests == 0, ended == nil else { return }
        if let context {
            context.close(promise: nil)
        } else {
            failAll(.connectionClosed("the connection was closed on this side"))
        }
    }

    /// Fails every request, now and later, with `error` (for instance: the connection could
    /// not be made), and closes the connection if there is one.
    package func fail(_ error: HTTP2ClientError) {
        end(error)
    }

    private func submit(_ entry: Request, on session: NGHTTP2ClientSession) {
        let body = entry.request.body.isEmpty ? nil : ByteBuffer(bytes: entry.request.body)
        guard let streamID = session.submitRequest(headers: entry.request.headers, body: body) else {
            entry.completion(.failure(.notSent(session.lastSubmitFailure ?? "nghttp2 refused it")))
            return
        }
        streams[streamID] = entry
    }

    /// Makes sure the expiry timer fires by `deadline`: sets it when none is set, or sets it
    /// earlier (a request sent again has less time left than those after it).
    private func expireNoLaterThan(_ deadline: NIODeadline, on loop: any EventLoop) {
        if let timer = expiryTimer {
            guard deadline < timer.at else { return }
            timer.task.cancel()
        }
        let handler = NIOLoopBound(self, eventLoop: loop)
        expiryTimer = (loop.scheduleTask(deadline: deadline) { handler.value.expireOverdue(on: loop) }, deadline)
    }

    /// Gives up every request past its deadline (its stream, if it has one, reset with
    /// CANCEL), then sets the timer for the earliest deadline left.
    private func expireOverdue(on loop: any EventLoop) {
        expiryTimer = nil
        let now = loop.now
        var overdue: [Request] = []
        waiting.removeAll { entry in
            guard let deadline = entry.deadline, deadline <= now else { return false }
            overdue.append(entry)
            return true
        }
        let overdueStreams = streams.filter { $0.value.deadline.map { $0 <= now } ?? false }.keys.sorted()
        for streamID in overdueStreams {
            guard let entry = streams.removeValue(forKey: streamID) else { continue }
            session?.cancel(streamID: streamID)
            overdue.append(entry)
        }
        if !overdueStreams.isEmpty { flush() }
        for entry in overdue {
            entry.completion(.failure(.timedOut(after: entry.timeout ?? .zero)))
        }
        var next: NIODeadline?
        for deadline in waiting.lazy.compactMap(\.deadline) where next.map({ deadline < $0 }) ?? true { next = deadline }
        for deadline in streams.values.lazy.compactMap(\.deadline) where next.map({ deadline < $0 }) ?? true { next = deadline }
        if let next, ended == nil { expireNoLaterThan(next, on: loop) }
        closeIfFinished()
    }

    // MARK: Channel events

    package func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive {
            wasActive = true
            startHandshakeTimer(context: context)
        }
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        // A connection that never came up is failed by whoever made it, with the reason (a
        // refused connect, say); a handler taken out of a live one fails what it holds.
        if wasActive { failAll(.connectionClosed("the connection closed before the answer")) }
        session?.close()
        session = nil
        self.context = nil
    }

    package func channelActive(context: ChannelHandlerContext) {
        wasActive = true
        startHandshakeTimer(context: context)
        context.fireChannelActive()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        let detail: String
        if let goAway = session?.goAway {
            detail = "the server closed the connection after its GOAWAY (\(HTTP2ErrorCode.name(of: goAway.errorCode)), "
                + "last stream \(goAway.lastStreamID)) before the answer"
        } else if session == nil {
            detail = "the server closed the connection before HTTP/2 started"
        } else {
            detail = "the server closed the connection before the answer"
        }
        failAll(.connectionClosed(detail))
        session?.close()
        session = nil
        context.fireChannelInactive()
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let completed = event as? TLSHandshakeCompleted {
            handshakeTimer?.cancel()
            handshakeTimer = nil
            if completed.session.negotiatedALPN == "h2" {
                start()
            } else {
                end(.alpnNotH2(negotiated: completed.session.negotiatedALPN))
            }
        } else if let failed = event as? TLSHandshakeFailed {
            // The TLS handler closes the connection itself, after its alert.
            failAll(.tlsHandshakeFailed(reason: failed.reason))
        }
        context.fireUserInboundEventTriggered(event)
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let session, ended == nil else { return }
        sessionCalls += 1
        session.receive(unwrapInboundIn(data))
        sessionCalls -= 1
        // What nghttp2 answers (SETTINGS ACK, WINDOW_UPDATE) goes out, then the answers the
        // read completed are handed over.
        flush()
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if ended == nil {
            if session == nil, let tls = error as? TLSError {
                failAll(.tlsHandshakeFailed(reason: "\(tls)"))
            } else {
                failAll(.connectionClosed("the connection failed: \(error)"))
            }
        }
        context.close(promise: nil)
    }

    package func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode == .all, ended == nil {
            failAll(.connectionClosed("the connection was closed on this side before the answer"))
            // Tell the server this client is leaving before TLS says goodbye.
            if let session {
                session.submitGoAway()
                flush()
            }
        }
        context.close(mode: mode, promise: promise)
    }

    // MARK: Driving the session

    private func startHandshakeTimer(context: ChannelHandlerContext) {
        guard let timeout = handshakeTimeout, handshakeTimer == nil, session == nil, ended == nil else { return }
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        handshakeTimer = context.eventLoop.scheduleTask(in: timeout) {
            let handler = handler.value
            handler.handshakeTimer = nil
            guard handler.session == nil else { return }
            handler.end(.handshakeTimedOut(after: timeout))
        }
    }

    private func start() {
        guard ended == nil, session == nil else { return }
        let session: NGHTTP2ClientSession
        do {
            session = try NGHTTP2ClientSession(maximumResponseBodyBytes: maximumResponseBodyBytes)
        } catch {
            return end(.protocolError("could not start an HTTP/2 session: \(error)"))
        }
        self.session = session
        let waiting = self.waiting
        self.waiting = []
        for entry in waiting {
            submit(entry, on: session)
        }
        flush()  // the preface and SETTINGS, then the requests
    }

    /// Writes what nghttp2 has queued as one buffer, hands over what happened, and ends the
    /// connection once the session is over. Does nothing from inside a call into nghttp2.
    private func flush() {
        guard sessionCalls == 0, let context, let session else { return }
        var output: ByteBuffer?
        sessionCalls += 1
        session.drainOutput { chunk in
            if output == nil { output = context.channel.allocator.buffer(capacity: max(chunk.count, 1024)) }
            output?.writeBytes(chunk)
        }
        sessionCalls -= 1
        if let output { context.writeAndFlush(wrapOutboundOut(output), promise: nil) }
        deliverEvents(of: session)
        // The events' completions may have closed the connection meanwhile.
        guard ended == nil, let session = self.session else { return }
        if let failure = session.failure {
            end(.protocolError(failure))
        } else if session.isFinished {
            let goAway = session.goAway.map { " (GOAWAY \(HTTP2ErrorCode.name(of: $0.errorCode)), last stream \($0.lastStreamID))" } ?? ""
            end(.connectionClosed("the server ended the HTTP/2 session\(goAway)"))
        }
    }

    private func deliverEvents(of session: NGHTTP2ClientSession) {
        for event in session.takeEvents() {
            switch event {
            case .response(let streamID, let response):
                guard let entry = streams.removeValue(forKey: streamID) else { continue }
                entry.completion(.success(response))
            case .streamFailed(let streamID, let error):
                guard let entry = streams.removeValue(forKey: streamID) else { continue }
                entry.completion(.failure(error))
            case .goAway:
                // Its streams above the last one come as failures of their own; the pool
                // sees `acceptsNewRequests` turn false.
                continue
            }
        }
        closeIfFinished()
    }

    /// Fails everything and closes the connection.
    private func end(_ error: HTTP2ClientError) {
        failAll(error)
        context?.close(promise: nil)
    }

    /// Fails every waiting and sent request with the first reason the connection ended for.
    private func failAll(_ error: HTTP2ClientError) {
        if ended == nil { ended = error }
        let reason = ended ?? error
        handshakeTimer?.cancel()
        handshakeTimer = nil
        expiryTimer?.task.cancel()
        expiryTimer = nil
        let waiting = self.waiting
        let streams = self.streams
        self.waiting = []
        self.streams = [:]
        for entry in waiting {
            entry.completion(.failure(reason))
        }
        for (_, entry) in streams.sorted(by: { $0.key < $1.key }) {
            entry.completion(.failure(reason))
        }
    }
}

@available(*, unavailable)
extension NGHTTP2ClientHandler: Sendable {}

/// One request an `NGHTTP2ClientHandler` sends.
package struct HTTP2ClientRequest: Sendable {
    /// `:method`, `:scheme`, `:authority` and `:path`, then the regular fields (pseudo-headers
    /// go out first whatever their place here).
    package var headers: [HTTPHeader]
    /// The body; empty sends the HEADERS frame with END_STREAM.
    package var body: [UInt8]

    /// A request of these fields and body.
    package init(headers: [HTTPHeader], body: [UInt8]) {
        self.headers = headers
        self.body = body
    }
}

/// Why a request sent through `NGHTTP2ClientHandler` got no response.
package enum HTTP2ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The TCP connection could not be made: why.
    case connectFailed(String)
    /// TLS failed (the server's certificate did not verify, an alert): the reason as the TLS
    /// handler reports it, OpenSSL's words included.
    case tlsHandshakeFailed(reason: String)
    /// The connection was made but TLS did not complete in time.
    case handshakeTimedOut(after: TimeAmount)
    /// The server did not choose `h2` through ALPN (what it chose, if anything).
    case alpnNotH2(negotiated: String?)
    /// The server reset the stream with this error code (see `HTTP2ErrorCode`).
    case streamReset(errorCode: UInt32)
    /// The connection, or the stream, ended before a complete answer.
    case connectionClosed(String)
    /// The server's GOAWAY named an earlier stream: it did not process this request, which
    /// may be sent again on another connection.
    case goAwayBeforeProcessing(lastStreamID: Int32, errorCode: UInt32)
    /// nghttp2 did not send the request (no stream IDs left, the session closing): it may be
    /// sent again on another connection.
    case notSent(String)
    /// The server broke HTTP/2: nghttp2's words.
    case protocolError(String)
    /// The response's body was longer than the handler takes.
    case responseTooLarge(limit: Int)
    /// No complete answer within this long.
    case timedOut(after: TimeAmount)

    /// Whether the server is known not to have processed the request, so that sending it
    /// again (on another connection) is safe: a GOAWAY naming an earlier stream, a request
    /// never sent, or RST_STREAM REFUSED_STREAM (RFC 9113, section 8.7).
    package var isRetryable: Bool {
        switch self {
        case .goAwayBeforeProcessing, .notSent: true
        case .streamReset(let code): code == HTTP2ErrorCode.refusedStream
        case .connectFailed, .tlsHandshakeFailed, .handshakeTimedOut, .alpnNotH2, .connectionClosed, .protocolError,
             .responseTooLarge, .timedOut:
            false
        }
    }

    package var description: String {
        switch self {
        case .connectFailed(let why): "could not connect: \(why)"
        case .tlsHandshakeFailed(let reason): "the TLS handshake failed: \(reason)"
        case .handshakeTimedOut(let limit):
            "the connection was made, but no TLS handshake completed within \(Self.duration(limit))"
        case .alpnNotH2(let negotiated):
            "the server did not choose HTTP/2 (h2) through ALPN; it chose \(negotiated.map { "\"\($0)\"" } ?? "no protocol")"
        case .streamReset(let code):
            "the server reset the stream: RST_STREAM \(HTTP2ErrorCode.name(of: code)) (\(code))"
        case .connectionClosed(let why): why
        case .goAwayBeforeProcessing(let last, let code):
            "the server's GOAWAY (\(HTTP2ErrorCode.name(of: code)), last stream \(last)) left the request unprocessed"
        case .notSent(let why): "the request was not sent: \(why)"
        case .protocolError(let why): "HTTP/2 protocol error: \(why)"
        case .responseTooLarge(let limit): "the answer's body is longer than the \(limit) bytes taken"
        case .timedOut(let limit): "no complete answer within \(Self.duration(limit))"
        }
    }

    /// `300 ms`, `5 s`, `1.5 s`: a duration as the descriptions say it.
    package static func duration(_ amount: TimeAmount) -> String {
        let nanoseconds = amount.nanoseconds
        if nanoseconds % 1_000_000_000 == 0 { return "\(nanoseconds / 1_000_000_000) s" }
        if nanoseconds < 1_000_000_000 { return "\(nanoseconds / 1_000_000) ms" }
        return "\(Double(nanoseconds / 1_000_000) / 1000) s"
    }
}
