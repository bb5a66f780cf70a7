import Logging
import MockAPNsCore
import MockAPNsJournal
import NIOCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Sits on a listening channel and reports when it cannot accept because the process (or the
/// system) is out of file descriptors: once in the log and once in the journal, not once per
/// refused connection. NIO backs off and retries by itself; the next accepted connection ends
/// the episode, so a later one is reported again.
package final class ListenerLimitReporter: ChannelInboundHandler {
    package typealias InboundIn = Any
    package typealias InboundOut = Any

    private let listener: String
    private let journal: Journal?
    private let logger: Logger
    private var reporting = true

    package init(listener: String, journal: Journal?, logger: Logger) {
        self.listener = listener
        self.journal = journal
        self.logger = logger
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        reporting = true
        context.fireChannelRead(data)
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if reporting, let ioError = error as? IOError, ioError.errnoCode == EMFILE || ioError.errnoCode == ENFILE {
            reporting = false
            let limit = OpenFileLimit.current.map { " (open-file limit \($0))" } ?? ""
            let message = "\(listener) listener cannot accept more connections: out of file descriptors\(limit); "
                + "new connections wait in the backlog until others close"
            logger.warning("\(message)")
            journal?.record(.diagnosis(code: .connectionsLimitReached, message: message))
        }
        context.fireErrorCaught(error)
    }
}

@available(*, unavailable)
extension ListenerLimitReporter: Sendable {}
