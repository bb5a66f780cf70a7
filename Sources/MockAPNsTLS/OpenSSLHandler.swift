import NIOCore

/// Speaks TLS on a channel: ciphertext below, plaintext above.
///
/// The handshake starts as soon as the channel is active. Plaintext written before it
/// completes is held back and sent, in order, right after. Once it completes,
/// `TLSHandshakeCompleted` is fired before any application data; if it fails,
/// `TLSHandshakeFailed` and a `TLSError` are fired, the alert is flushed to the peer and the
/// channel is closed.
///
/// Each `channelRead` of ciphertext produces at most one `channelRead` of plaintext, and each
/// `flush` at most one write of ciphertext: writes are encrypted together when they are
/// flushed, as few TLS records as their bytes need.
package final class OpenSSLHandler: ChannelDuplexHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer
    package typealias OutboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    private enum State {
        /// Waiting for the channel to become active.
        case idle
        case handshaking
        case active
        /// Our final bytes (close_notify or an alert) are on their way; the channel closes
        /// once they are written or `closeTimeout` passes.
        case closing
        case closed
    }

    private struct BufferedWrite {
        var data: ByteBuffer
        var promise: EventLoopPromise<Void>?
    }

    private let sslContext: OpenSSLContext
    private let serverName: String?
    private let closeTimeout: TimeAmount
    private var state: State = .idle
    private var connection: OpenSSLConnection?
    /// Plaintext written and not yet encrypted: before the handshake completed, or since the
    /// last flush.
    private var bufferedWrites = CircularBuffer<BufferedWrite>()
    /// Promises of writes already encrypted, completed when their ciphertext is written.
    private var promisesAwaitingFlush: [EventLoopPromise<Void>] = []
    private var closePromise: EventLoopPromise<Void>?
    private var closeTimer: Scheduled<Void>?
    /// The first bytes the peer sent, kept to explain a peer that does not speak TLS.
    private var firstBytes: [UInt8] = []

    /// - Parameters:
    ///   - context: The server or client context connections are made from.
    ///   - serverName: Client role only: the host name sent as SNI and checked against the
    ///     server certificate when trust roots are configured (an IP address is checked but
    ///     not sent as SNI).
    ///   - closeTimeout: How long to wait for the final close_notify or alert to be written
    ///     before closing the socket regardless.
    package init(context: OpenSSLContext, serverName: String? = nil, closeTimeout: TimeAmount = .seconds(5)) {
        self.sslContext = context
        self.serverName = serverName
        self.closeTimeout = closeTimeout
    }

    // MARK: Lifecycle

    package func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive {
            startHandshake(context: context)
        }
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        failPendingWrites(error: ChannelError.ioOnClosedChannel)
        closeTimer?.cancel()
        closeTimer = nil
    }

    package func channelActive(context: ChannelHandlerContext) {
        startHandshake(context: context)
        context.fireChannelActive()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        let previous = state
        state = .closed
        closeTimer?.cancel()
        closeTimer = nil
        failPendingWrites(error: ChannelError.ioOnClosedChannel)
        if previous == .handshaking, let connection {
            reportHandshakeFailure(context: context, connection: connection, openSSL: "unexpected EOF", reason: eofReason)
        }
        closePromise?.succeed(())
        closePromise = nil
        context.fireChannelInactive()
    }

    // MARK: Inbound

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // With half-closure allowed, the peer's EOF arrives as this event instead of
        // channelInactive. Mid-handshake it ends the handshake; afterwards it is passed on.
        if let channelEvent = event as? ChannelEvent, channelEvent == .inputClosed,
           state == .handshaking, let connection {
            state = .closing
            reportHandshakeFailure(context: context, connection: connection, openSSL: "unexpected EOF", reason: eofReason)
            closeTransport(context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let ciphertext = unwrapInboundIn(data)
        if state == .idle {
            startHandshake(context: context)
        }
        guard state == .handshaking || state == .active, let connection else {
            return  // Closing or closed: nothing more from the peer matters.
        }
        if state == .handshaking && firstBytes.count < 16 {
            firstBytes += ciphertext.getBytes(at: ciphertext.readerIndex, length: min(16 - firstBytes.count, ciphertext.readableBytes)) ?? []
        }
        connection.receive(ciphertext)
        if state == .handshaking {
            advanceHandshake(context: context, connection: connection)
        }
        if state == .active {
            readPlaintext(context: context, connection: connection)
        }
    }

    // MARK: Outbound

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let plaintext = unwrapOutboundIn(data)
        switch state {
        case .idle, .handshaking, .active:
            bufferedWrites.append(BufferedWrite(data: plaintext, promise: promise))
        case .closing, .closed:
            promise?.fail(ChannelError.ioOnClosedChannel)
        }
    }

    package func flush(context: ChannelHandlerContext) {
        // Before the handshake completes, buffered writes wait; completion flushes them.
        if state == .active {
            encryptBufferedWrites(context: context)
            if state == .active {
                flushCiphertext(context: context)
            }
        }
    }

    package func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all else {
            // Half-closure has no TLS meaning here; pass it on untouched.
            context.close(mode: mode, promise: promise)
            return
        }
        switch state {
        case .idle:
            state = .closed
            failPendingWrites(error: ChannelError.ioOnClosedChannel)
            context.close(mode: mode, promise: promise)
        case .handshaking:
            state = .closing
            addClosePromise(promise)
            failPendingWrites(error: ChannelError.ioOnClosedChannel)
            closeTransport(context: context)
        case .active:
            // What was written before the close goes out before close_notify.
            encryptBufferedWrites(context: context)
            guard state == .active else {
                addClosePromise(promise)
                return
            }
            state = .closing
            addClosePromise(promise)
            connection?.shutdown()
            sendFinalBytesThenClose(context: context)
        case .closing:
            addClosePromise(promise)
        case .closed:
            context.close(mode: mode, promise: promise)
        }
    }

    // MARK: Handshake

    private func startHandshake(context: ChannelHandlerContext) {
        guard state == .idle else { return }
        do {
            connection = try OpenSSLConnection(context: sslContext, serverName: serverName, allocator: context.channel.allocator)
        } catch {
            state = .closing
            failPendingWrites(error: error)
            context.fireErrorCaught(error)
            closeTransport(context: context)
            return
        }
        state = .handshaking
        if let connection {
            advanceHandshake(context: context, connection: connection)
        }
    }

    private func advanceHandshake(context: ChannelHandlerContext, connection: OpenSSLConnection) {
        switch connection.handshake() {
        case .needsMoreData:
            flushCiphertext(context: context)
            // The handshake needs the peer's next flight even when the application reads
            // on demand (autoRead off); with autoRead on this is a no-op.
            context.read()
        case .complete:
            completeHandshake(context: context, connection: connection)
        case .failed(let openSSL):
            state = .closing
            let reason = HandshakeFailureExplainer.reason(
                openSSL: openSSL,
                observations: connection.observations,
                firstBytes: firstBytes
            )
            reportHandshakeFailure(context: context, connection: connection, openSSL: openSSL, reason: reason)
            sendFinalBytesThenClose(context: context)
        }
    }

    private func completeHandshake(context: ChannelHandlerContext, connection: OpenSSLConnection) {
        state = .active
        // Writes made during the handshake go first, then anything written in reaction to
        // the completion event, all in one flush together with the handshake's last bytes.
        encryptBufferedWrites(context: context)
        context.fireUserInboundEventTriggered(TLSHandshakeCompleted(session: connection.sessionInfo()))
        if state == .active {
            encryptBufferedWrites(context: context)
        }
        if state == .active {
            flushCiphertext(context: context)
        }
    }

    /// Why a handshake ended with the peer hanging up. Port probes and health checks connect
    /// and leave without a byte; that is worth telling apart from a broken handshake.
    private var eofReason: String {
        if HandshakeFailureExplainer.alertBeforeClientHello(firstBytes) != nil, let connection {
            return HandshakeFailureExplainer.reason(openSSL: "unexpected EOF", observations: connection.observations, firstBytes: firstBytes)
        }
        return firstBytes.isEmpty
            ? "peer closed the connection without starting a TLS handshake"
            : "peer closed the connection during the TLS handshake"
    }

    /// Fires the failure event and the error. The caller closes the channel.
    private func reportHandshakeFailure(
        context: ChannelHandlerContext,
        connection: OpenSSLConnection,
        openSSL: String,
        reason: String
    ) {
        let observations = connection.observations
        let error = TLSError.handshakeFailed(reason: reason, openSSL: openSSL)
        failPendingWrites(error: error)
        context.fireUserInboundEventTriggered(
            TLSHandshakeFailed(
                clientHello: observations.clientHello,
                alertSent: observations.alertSent,
                alertReceived: observations.alertReceived
                    ?? (observations.clientHello == nil ? HandshakeFailureExplainer.alertBeforeClientHello(firstBytes)?.alert : nil),
                reason: reason,
                error: error
            )
        )
        context.fireErrorCaught(error)
    }

    // MARK: Data

    private func readPlaintext(context: ChannelHandlerContext, connection: OpenSSLConnection) {
        let available = connection.availableInput
        guard available > 0 else { return }
        // Plaintext never exceeds the ciphertext it came from, so one allocation suffices.
        var plaintext = context.channel.allocator.buffer(capacity: available)
        let outcome = connection.read(into: &plaintext)
        if plaintext.readableBytes > 0 {
            context.fireChannelRead(wrapInboundOut(plaintext))
        }
        guard state == .active else { return }  // The reader may have closed the channel.
        switch outcome {
        case .needsMoreData:
            // Reading can produce bytes to send (a KeyUpdate answer, for instance).
            if connection.pendingCiphertext > 0 {
                flushCiphertext(context: context)
            }
        case .closeNotify:
            // Answer with our own close_notify, then close.
            state = .closing
            context.fireUserInboundEventTriggered(TLSCloseNotifyReceived())
            connection.shutdown()
            sendFinalBytesThenClose(context: context)
        case .failed(let openSSL):
            state = .closing
            let error: TLSError = connection.observations.alertReceived.map { .alertReceived($0, openSSL: openSSL) }
                ?? .protocolFailure(openSSL: openSSL)
            failPendingWrites(error: error)
            context.fireErrorCaught(error)
            sendFinalBytesThenClose(context: context)
        }
    }

    /// Encrypts every buffered write, the small ones together as one write so they share
    /// TLS records.
    private func encryptBufferedWrites(context: ChannelHandlerContext) {
        guard bufferedWrites.count > 1 else {
            if let write = bufferedWrites.popFirst() {
                encrypt(context: context, plaintext: write.data, promise: write.promise)
            }
            return
        }
        let total = bufferedWrites.reduce(0) { $0 + $1.data.readableBytes }
        var combined = context.channel.allocator.buffer(capacity: total)
        while let write = bufferedWrites.popFirst() {
            combined.writeImmutableBuffer(write.data)
            if let promise = write.promise { promisesAwaitingFlush.append(promise) }
        }
        encrypt(context: context, plaintext: combined, promise: nil)
    }

    private func encrypt(context: ChannelHandlerContext, plaintext: ByteBuffer, promise: EventLoopPromise<Void>?) {
        guard let connection else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        if let openSSL = connection.write(plaintext) {
            let error = TLSError.protocolFailure(openSSL: openSSL)
            promise?.fail(error)
            state = .closing
            failPendingWrites(error: error)
            context.fireErrorCaught(error)
            sendFinalBytesThenClose(context: context)
            return
        }
        if let promise {
            promisesAwaitingFlush.append(promise)
        }
    }

    /// Writes and flushes whatever ciphertext OpenSSL has produced.
    private func flushCiphertext(context: ChannelHandlerContext) {
        guard let ciphertext = connection?.takeCiphertext() else {
            // Only empty writes were made: they are done.
            for promise in promisesAwaitingFlush {
                promise.succeed(())
            }
            promisesAwaitingFlush.removeAll(keepingCapacity: true)
            return
        }
        context.write(wrapOutboundOut(ciphertext), promise: takeWritePromise(context: context))
        context.flush()
    }

    /// One promise standing for every write encrypted since the last flush.
    private func takeWritePromise(context: ChannelHandlerContext) -> EventLoopPromise<Void>? {
        defer { promisesAwaitingFlush.removeAll(keepingCapacity: true) }
        switch promisesAwaitingFlush.count {
        case 0:
            return nil
        case 1:
            return promisesAwaitingFlush[0]
        default:
            let combined = context.eventLoop.makePromise(of: Void.self)
            for promise in promisesAwaitingFlush {
                combined.futureResult.cascade(to: promise)
            }
            return combined
        }
    }

    // MARK: Closing

    /// Flushes the last ciphertext (close_notify or an alert, after any pending data) and
    /// closes the channel once it is written, or after `closeTimeout` if the peer stops reading.
    private func sendFinalBytesThenClose(context: ChannelHandlerContext) {
        guard let ciphertext = connection?.takeCiphertext() else {
            closeTransport(context: context)
            return
        }
        let written = context.eventLoop.makePromise(of: Void.self)
        if let dataPromise = takeWritePromise(context: context) {
            written.futureResult.cascade(to: dataPromise)
        }
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        closeTimer?.cancel()
        written.futureResult.whenComplete { _ in
            bound.value.handler.closeTransport(context: bound.value.context)
        }
        closeTimer = context.eventLoop.scheduleTask(in: closeTimeout) {
            bound.value.handler.closeTransport(context: bound.value.context)
        }
        context.write(wrapOutboundOut(ciphertext), promise: written)
        context.flush()
    }

    private func closeTransport(context: ChannelHandlerContext) {
        closeTimer?.cancel()
        closeTimer = nil
        guard state != .closed else { return }
        state = .closed
        let promise = closePromise
        closePromise = nil
        context.close(mode: .all, promise: promise)
    }

    private func addClosePromise(_ promise: EventLoopPromise<Void>?) {
        guard let promise else { return }
        if let existing = closePromise {
            existing.futureResult.cascade(to: promise)
        } else {
            closePromise = promise
        }
    }

    private func failPendingWrites(error: any Error) {
        while let write = bufferedWrites.popFirst() {
            write.promise?.fail(error)
        }
        for promise in promisesAwaitingFlush {
            promise.fail(error)
        }
        promisesAwaitingFlush.removeAll()
    }
}

@available(*, unavailable)
extension OpenSSLHandler: Sendable {}
