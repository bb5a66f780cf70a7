import MockAPNsCore
import MockAPNsJournal
import MockAPNsHTTP2
import MockAPNsTLS
import NIOCore

/// Records one connection's life in the journal: opened, TLS established or refused, and
/// closed, with which side closed it and why.
///
/// It sits right after the TLS handler, so it hears TLS's events, and every close the
/// protocol handlers behind it ask for passes through it: a close that passes here is the
/// server's; a connection that goes inactive without one was closed by the client.
final class JournalConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let journal: Journal
    private let connectionID: UInt64
    private let transport: Transport
    private var opened = false
    private var closedBy: ClosingSide?
    private var reason: String?

    init(journal: Journal, connectionID: UInt64, transport: Transport) {
        self.journal = journal
        self.connectionID = connectionID
        self.transport = transport
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { recordOpened(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        recordOpened(context: context)
        context.fireChannelActive()
    }

    private func recordOpened(context: ChannelHandlerContext) {
        guard !opened else { return }
        opened = true
        journal.record(
            .connectionOpened(transport: transport, peer: context.remoteAddress.map { "\($0)" }),
            connection: connectionID
        )
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let completed as TLSHandshakeCompleted:
            journal.record(.tlsEstablished(JournalTLS.session(completed.session)), connection: connectionID)
        case let failed as TLSHandshakeFailed:
            journal.record(.tlsFailed(JournalTLS.failure(failed)), connection: connectionID)
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

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if reason == nil { reason = "\(error)" }
        context.fireErrorCaught(error)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if closedBy == nil { closedBy = .server }
        context.close(mode: mode, promise: promise)
    }

    /// Why the connection closed, with provider tokens as the journal records them (an
    /// error's text may quote a header value).
    private var printableReason: String? {
        reason.map(journal.options.providerTokens.apply)
    }

    func channelInactive(context: ChannelHandlerContext) {
        journal.record(
            .connectionClosed(transport: transport, closedBy: closedBy ?? .client, reason: printableReason),
            connection: connectionID
        )
        context.fireChannelInactive()
    }
}

@available(*, unavailable)
extension JournalConnectionHandler: Sendable {}
