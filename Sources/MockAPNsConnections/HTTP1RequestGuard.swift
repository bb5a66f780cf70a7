import Logging
import MockAPNsCore
import MockAPNsJournal
import NIOCore
import NIOHTTP1

/// Bounds each request of an HTTP/1.1 connection in time and size, around NIO's decoder:
///
/// - **idle**: between requests (from the handshake, or from the end of an answer), the next
///   request's first byte must come within `idleTimeout`; else the connection is closed
///   without an answer (RFC 9112, section 9.5), as a keep-alive connection may be;
/// - **header**: from a request's first byte, its request line and header block must be
///   complete within `headerTimeout`, however they trickle in (a byte a second does not move
///   the deadline); else `408 Request Timeout` and the connection closed;
/// - **body**: from the end of the header block, the body must be complete within
///   `bodyTimeout` (a body shorter than its `Content-Length` is answered, not waited for);
///   else 408 and closed;
/// - **size**: a body declared larger than `bodyLimit` (its `Content-Length`, or the chunk sizes
///   of a chunked body as each size line is read) is refused before its bytes come: nothing
///   more is read, the request ends there, and the application answers it (`bodyRefusal`,
///   413) with `Connection: close`.
///
/// While the server owes an answer (a scenario's delay, a pipelined request behind it) no
/// deadline runs: the wait is the server's, not the client's. Every deadline that passes is
/// logged and journaled as a `diagnosis`.
///
/// Two handlers share the guard (`installServerPipeline` puts them in): `InboundBytes`, before
/// NIO's decoder, sees when a request starts and hands the decoder one message at a time (so the
/// bytes after a header block are known to be its body); `Messages`, after the decoder, sees
/// each request's head and end and each answer's end, and writes what the guard answers.
package final class HTTP1RequestGuard {
    package struct Limits: Sendable {
        package var headerTimeout: TimeAmount
        package var bodyTimeout: TimeAmount
        package var idleTimeout: TimeAmount
        /// The most body bytes a request may declare.
        package var bodyLimit: Int

        /// The timeouts in seconds, as the configuration gives them.
        package init(headerSeconds: Double, bodySeconds: Double, idleSeconds: Double, bodyLimit: Int) {
            headerTimeout = ConnectionTimeouts.amount(headerSeconds)
            bodyTimeout = ConnectionTimeouts.amount(bodySeconds)
            idleTimeout = ConnectionTimeouts.amount(idleSeconds)
            self.bodyLimit = bodyLimit
        }
    }

    /// A request whose body was refused for its declared size: the `requestIndex`-th request of
    /// the connection (counting from 1), the size it declared (at least), and how.
    package struct BodyRefusal: Sendable, Equatable {
        package var requestIndex: Int
        package var declaredBytes: Int
        package var declaredBy: String
        package var limit: Int

        /// What was refused and why, for the journal.
        package var explanation: String {
            "The body declared \(declaredBytes) bytes or more by \(declaredBy); the push service takes at most \(limit). "
                + "Refused before it was read, and the connection closed."
        }
    }

    /// Where the connection is in its current request.
    private enum Phase {
        /// No byte of the next request yet.
        case betweenRequests
        /// Some bytes of a request, not yet its whole header block.
        case header
        /// The header block came; the body is due.
        case body
        /// The connection is done with requests (a refusal, a deadline): nothing more is read.
        case finished
    }

    /// How the bytes after a header block are delimited, as the decoded head says.
    private enum Framing {
        case noBody
        case length(remaining: Int)
        case chunked(ChunkedBodyScanner)
    }

    /// How far `bytes` has split the incoming bytes into messages.
    private enum Split {
        /// Looking for the empty line that ends a header block.
        case header(lineIsEmpty: Bool, sawLine: Bool)
        case body(Framing)
        /// A message the split does not follow (an upgrade, a mistake NIO's parser will name):
        /// bytes pass unsplit, and only the deadlines apply.
        case unsplit
    }

    private let limits: Limits
    private let listener: String
    private let recorder: ConnectionJournal
    private let logger: Logger
    private var phase = Phase.betweenRequests
    private var split = Split.header(lineIsEmpty: true, sawLine: false)
    /// Requests read whole whose answer has not ended.
    private var answersOwed = 0
    /// Requests whose head came, counting from 1.
    private var requestsSeen = 0
    /// Set by `messages` when a head arrives, for `bytes` to pick up after handing the decoder
    /// a header block.
    private var decodedFraming: Framing?
    private var deadline: Scheduled<Void>?
    /// Where `Messages` is: the guard's answers and refusals go out, and its deadlines close,
    /// from there. Set while it is in the pipeline.
    private var messagesContext: ChannelHandlerContext?
    /// The body refused for its size, if one was.
    package private(set) var bodyRefusal: BodyRefusal?

    package init(limits: Limits, listener: String, recorder: ConnectionJournal, logger: Logger) {
        self.limits = limits
        self.listener = listener
        self.recorder = recorder
        self.logger = logger
    }

    /// Adds an HTTP/1.1 server after `handler` (the last one so far), in this order: the
    /// guard's `InboundBytes`, NIO's encoder and decoder, the guard's `Messages`, NIO's
    /// pipelining helper (one answer at a time, in order), NIO's check of outbound headers, the
    /// low-level 400 (`HTTP1ProtocolErrorHandler`, journaled as `malformed`), and the listener's
    /// `application` handler.
    package func installServerPipeline(
        after handler: any ChannelHandler, application: any ChannelHandler, malformed: DiagnosisCode,
        on operations: ChannelPipeline.SynchronousOperations
    ) throws {
        let refusals = HTTP1ProtocolErrorHandler { [recorder, listener] problem in
            recorder.record(.diagnosis(code: malformed, message: "\(listener) request refused with 400, connection closed: \(problem)"))
        }
        try operations.addHandler(application, position: .after(handler))
        try operations.configureHTTPServerPipeline(position: .after(handler), withPipeliningAssistance: true, withErrorHandling: false)
        try operations.addHandler(refusals, position: .before(application))
        try operations.addHandler(InboundBytes(owner: self), position: .after(handler))
        let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
        try operations.addHandler(Messages(owner: self), position: .after(decoder))
    }

    // MARK: Bytes before the decoder

    /// Hands `buffer` to the decoder, one message's bytes at a time.
    fileprivate func bytesArrived(_ buffer: ByteBuffer, context: ChannelHandlerContext) {
        if case .finished = phase { return }
        if case .betweenRequests = phase {
            phase = .header
            armIfNothingOwed(context: context)
        }
        var rest = buffer
        while rest.readableBytes > 0 {
            if case .finished = phase { return }
            switch split {
            case .unsplit:
                context.fireChannelRead(NIOAny(rest))
                return
            case .header(var lineIsEmpty, var sawLine):
                // The header block ends at the first empty line after a non-empty one (empty
                // lines before a request line are skipped, as NIO's parser skips them).
                var end: Int?
                for (offset, byte) in rest.readableBytesView.enumerated() {
                    if byte == UInt8(ascii: "\n") {
                        if lineIsEmpty, sawLine { end = offset + 1; break }
                        lineIsEmpty = true
                    } else if byte != UInt8(ascii: "\r") {
                        lineIsEmpty = false
                        sawLine = true
                    }
                }
                guard let end, let block = rest.readSlice(length: end) else {
                    split = .header(lineIsEmpty: lineIsEmpty, sawLine: sawLine)
                    context.fireChannelRead(NIOAny(rest))
                    return
                }
                decodedFraming = nil
                context.fireChannelRead(NIOAny(block))
                if let framing = decodedFraming {
                    split = .body(framing)
                    decodedFraming = nil
                } else {
                    // The decoder saw no head end where the empty line is: it judges the rest.
                    split = .unsplit
                }
            case .body(.noBody):
                split = .header(lineIsEmpty: true, sawLine: false)
                if rest.readableBytes > 0, case .betweenRequests = phase {
                    phase = .header
                    armIfNothingOwed(context: context)
                }
            case .body(.length(let remaining)):
                let count = min(remaining, rest.readableBytes)
                guard let part = rest.readSlice(length: count) else { return }
                context.fireChannelRead(NIOAny(part))
                split = count == remaining ? .body(.noBody) : .body(.length(remaining: remaining - count))
            case .body(.chunked(var scanner)):
                switch scanner.scan(rest.readableBytesView) {
                case .needsMore:
                    split = .body(.chunked(scanner))
                    context.fireChannelRead(NIOAny(rest))
                    return
                case .ended(let consumed):
                    guard let part = rest.readSlice(length: consumed) else { return }
                    split = .body(.noBody)
                    context.fireChannelRead(NIOAny(part))
                case .tooLarge(let declared):
                    refuseBody(declared: declared, by: "its chunk sizes")
                    return
                case .untracked:
                    split = .unsplit
                }
            }
        }
    }

    // MARK: Messages after the decoder

    fileprivate func headArrived(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        requestsSeen += 1
        phase = .body
        let framing: Framing
        if head.headers[canonicalForm: "transfer-encoding"].contains(where: { $0.lowercased() == "chunked" }) {
            framing = .chunked(ChunkedBodyScanner(limit: limits.bodyLimit))
        } else if let text = head.headers.first(name: "content-length") {
            // NIO's parser has checked it is one number; one too large for an Int is over any limit.
            let length = Int(text) ?? .max
            if length > limits.bodyLimit {
                decodedFraming = .noBody
                return refuseBody(declared: length, by: "its Content-Length")
            }
            framing = length == 0 ? .noBody : .length(remaining: length)
        } else {
            framing = .noBody
        }
        decodedFraming = framing
        armIfNothingOwed(context: context)
    }

    fileprivate func requestEnded(context: ChannelHandlerContext) {
        if case .finished = phase { return }
        phase = .betweenRequests
        answersOwed += 1
        disarm()
    }

    fileprivate func answerEnded(context: ChannelHandlerContext) {
        answersOwed = max(0, answersOwed - 1)
        armIfNothingOwed(context: context)
    }

    fileprivate func messagesAdded(context: ChannelHandlerContext) {
        messagesContext = context
        // The connection is between requests from the start (the handshake is done).
        if context.channel.isActive { armIfNothingOwed(context: context) }
    }

    fileprivate func connectionEnded() {
        phase = .finished
        messagesContext = nil
        disarm()
    }

    /// A body declared over the limit: the request ends here for the application, which answers
    /// it (413, closing); nothing more is read.
    private func refuseBody(declared: Int, by declaredBy: String) {
        bodyRefusal = BodyRefusal(requestIndex: requestsSeen, declaredBytes: declared, declaredBy: declaredBy, limit: limits.bodyLimit)
        phase = .finished
        disarm()
        messagesContext?.fireChannelRead(NIOAny(HTTPServerRequestPart.end(nil)))
    }

    // MARK: Deadlines

    private func armIfNothingOwed(context: ChannelHandlerContext) {
        guard answersOwed == 0 else { return disarm() }
        let timeout: TimeAmount
        switch phase {
        case .betweenRequests: timeout = limits.idleTimeout
        case .header: timeout = limits.headerTimeout
        case .body: timeout = limits.bodyTimeout
        case .finished: return disarm()
        }
        disarm()
        // The deadline answers and closes from `Messages`, below NIO's pipelining helper.
        guard let messagesContext else { return }
        let phaseArmed = phase
        let bound = NIOLoopBound((owner: self, context: messagesContext), eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: timeout) {
            bound.value.owner.deadlinePassed(phaseArmed, after: timeout, context: bound.value.context)
        }
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
    }

    private func deadlinePassed(_ armed: Phase, after timeout: TimeAmount, context: ChannelHandlerContext) {
        deadline = nil
        let code: DiagnosisCode
        let missing: String
        let answers: Bool
        switch armed {
        case .betweenRequests:
            code = .timeoutHTTP1Idle
            missing = "no request"
            answers = false
        case .header:
            code = .timeoutHTTP1RequestHeader
            missing = "no complete request line and header block"
            answers = true
        case .body:
            code = .timeoutHTTP1RequestBody
            missing = "no complete request body"
            answers = true
        case .finished:
            return
        }
        phase = .finished
        let peer = context.remoteAddress.map { "\($0)" } ?? "unknown peer"
        let message = "\(listener) connection from \(peer) closed\(answers ? " with 408" : ""): \(missing) within \(ConnectionTimeouts.describe(timeout))"
        logger.notice("\(message)")
        recorder.record(.diagnosis(code: code, message: message))
        if answers {
            HTTP1Answer.write(status: .requestTimeout, closing: true, context: context)
        } else {
            context.close(promise: nil)
        }
    }
}

@available(*, unavailable)
extension HTTP1RequestGuard: Sendable {}

extension HTTP1RequestGuard {
    /// The guard's handler before NIO's decoder: raw bytes in, one message's bytes at a time out.
    package final class InboundBytes: ChannelInboundHandler, RemovableChannelHandler {
        package typealias InboundIn = ByteBuffer
        package typealias InboundOut = ByteBuffer

        private let owner: HTTP1RequestGuard

        fileprivate init(owner: HTTP1RequestGuard) {
            self.owner = owner
        }

        package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            owner.bytesArrived(unwrapInboundIn(data), context: context)
        }
    }

    /// The guard's handler after NIO's decoder: each request's head and end, each answer's end.
    package final class Messages: ChannelDuplexHandler, RemovableChannelHandler {
        package typealias InboundIn = HTTPServerRequestPart
        package typealias InboundOut = HTTPServerRequestPart
        package typealias OutboundIn = HTTPServerResponsePart
        package typealias OutboundOut = HTTPServerResponsePart

        private let owner: HTTP1RequestGuard

        fileprivate init(owner: HTTP1RequestGuard) {
            self.owner = owner
        }

        package func handlerAdded(context: ChannelHandlerContext) {
            owner.messagesAdded(context: context)
        }

        package func handlerRemoved(context: ChannelHandlerContext) {
            owner.connectionEnded()
        }

        package func channelInactive(context: ChannelHandlerContext) {
            owner.connectionEnded()
            context.fireChannelInactive()
        }

        package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            // After a refused body the request has ended (the guard said so): whatever NIO's
            // parser still makes of the bytes it had is not passed on.
            guard owner.bodyRefusal == nil else { return }
            switch unwrapInboundIn(data) {
            case .head(let head):
                context.fireChannelRead(data)
                owner.headArrived(head, context: context)
            case .body:
                context.fireChannelRead(data)
            case .end:
                owner.requestEnded(context: context)
                context.fireChannelRead(data)
            }
        }

        package func errorCaught(context: ChannelHandlerContext, error: any Error) {
            // NIO's parser gave up on the connection: the protocol error handler answers and
            // closes; no deadline may write after it.
            if error is HTTPParserError || error is ByteToMessageDecoderError { owner.connectionEnded() }
            context.fireErrorCaught(error)
        }

        package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            let isEnd: Bool
            if case .end = unwrapOutboundIn(data) { isEnd = true } else { isEnd = false }
            context.write(data, promise: promise)
            if isEnd { owner.answerEnded(context: context) }
        }
    }
}
