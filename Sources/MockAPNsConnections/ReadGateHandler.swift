import MockAPNsJournal
import NIOCore

/// Holds a provider connection's reads while the journal's file is behind
/// (`JournalReadGate` closed), and passes the held read on when the gate opens: the socket is
/// left unread meanwhile, so TCP slows the client down. First in the pipeline, so reads the
/// TLS handler asks for itself (mid-handshake) wait too.
package final class ReadGateHandler: ChannelOutboundHandler {
    package typealias OutboundIn = NIOAny

    private let gate: JournalReadGate
    private let connectionID: UInt64
    private var readHeld = false

    package init(gate: JournalReadGate, connectionID: UInt64) {
        self.gate = gate
        self.connectionID = connectionID
    }

    package func read(context: ChannelHandlerContext) {
        if !gate.isOpen {
            let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            let waiting = gate.wait(connectionID) {
                eventLoop.execute { bound.value.handler.resume(context: bound.value.context) }
            }
            if waiting {
                readHeld = true
                return
            }
        }
        context.read()
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        gate.forget(connectionID)
    }

    /// The gate opened: pass the held read on (asking the gate again, in case it closed).
    private func resume(context: ChannelHandlerContext) {
        guard readHeld, context.channel.isActive else { return }
        readHeld = false
        read(context: context)
    }
}

@available(*, unavailable)
extension ReadGateHandler: Sendable {}
