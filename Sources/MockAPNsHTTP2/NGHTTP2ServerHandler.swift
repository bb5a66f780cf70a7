import MockAPNsWire
import NIOCore

/// The server side of HTTP/2 on one connection, as a single channel handler around an
/// nghttp2 session.
///
/// Plaintext bytes come in (after TLS, or straight from the socket for cleartext HTTP/2
/// with prior knowledge); each `channelRead` is one `nghttp2_session_mem_recv` call.
/// Everything nghttp2 wants to send in answer is gathered into one buffer per read batch
/// and written and flushed once, in `channelReadComplete` (in batches of at most 64 KiB,
/// and only while the channel is writable: a client that stops reading leaves the frames
/// inside nghttp2 until it reads again). Complete requests go to the
/// ``NGHTTP2ServerDelegate``; answers come back through ``respond(streamID:status:headers:body:)``
/// and the other methods here, which must be called on the channel's event loop. Called from
/// inside a delegate callback, their frames join the current batch; called later (a delayed
/// response), the handler flushes by itself.
///
/// The connection closes by itself after a GOAWAY that ends it: a protocol error by the
/// client, ``sendGoAway(errorCode:lastStreamID:debugData:closeAfter:)`` with `closeAfter`,
/// the idle timeout, or a graceful shutdown once its last stream is done.
///
/// Its stored properties skip run-time exclusivity checks, as `NGHTTP2Session`'s do: it is
/// used only on its channel's event loop.
package final class NGHTTP2ServerHandler: ChannelDuplexHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = Never
    package typealias OutboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer


    /// The SETTINGS announced at the start and the limits kept.
    package let configuration: HTTP2ServerConfiguration
    @exclusivity(unchecked) private var delegate: (any NGHTTP2ServerDelegate)?
    @exclusivity(unchecked) private var context: ChannelHandlerContext?
    @exclusivity(unchecked) private var session: NGHTTP2Session?

    /// Between `channelRead` and `channelReadComplete` output waits for the batch to end.
    @exclusivity(unchecked) private var readBatchOpen = false
    /// How many calls into nghttp2 are on the stack. nghttp2 must not be re-entered
    /// (a delegate answering from a callback) nor deleted under its own feet.
    @exclusivity(unchecked) private var sessionCallDepth = 0
    @exclusivity(unchecked) private var tearDownPending = false
    @exclusivity(unchecked) private var started = false

    /// Close once the current output is written (a GOAWAY that ends the connection).
    @exclusivity(unchecked) private var closeAfterFlush = false
    /// A GOAWAY was sent with `closeAfter: false`: stay open even when nghttp2 is done.
    @exclusivity(unchecked) private var keepOpenAfterGoAway = false
    @exclusivity(unchecked) private var shutdownStarted = false
    /// GOAWAY frames wait for the end of the read batch, so that "the last stream handed to
    /// the delegate" covers every request of the batch, including those that arrived in the
    /// same read after the one whose handling asked for the GOAWAY.
    @exclusivity(unchecked) private var pendingGoAways: [PendingGoAway] = []
    @exclusivity(unchecked) private var closing = false
    /// A cut asked for by `cutOutput`, applied to the next batch; outbound frame records wait
    /// meanwhile, so only the frames that go out whole are reported as sent.
    @exclusivity(unchecked) private var pendingCut: (cutter: HTTP2OutputCutter, report: (HTTP2OutputCut) -> Void)?
    @exclusivity(unchecked) private var recordsAwaitingCut: [HTTP2FrameRecord] = []
    /// While a cut's answer is queued, its output waits for the cut.
    @exclusivity(unchecked) private var flushHeld = false
    /// Calls of `holdingOutput` under way: their answers go out when the outermost ends.
    @exclusivity(unchecked) private var outputHolds = 0
    /// A flush waits for the end of the event loop's tick (``outputAtEndOfTick(_:)``).
    @exclusivity(unchecked) private var tickFlushScheduled = false
    @exclusivity(unchecked) private var errorReported = false

    @exclusivity(unchecked) private var idleCheck: Scheduled<Void>?
    /// When the connection last saw bytes arrive or its last stream close.
    @exclusivity(unchecked) private var lastActivity = NIODeadline.now()

    /// Creates a handler. It holds `delegate` strongly until it leaves the pipeline.
    package init(configuration: HTTP2ServerConfiguration = .init(), delegate: (any NGHTTP2ServerDelegate)?) {
        self.configuration = configuration
        self.delegate = delegate
    }

    /// Streams the client has opened that have not closed yet.
    package var openStreamCount: Int { session?.openStreamCount ?? 0 }

    /// What the session keeps per stream now; `nil` once the session is gone.
    package var streamStateCounts: HTTP2StreamStateCounts? { session?.streamStateCounts }

    /// What the session's memory pool has done; `nil` once the session is gone.
    package var memoryPoolUse: NGHTTP2MemoryPoolUse? { session?.memoryPoolUse }

    // MARK: - Answering the client

    /// Answers a request. Without a body (or with an empty one) the HEADERS frame ends the
    /// stream; with one, DATA frames follow, paced by the client's flow-control window.
    /// Ignored when the stream is already gone (the client reset it, or the connection
    /// closed) or already answered.
    ///
    /// Header names must be lowercase on the wire; upper-case ASCII is lowered here.
    /// Returns whether the response was queued (`false`: the stream was gone or answered).
    @discardableResult
    package func respond(streamID: Int32, status: Int, headers: [HTTPHeader], body: ByteBuffer?) -> Bool {
        respond(ResponseHead(status: status, headers: headers), streamID: streamID, body: body)
    }

    /// Submits a response whose ids are values (``ResponseHead``); the same as the other
    /// `respond` otherwise.
    package func respond(_ head: ResponseHead, streamID: Int32, body: ByteBuffer?) -> Bool {
        context?.eventLoop.assertInEventLoop()
        let submitted = withSession {
            $0.submitResponse(head, streamID: streamID, body: body)
        }
        if submitted == true { flush() }
        return submitted == true
    }

    /// Sends RST_STREAM with `errorCode` (see ``HTTP2ErrorCode``) on a stream. Returns whether
    /// it was queued (`false`: the session is gone).
    @discardableResult
    package func resetStream(streamID: Int32, errorCode: UInt32) -> Bool {
        context?.eventLoop.assertInEventLoop()
        let submitted = withSession { $0.submitReset(streamID: streamID, errorCode: errorCode) }
        if submitted == true { flush() }
        return submitted == true
    }

    /// Sends GOAWAY. `lastStreamID` `nil` names the last stream handed to the delegate.
    /// Asked for during a read batch, the GOAWAY goes out when the batch ends, so it covers
    /// every request the batch delivered. With `closeAfter` the connection closes as soon as
    /// the GOAWAY is written, abandoning open streams; without it the connection stays open
    /// (another GOAWAY may follow) until the client closes it.
    package func sendGoAway(errorCode: UInt32, lastStreamID: Int32? = nil, debugData: [UInt8], closeAfter: Bool) {
        context?.eventLoop.assertInEventLoop()
        guard session != nil, !closing else { return }
        pendingGoAways.append(PendingGoAway(errorCode: errorCode, lastStreamID: lastStreamID, debugData: debugData))
        if closeAfter {
            closeAfterFlush = true
        } else {
            keepOpenAfterGoAway = true
        }
        flush()
    }

    /// Lets only `budget` bytes of `streamID`'s answer out, counted from the first byte of its
    /// HEADERS frame, then closes the connection: whatever was queued before the answer goes
    /// out whole, what follows the cut never does. `queueAnswer` queues the answer (with
    /// ``respond(streamID:status:headers:body:)``); its output waits for the cut. `report`
    /// hears what the client was left with before the bytes are written; frames cut off are
    /// not reported as sent.
    package func cutOutput(
        afterBytes budget: Int, ofStream streamID: Int32, queueAnswer: () -> Void, report: @escaping (HTTP2OutputCut) -> Void
    ) {
        context?.eventLoop.assertInEventLoop()
        guard session != nil, !closing, pendingCut == nil else {
            queueAnswer()
            report(HTTP2OutputCut(streamID: streamID, budget: budget, answerBytesSent: 0, answerBytes: 0,
                                  headersSent: false, answerSent: false))
            return
        }
        // Output that was due before the answer goes out now, uncut.
        flush()
        pendingCut = (HTTP2OutputCutter(streamID: streamID, budget: budget), report)
        closeAfterFlush = true
        flushHeld = true
        queueAnswer()
        flushHeld = false
        flush()
    }

    /// Runs `body` (answers written outside a read: a delayed or relayed one) with the output
    /// held, then writes it: what `body` records of its answers is in the journal before the
    /// client can read them, as an answer written during a read is.
    package func holdingOutput<Result>(_ body: () -> Result) -> Result {
        context?.eventLoop.assertInEventLoop()
        outputHolds += 1
        let result = body()
        outputHolds -= 1
        flush()
        return result
    }

    /// `body`, with what it writes sent once the event loop is done with what it is running
    /// now: answers completed one after another in one tick (the upstream's answers to a
    /// batch of relayed requests, read at once) leave in one write.
    package func outputAtEndOfTick(_ body: () -> Void) {
        guard let context else { return body() }
        context.eventLoop.assertInEventLoop()
        outputHolds += 1
        body()
        outputHolds -= 1
        guard !tickFlushScheduled else { return }
        tickFlushScheduled = true
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let handler = handler.value
            handler.tickFlushScheduled = false
            handler.flush()
        }
    }

    /// Announces a new SETTINGS_MAX_CONCURRENT_STREAMS. Token-authenticated connections
    /// start at 1 and rise after the first valid token, as Apple's do.
    package func setMaxConcurrentStreams(_ limit: UInt32) {
        context?.eventLoop.assertInEventLoop()
        let submitted = withSession { session in
            (try? session.submitSettings([HTTP2Setting(identifier: HTTP2Setting.maxConcurrentStreams, value: limit)])) != nil
        }
        if submitted == true { flush() }
    }

    /// Starts a graceful shutdown: GOAWAY NO_ERROR naming the last stream handed to the
    /// delegate, so the client opens no more; open streams finish; then the connection closes.
    /// `debugData` `nil` sends the configuration's `goAwayDebugData.shutdown`.
    package func gracefulShutdown(debugData: [UInt8]? = nil) {
        context?.eventLoop.assertInEventLoop()
        guard session != nil, !closing, !shutdownStarted else { return }
        shutdownStarted = true
        keepOpenAfterGoAway = false  // the point of a shutdown is to close
        pendingGoAways.append(PendingGoAway(
            errorCode: HTTP2ErrorCode.noError, lastStreamID: nil, debugData: debugData ?? configuration.goAwayDebugData.shutdown
        ))
        flush()
    }

    // MARK: - Channel events

    package func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        do {
            session = try NGHTTP2Session(
                configuration: configuration, allocator: context.channel.allocator, listener: self
            )
        } catch {
            context.fireErrorCaught(error)
            context.close(promise: nil)
            return
        }
        if context.channel.isActive {
            start()
        }
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        tearDown()
    }

    package func channelActive(context: ChannelHandlerContext) {
        start()
        context.fireChannelActive()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        tearDown()
        context.fireChannelInactive()
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        let bytes = unwrapInboundIn(data)
        readBatchOpen = true
        if configuration.idleTimeout != nil {
            lastActivity = .now()
        }
        withSession { $0.receive(bytes) }
    }

    package func channelReadComplete(context: ChannelHandlerContext) {
        readBatchOpen = false
        flush()
        context.fireChannelReadComplete()
    }

    package func channelWritabilityChanged(context: ChannelHandlerContext) {
        // The client read some of what was written: pull more from nghttp2.
        if context.channel.isWritable { flush() }
        context.fireChannelWritabilityChanged()
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? HTTP2GracefulShutdownEvent {
            gracefulShutdown(debugData: event.debugData ?? configuration.goAwayDebugData.shutdown)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    package func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        if let event = event as? HTTP2GracefulShutdownEvent {
            gracefulShutdown(debugData: event.debugData ?? configuration.goAwayDebugData.shutdown)
            promise?.succeed(())
        } else {
            context.triggerUserOutboundEvent(event, promise: promise)
        }
    }

    // MARK: - Driving the session

    private func start() {
        guard !started, session != nil else { return }
        started = true
        lastActivity = .now()
        flush()  // the server's SETTINGS go out first, before any client byte arrives
        if let timeout = configuration.idleTimeout {
            scheduleIdleCheck(after: timeout)
        }
    }

    /// Runs `body` with the session, keeping track of re-entrance so the session is neither
    /// re-entered by a flush nor deleted while nghttp2 is on the stack.
    @discardableResult
    private func withSession<Result>(_ body: (NGHTTP2Session) -> Result) -> Result? {
        guard let session else { return nil }
        sessionCallDepth += 1
        defer {
            sessionCallDepth -= 1
            if sessionCallDepth == 0 && tearDownPending {
                tearDown()
            }
        }
        return body(session)
    }

    /// How much output is gathered from nghttp2 per write while the client keeps reading.
    /// NIO's default high-water mark: a client that stops reading leaves at most about twice
    /// this in the channel's buffer (the batch that crossed the mark, and what was there
    /// before it), the rest stays inside nghttp2 as the answers' own small records.
    static let outputBatchLimit = 64 * 1024

    /// Writes and flushes what nghttp2 has queued, in batches of at most `outputBatchLimit`
    /// bytes, for as long as the channel takes them; then closes the connection if it is over.
    /// Does nothing inside a read batch or an nghttp2 call: the batch's end (or the running
    /// drain) picks the frames up.
    ///
    /// While the channel is not writable (the client stopped reading), frames stay inside
    /// nghttp2 instead of piling up in the channel's buffer, and `channelWritabilityChanged`
    /// resumes. A connection that must close (a GOAWAY that ends it, a protocol error) is
    /// written out regardless.
    private func flush() {
        while let context, !readBatchOpen, sessionCallDepth == 0, !closing, !flushHeld, outputHolds == 0 {
            guard let mayContinue = flushBatch(context: context), mayContinue, context.channel.isWritable else { return }
        }
    }

    /// One batch of `flush()`. Returns `true` when more output may be waiting in nghttp2,
    /// `false` when it is all out, `nil` when nothing was done.
    private func flushBatch(context: ChannelHandlerContext) -> Bool? {
        let mustClose = closeAfterFlush || session?.connectionError != nil
        guard context.channel.isWritable || mustClose else { return nil }
        let allocator = context.channel.allocator
        var output: ByteBuffer?
        var moreWaiting = false
        withSession { session in
            for goAway in pendingGoAways {
                _ = session.submitGoAway(
                    errorCode: goAway.errorCode, lastStreamID: goAway.lastStreamID, debugData: goAway.debugData
                )
            }
            pendingGoAways.removeAll()
            moreWaiting = session.drainOutput(limit: mustClose ? .max : Self.outputBatchLimit) { chunk in
                if output == nil {
                    // nghttp2 hands out about one frame per chunk; start big enough that a
                    // batch of small responses rarely needs the buffer to grow.
                    output = allocator.buffer(capacity: max(chunk.count, 4096))
                }
                output?.writeBytes(chunk)
            }
        }
        // The drain's callbacks may have torn everything down (a delegate closing the channel).
        guard let session, self.context != nil else { return nil }
        if let cut = pendingCut {
            output = applyCut(cut, to: output)
        }

        let shouldClose = session.connectionError != nil
            || closeAfterFlush
            || (!moreWaiting && session.isFinished && !keepOpenAfterGoAway)
        guard shouldClose else {
            if let output {
                context.writeAndFlush(wrapOutboundOut(output), promise: nil)
            }
            return moreWaiting
        }

        // Report before writing: a write that completes at once closes the channel at once,
        // and the teardown that follows lets go of the delegate.
        closing = true
        if let error = session.connectionError, !errorReported {
            errorReported = true
            delegate?.http2Handler(self, connectionError: error)
        }
        if session.connectionError == nil, !closeAfterFlush, let errorCode = session.clientGoAwayFirst {
            // nghttp2 is done because the client went away first: the close is the client's.
            context.triggerUserOutboundEvent(HTTP2ClientWentAwayEvent(errorCode: errorCode), promise: nil)
        }
        let channel = context.channel
        if let output {
            context.writeAndFlush(wrapOutboundOut(output)).whenComplete { _ in
                channel.close(promise: nil)
            }
        } else {
            channel.close(promise: nil)
        }
        return false
    }

    /// Cuts `output` as `cut` says, reports the cut, and reports the frames that go out whole.
    private func applyCut(_ cut: (cutter: HTTP2OutputCutter, report: (HTTP2OutputCut) -> Void), to output: ByteBuffer?) -> ByteBuffer? {
        pendingCut = nil
        let bytes = output ?? ByteBuffer()
        let frames = HTTP2OutputCutter.frames(in: bytes)
        let (keep, report) = cut.cutter.cut(frames, total: bytes.readableBytes)
        cut.report(report)
        // Records come in the order their frames were serialized: pair each with its frame.
        var next = frames.startIndex
        let records = recordsAwaitingCut
        recordsAwaitingCut = []
        for record in records {
            guard let index = frames[next...].firstIndex(where: { $0.type == record.type && $0.streamID == record.streamID }) else { break }
            next = index + 1
            guard frames[index].end <= keep else { break }
            delegate?.http2Handler(self, didRecord: record)
        }
        return bytes.getSlice(at: bytes.readerIndex, length: keep)
    }

    private func tearDown() {
        guard sessionCallDepth == 0 else {
            tearDownPending = true
            return
        }
        tearDownPending = false
        idleCheck?.cancel()
        idleCheck = nil
        session?.close()
        session = nil
        context = nil
        delegate = nil
    }

    // MARK: - Idle timeout

    private func scheduleIdleCheck(after delay: TimeAmount) {
        guard let context else { return }
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        idleCheck = context.eventLoop.scheduleTask(in: delay) {
            handler.value.checkIdle()
        }
    }

    private func checkIdle() {
        idleCheck = nil
        guard let timeout = configuration.idleTimeout, let session, !closing else { return }
        guard session.openStreamCount == 0 else {
            scheduleIdleCheck(after: timeout)
            return
        }
        let idleFor = NIODeadline.now() - lastActivity
        guard idleFor >= timeout else {
            scheduleIdleCheck(after: timeout - idleFor)
            return
        }
        sendGoAway(errorCode: HTTP2ErrorCode.noError, debugData: configuration.goAwayDebugData.idleTimeout, closeAfter: true)
    }
}

private struct PendingGoAway {
    var errorCode: UInt32
    var lastStreamID: Int32?
    var debugData: [UInt8]
}

@available(*, unavailable)
extension NGHTTP2ServerHandler: Sendable {}

extension NGHTTP2ServerHandler: NGHTTP2SessionListener {
    func session(didReceive request: HTTP2Request) {
        delegate?.http2Handler(self, didReceive: request)
    }

    func session(didRecord frame: HTTP2FrameRecord) {
        if pendingCut != nil, frame.direction == .outbound {
            recordsAwaitingCut.append(frame)
            return
        }
        delegate?.http2Handler(self, didRecord: frame)
    }

    func session(didFailStream error: HTTP2StreamError) {
        delegate?.http2Handler(self, streamError: error)
    }

    func session(didRefuseStream refused: HTTP2RefusedStream) {
        delegate?.http2Handler(self, didRefuseStream: refused)
    }

    func session(didRefuse refusal: HTTP2RequestRefusal) {
        delegate?.http2Handler(self, didRefuse: refusal)
    }

    func session(didIgnoreStream streamID: Int32, afterGoAwayNaming lastStreamID: Int32) {
        delegate?.http2Handler(self, didIgnoreStream: streamID, afterGoAwayNaming: lastStreamID)
    }

    func session(didCloseStream streamID: Int32, errorCode: UInt32) {
        if configuration.idleTimeout != nil, session?.openStreamCount == 0 {
            lastActivity = .now()
        }
        delegate?.http2Handler(self, didCloseStream: streamID, errorCode: errorCode)
    }
}
