import MockAPNsCore
import MockAPNsJournal
import MockAPNsHTTP2
import MockAPNsTLS
import MockAPNsWire
import NIOCore

/// Records one connection's life in the journal: opened, TLS established or refused, and
/// closed, with which side closed it and why.
///
/// It sits right after the TLS handler, so it hears TLS's events, and every close the
/// protocol handlers behind it ask for passes through it: a close that passes here is the
/// server's, unless the client ended the connection with its own GOAWAY first (the HTTP/2
/// handler then says so with `HTTP2ClientWentAwayEvent` before it closes); a connection
/// that goes inactive without one was closed by the client.
///
/// It also paces the connection's recorder (`ConnectionJournal`): the events of one read are
/// held from its first bytes and recorded together when the read is over, or sooner, before
/// any bytes go out, since every flush of the handlers behind it passes here first.
package final class JournalConnectionHandler: ChannelDuplexHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer
    package typealias OutboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    private let recorder: ConnectionJournal
    private let journal: Journal
    private let transport: Transport
    private var opened = false
    private var closedBy: ClosingSide?
    private var reason: String?

    package init(recorder: ConnectionJournal, journal: Journal, transport: Transport) {
        self.recorder = recorder
        self.journal = journal
        self.transport = transport
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { recordOpened(context: context) }
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        recorder.endHolding()
    }

    package func channelActive(context: ChannelHandlerContext) {
        recordOpened(context: context)
        context.fireChannelActive()
    }

    private func recordOpened(context: ChannelHandlerContext) {
        guard !opened else { return }
        opened = true
        recorder.record(.connectionOpened(transport: transport, peer: context.remoteAddress.map { "\($0)" }))
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let completed as TLSHandshakeCompleted:
            recorder.record(.tlsEstablished(JournalTLS.session(completed.session)))
        case let failed as TLSHandshakeFailed:
            recorder.record(.tlsFailed(JournalTLS.failure(failed)))
            // The TLS handler closes on its own, before this handler could see the close.
            closedBy = failed.alertReceived == nil ? .server : .client
            reason = "TLS handshake failed: \(failed.reason)"
        case is TLSCloseNotifyReceived:
            closedBy = closedBy ?? .client
            reason = reason ?? "close_notify"
        case is HTTP2GracefulShutdownEvent:
            reason = reason ?? "server shutdown (GOAWAY)"
        case is LegacyShutdownEvent:
            reason = reason ?? "server shutdown (status 10)"
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if reason == nil { reason = "\(error)" }
        context.fireErrorCaught(error)
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        recorder.hold()
        context.fireChannelRead(data)
    }

    package func channelReadComplete(context: ChannelHandlerContext) {
        context.fireChannelReadComplete()
        recorder.endHolding()
    }

    package func flush(context: ChannelHandlerContext) {
        // Whoever reads these bytes finds their records in the journal.
        recorder.commit()
        context.flush()
    }

    /// The server is closing the connection beneath this handler (a reset or a byte budget
    /// acts below TLS, where no close passes here): the close is the server's, for `reason`.
    package func serverCloses(reason: String) {
        closedBy = closedBy ?? .server
        self.reason = self.reason ?? reason
    }

    package func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let wentAway = event as? HTTP2ClientWentAwayEvent else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        // The HTTP/2 handler closes next, but only because the client's GOAWAY ended the connection.
        closedBy = closedBy ?? .client
        reason = reason ?? "client GOAWAY \(HTTP2ErrorCode.name(of: wentAway.errorCode))"
        promise?.succeed(())
    }

    package func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        recorder.endHolding()
        if closedBy == nil { closedBy = .server }
        context.close(mode: mode, promise: promise)
    }

    /// Why the connection closed, with provider tokens as the journal records them (an
    /// error's text may quote a header value).
    private var printableReason: String? {
        reason.map(journal.options.providerTokens.apply)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        recorder.endHolding()
        recorder.record(.connectionClosed(transport: transport, closedBy: closedBy ?? .client, reason: printableReason))
        context.fireChannelInactive()
    }
}

@available(*, unavailable)
extension JournalConnectionHandler: Sendable {}
