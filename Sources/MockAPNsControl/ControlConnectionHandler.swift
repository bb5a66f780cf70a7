import MockAPNsConnections
import Logging
import MockAPNsCore
import MockAPNsJournal
import NIOCore
import NIOHTTPTypes

/// Guards one control API connection, between the HTTP codec and Hummingbird.
///
/// - A client gets `requestHeaderTimeout` to deliver each request's header block (from the
///   connection's start, or from the end of the previous response); a connection that idles
///   or trickles its header longer is closed, and the journal says so.
/// - When the server has finished answering (Hummingbird half-closes its side after an answer
///   that ends the connection: a 400 for a header too large, the client gone mid-body), the
///   whole socket is closed once the answer is written, instead of waiting for a client EOF
///   that a paused reader would never see.
package final class ControlConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPRequestPart
    package typealias InboundOut = HTTPRequestPart
    package typealias OutboundIn = HTTPResponsePart
    package typealias OutboundOut = HTTPResponsePart

    private let requestHeaderTimeout: TimeAmount
    private let journal: Journal
    private let logger: Logger
    private var headerDeadline: Scheduled<Void>?
    /// Requests whose header arrived and whose answer has not ended yet (a client may send
    /// the next request before the previous answer is done).
    private var requestsInProgress = 0

    package init(requestHeaderTimeout: TimeAmount, journal: Journal, logger: Logger) {
        self.requestHeaderTimeout = requestHeaderTimeout
        self.journal = journal
        self.logger = logger
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { armHeaderDeadline(context: context) }
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        disarmHeaderDeadline()
    }

    package func channelActive(context: ChannelHandlerContext) {
        armHeaderDeadline(context: context)
        context.fireChannelActive()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        disarmHeaderDeadline()
        context.fireChannelInactive()
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            requestsInProgress += 1
            disarmHeaderDeadline()
        }
        context.fireChannelRead(data)
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let isEnd: Bool
        if case .end = unwrapOutboundIn(data) { isEnd = true } else { isEnd = false }
        context.write(data, promise: promise)
        guard isEnd else { return }
        requestsInProgress = max(0, requestsInProgress - 1)
        // With nothing left to answer, the next request's header block is due within the
        // timeout from here.
        if requestsInProgress == 0 { armHeaderDeadline(context: context) }
    }

    package func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .output else {
            context.close(mode: mode, promise: promise)
            return
        }
        // Half-closing waits for the answer to be written; then nothing more will be read or
        // written on this connection, so the descriptor goes too.
        let channel = context.channel
        let outputClosed = context.eventLoop.makePromise(of: Void.self)
        outputClosed.futureResult.whenComplete { result in
            channel.close(mode: .all, promise: nil)
            promise?.completeWith(result)
        }
        context.close(mode: .output, promise: outputClosed)
    }

    private func armHeaderDeadline(context: ChannelHandlerContext) {
        disarmHeaderDeadline()
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        headerDeadline = context.eventLoop.scheduleTask(in: requestHeaderTimeout) {
            bound.value.handler.headerDeadlinePassed(context: bound.value.context)
        }
    }

    private func disarmHeaderDeadline() {
        headerDeadline?.cancel()
        headerDeadline = nil
    }

    private func headerDeadlinePassed(context: ChannelHandlerContext) {
        headerDeadline = nil
        let peer = context.remoteAddress.map { "\($0)" } ?? "unknown peer"
        let message = "control API connection from \(peer) closed: no complete request header within \(ConnectionTimeouts.describe(requestHeaderTimeout))"
        logger.notice("\(message)")
        journal.record(.diagnosis(code: .timeoutControlRequestHeader, message: message))
        context.close(promise: nil)
    }
}

@available(*, unavailable)
extension ControlConnectionHandler: Sendable {}
