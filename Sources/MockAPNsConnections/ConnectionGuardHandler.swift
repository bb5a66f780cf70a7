import Logging
import MockAPNsCore
import MockAPNsJournal
import MockAPNsTLS
import NIOCore

/// Guards one APNs connection (HTTP/2, gateway or feedback), behind the TLS handler and the
/// journal's recorder:
///
/// - the TLS handshake must finish within `handshakeTimeout` of the connection's start, and
///   on the HTTP/2 port the client's connection preface and the header of its first frame
///   must follow within `firstBytesTimeout` (a client trickling them byte by byte does not
///   reset the clock); on the legacy ports, a connection may then receive nothing for at
///   most `idleTimeout` at a time; a connection that misses any of these is closed, logged
///   and journaled, so idle sockets cannot use up the server's descriptors;
/// - while the channel cannot take more output (the client stopped reading), nothing more is
///   read from it, so a client that never reads cannot make the server buffer answers without
///   bound. Reading resumes when the channel drains.
package final class ConnectionGuardHandler: ChannelDuplexHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer
    package typealias OutboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    package struct Limits {
        package var handshakeTimeout: TimeAmount
        /// `nil`: the protocol has the client speak first only if it wants (legacy ports).
        package var firstBytesTimeout: TimeAmount?
        /// After the handshake, the longest the connection may receive nothing (legacy
        /// ports); `nil`: no limit (HTTP/2 has its own idle timeout, a GOAWAY).
        package var idleTimeout: TimeAmount? = nil
        /// How many bytes count as "the first bytes": HTTP/2's 24-byte preface and the 9-byte
        /// header of the SETTINGS frame that must follow it.
        package var firstBytesLength = 24 + 9
        /// Reads wait while this gate is closed: the journal's file is behind
        /// (`ReadGateHandler`, first in the pipeline).
        package var readGate: JournalReadGate? = nil

        package init(handshakeTimeout: TimeAmount, firstBytesTimeout: TimeAmount?, idleTimeout: TimeAmount? = nil) {
            self.handshakeTimeout = handshakeTimeout
            self.firstBytesTimeout = firstBytesTimeout
            self.idleTimeout = idleTimeout
        }
    }

    private enum Phase {
        case handshaking
        case awaitingFirstBytes
        case open
    }

    private let limits: Limits
    private let listener: String
    /// The connection's way into the journal, shared with the rest of its pipeline.
    private let recorder: ConnectionJournal
    private var connectionID: UInt64 { recorder.connectionID }
    private let logger: Logger
    private var phase = Phase.handshaking
    private var deadline: Scheduled<Void>?
    /// When the last bytes arrived after the handshake, for the idle deadline; `nil` before any.
    private var lastReceived: NIODeadline?
    /// When the idle deadline started (the handshake's end).
    private var idleSince = NIODeadline.now()
    /// A read asked for while the channel was not writable, to be passed on once it is.
    private var readHeld = false
    /// Bytes received since the handshake, while the first bytes are awaited.
    private var firstBytesReceived = 0

    package init(limits: Limits, listener: String, recorder: ConnectionJournal, logger: Logger) {
        self.limits = limits
        self.listener = listener
        self.recorder = recorder
        self.logger = logger
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(limits.handshakeTimeout, context: context) }
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
    }

    package func channelActive(context: ChannelHandlerContext) {
        if deadline == nil, case .handshaking = phase { arm(limits.handshakeTimeout, context: context) }
        context.fireChannelActive()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case is TLSHandshakeCompleted:
            disarm()
            if let firstBytes = limits.firstBytesTimeout, case .handshaking = phase {
                phase = .awaitingFirstBytes
                arm(firstBytes, context: context)
            } else {
                phase = .open
                if let idle = limits.idleTimeout {
                    idleSince = .now()
                    arm(idle, context: context)
                }
            }
        case is TLSHandshakeFailed:
            disarm()
            phase = .open
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Reading only notes the time: the idle deadline, when it comes, looks at it, so a
        // busy connection costs no timer per read.
        if limits.idleTimeout != nil, case .open = phase { lastReceived = .now() }
        if case .awaitingFirstBytes = phase {
            firstBytesReceived += unwrapInboundIn(data).readableBytes
            if firstBytesReceived >= limits.firstBytesLength {
                disarm()
                phase = .open
            }
        }
        context.fireChannelRead(data)
    }

    /// The protocol ALPN chose has no preface (HTTP/1.1 on the web push port, whose own
    /// handlers bound each request from the handshake on): the first-bytes deadline is dropped.
    package func expectNoPreface() {
        guard case .awaitingFirstBytes = phase else { return }
        disarm()
        phase = .open
    }

    // MARK: Reading only while the client reads

    package func read(context: ChannelHandlerContext) {
        guard context.channel.isWritable else {
            readHeld = true
            return
        }
        context.read()
    }

    package func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, readHeld {
            readHeld = false
            context.read()
        }
        context.fireChannelWritabilityChanged()
    }

    // MARK: Deadlines

    private func arm(_ timeout: TimeAmount, context: ChannelHandlerContext) {
        disarm()
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: timeout) {
            bound.value.handler.deadlinePassed(context: bound.value.context, after: timeout)
        }
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
    }

    private func deadlinePassed(context: ChannelHandlerContext, after timeout: TimeAmount) {
        deadline = nil
        let code: DiagnosisCode
        let missing: String
        switch phase {
        case .handshaking:
            code = .timeoutTLSHandshake
            missing = "no finished TLS handshake"
        case .awaitingFirstBytes:
            code = .timeoutHTTP2Preface
            missing = "no complete HTTP/2 connection preface and first frame header after the TLS handshake (\(firstBytesReceived) bytes came)"
        case .open:
            guard let idle = limits.idleTimeout else { return }
            let quietSince = lastReceived ?? idleSince
            let quiet = NIODeadline.now() - quietSince
            if quiet < idle {
                // Bytes came since the deadline was set: it now runs from the last of them.
                arm(idle - quiet, context: context)
                return
            }
            code = .timeoutLegacyIdle
            missing = lastReceived == nil ? "nothing received after the TLS handshake" : "nothing received after its last bytes"
            let peer = context.remoteAddress.map { "\($0)" } ?? "unknown peer"
            let message = "\(listener) connection from \(peer) closed: \(missing) for \(ConnectionTimeouts.describe(idle))"
            logger.notice("\(message)")
            recorder.record(.diagnosis(code: code, message: message))
            context.close(promise: nil)
            return
        }
        let peer = context.remoteAddress.map { "\($0)" } ?? "unknown peer"
        let message = "\(listener) connection from \(peer) closed: \(missing) within \(ConnectionTimeouts.describe(timeout))"
        logger.notice("\(message)")
        recorder.record(.diagnosis(code: code, message: message))
        phase = .open
        context.close(promise: nil)
    }
}

@available(*, unavailable)
extension ConnectionGuardHandler: Sendable {}
