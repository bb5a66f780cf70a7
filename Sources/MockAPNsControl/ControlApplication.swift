import Hummingbird
import HummingbirdCore
import Logging
import MockAPNsConnections
import ServiceLifecycle
import NIOCore
import NIOHTTP1
import Synchronization

/// The control API as a ServiceLifecycle service: a Hummingbird `Application` serving
/// `ControlAPI`'s router, run in the server's `ServiceGroup` (`ServerObservation`).
///
/// It runs on NIO's process-wide event loop group, not on the server's. Hummingbird's HTTP
/// server can be released from a Swift concurrency thread after its service has returned, and
/// releasing it schedules work on its event loop (its quiescing helper fails a promise in its
/// deinit). The graceful shutdown releases it before the service returns, but a shutdown
/// forced after `ServerObservation.gracefulShutdownLimit` does not; on the server's group,
/// which the server stops right after, that work would meet a stopped event loop. The
/// process-wide group is never stopped.
package enum ControlApplication {
    /// An application listening on `host:port`; `onListening` gets the bound port. Every
    /// connection gets `requestHeaderTimeout` for each request's header block.
    package static func make(
        api: ControlAPI, host: String, port: Int, requestHeaderTimeout: TimeAmount,
        logger: Logger, onListening: @escaping @Sendable (Int) -> Void
    ) -> some Service {
        var applicationLogger = logger
        applicationLogger[metadataKey: "listener"] = "control"
        // Failures to bind are thrown and reported by the server; what Hummingbird would log
        // besides (at error level, a cancelled connection on every forced stop) is noise.
        applicationLogger.logLevel = .critical
        let configuration = HTTP1Channel.Configuration(
            additionalChannelHandlers: [
                ControlConnectionHandler(requestHeaderTimeout: requestHeaderTimeout, journal: api.server.journal, logger: logger),
            ]
        )
        return Application(
            router: api.makeRouter(),
            server: HTTPServerBuilder { responder in
                ControlHTTP1Channel(http1: HTTP1Channel(responder: responder, configuration: configuration))
            },
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "mockapns"),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? port) },
            eventLoopGroupProvider: .singleton,
            logger: applicationLogger
        )
    }
}

/// Hummingbird's HTTP/1.1 child channel with two handlers after NIO's request decoder:
/// `AbsoluteFormTargetHandler`, where only it can work (before the conversion to HTTP types
/// drops the host an absolute-form target names), and the shared `HTTP1ProtocolErrorHandler`,
/// so a request NIO's parser refuses gets its 400 with the headers of every other control
/// answer (no framing), and the socket closes, as on the web push listener.
package struct ControlHTTP1Channel: ServerChildChannel {
    package let http1: HTTP1Channel

    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1Channel.Value> {
        http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(AbsoluteFormTargetHandler(), position: .after(decoder))
            try pipeline.addHandler(
                HTTP1ProtocolErrorHandler(answerHeaders: ControlResponseHeadersMiddleware.fields), position: .after(decoder)
            )
            return value
        }
    }

    package func handle(value: HTTP1Channel.Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

/// The first outcome of starting a service that listens, delivered once to whoever waits.
package final class ListeningOutcome: Sendable {
    private let state = Mutex<(result: Result<Int?, any Error>?, waiter: CheckedContinuation<Int?, any Error>?)>((nil, nil))

    package init() {}

    /// Delivers `result` unless an outcome was delivered already; says whether it was.
    @discardableResult
    package func resolve(_ result: Result<Int?, any Error>) -> Bool {
        let (delivered, waiter): (Bool, CheckedContinuation<Int?, any Error>?) = state.withLock { state in
            guard state.result == nil else { return (false, nil) }
            state.result = result
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume(with: result)
        return delivered
    }

    package func value() async throws -> Int? {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<Int?, any Error>? = state.withLock { state in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
