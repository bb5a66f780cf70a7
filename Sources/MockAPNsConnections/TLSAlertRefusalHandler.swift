import MockAPNsWire
import MockAPNsCore
import NIOCore

/// Stands in for the TLS handler on a connection a scenario refuses: it waits for the
/// client's first bytes (the ClientHello), answers with one fatal TLS alert record, and
/// closes, so the client reports that alert as the handshake's failure.
///
/// Waiting for the ClientHello matters: an alert written before the client has sent
/// anything can be lost in a reset when the client's hello arrives at a closed socket.
package final class TLSAlertRefusalHandler: ChannelInboundHandler {
    package typealias InboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    private let alert: TLSAlert
    private var answered = false

    package init(alert: TLSAlert) {
        self.alert = alert
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        answered = true
        let record = context.channel.allocator.buffer(bytes: alert.record)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(record)).whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}

@available(*, unavailable)
extension TLSAlertRefusalHandler: Sendable {}
