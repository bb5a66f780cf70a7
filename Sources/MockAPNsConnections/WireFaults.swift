import MockAPNsCore
import MockAPNsTLS
import NIOCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Connection faults that do not depend on the protocol spoken over the connection.
package enum WireFaults {
    /// Closes normally: the client reads EOF (TCP FIN), after TLS's close_notify.
    ///
    /// The close waits for the end of the current read batch, so the answers already given
    /// to earlier requests of the batch (which the HTTP/2 handler writes when the batch
    /// ends) reach the client first, as they would from a server that crashed mid-batch.
    package static func close(_ channel: any Channel) {
        channel.eventLoop.execute {
            channel.close(promise: nil)
        }
    }

    /// Aborts: SO_LINGER with a zero timeout makes the kernel send RST instead of FIN, which
    /// the client reports as "connection reset by peer". The close is issued below the TLS
    /// handler, so no close_notify precedes the reset (the client would take it for a clean
    /// end and never see the reset).
    package static func reset(_ channel: any Channel) {
        channel.eventLoop.execute {
            noteServerCloses(channel, reason: "scenario resetConnection: reset (RST)")
            let belowTLS = try? channel.pipeline.syncOperations.context(handlerType: OpenSSLHandler.self)
            let abort = {
                if let belowTLS { belowTLS.close(promise: nil) } else { channel.close(promise: nil) }
            }
            guard let socket = channel as? any SocketOptionProvider else { return abort() }
            let bound = NIOLoopBound(abort, eventLoop: channel.eventLoop)
            socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in bound.value() }
        }
    }

    /// Tells the connection's journal handler that the server closes the connection, when
    /// the close is issued below it (where the handler cannot see it pass).
    package static func noteServerCloses(_ channel: any Channel, reason: String) {
        (try? channel.pipeline.syncOperations.handler(type: JournalConnectionHandler.self))?.serverCloses(reason: reason)
    }

    /// Writes `bytes`, then closes. Inside TLS (written from `applicationContext`, a handler
    /// after the TLS handler) they are encrypted like any application data, so the client's
    /// protocol parser sees them; otherwise they bypass TLS and go raw on the socket, so the
    /// client's TLS layer sees a broken record.
    package static func sendGarbage(_ bytes: [UInt8], insideTLS: Bool, applicationContext: ChannelHandlerContext?, on channel: any Channel) {
        let buffer = channel.allocator.buffer(bytes: bytes)
        let done: EventLoopFuture<Void>
        if insideTLS, let applicationContext {
            done = applicationContext.writeAndFlush(NIOAny(buffer))
        } else if let tls = try? channel.pipeline.syncOperations.context(handlerType: OpenSSLHandler.self) {
            done = tls.writeAndFlush(NIOAny(buffer))
        } else {
            done = channel.writeAndFlush(buffer)
        }
        done.whenComplete { _ in channel.close(promise: nil) }
    }

    /// Lets only `bytes` more bytes of the protocol's stream out (counted inside TLS, so the
    /// client reads exactly those bytes), then closes. The budget sits right behind the
    /// journal's connection handler, so the close passes it and is recorded as the server's.
    package static func closeAfter(bytes: Int, on channel: any Channel) {
        let operations = channel.pipeline.syncOperations
        do {
            let budget = ByteBudgetHandler(budget: bytes)
            if let journal = try? operations.handler(type: JournalConnectionHandler.self) {
                try operations.addHandler(budget, position: .after(journal))
            } else if let tls = try? operations.handler(type: OpenSSLHandler.self) {
                try operations.addHandler(budget, position: .after(tls))
            } else {
                try operations.addHandler(budget, position: .first)
            }
        } catch {
            channel.close(promise: nil)
        }
    }
}

/// Passes outbound bytes until its budget is spent, cutting the write that crosses it, and
/// closes the connection at the next flush. (HTTP/2 cuts its answers itself, in
/// `NGHTTP2ServerHandler.cutOutput`, where it knows which frames went out whole.)
package final class ByteBudgetHandler: ChannelOutboundHandler {
    package typealias OutboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    private var remaining: Int
    private var spent = false

    package init(budget: Int) {
        self.remaining = budget
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        if remaining == 0 { spent = true }
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var buffer = unwrapOutboundIn(data)
        guard !spent else {
            promise?.succeed()
            return
        }
        if buffer.readableBytes >= remaining {
            buffer = buffer.readSlice(length: remaining) ?? ByteBuffer()
            spent = true
        }
        remaining -= buffer.readableBytes
        context.write(wrapOutboundOut(buffer), promise: promise)
    }

    package func flush(context: ChannelHandlerContext) {
        context.flush()
        if spent {
            context.close(promise: nil)
        }
    }
}

@available(*, unavailable)
extension ByteBudgetHandler: Sendable {}
