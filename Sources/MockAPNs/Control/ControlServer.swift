import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// Runs the control API (a Hummingbird application) beside the APNs listeners, on the
/// server's event loops, and stops it with the server.
final class ControlServer: Sendable {
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Binds `host:port` and serves `api` until `stop()`. Returns the bound port, or throws
    /// when the address cannot be bound.
    /// Every connection gets `requestHeaderTimeout` for each request's header block.
    func start(
        api: ControlAPI, host: String, port: Int, requestHeaderTimeout: TimeAmount,
        group: any EventLoopGroup, logger: Logger
    ) async throws -> Int {
        let bound = BindOutcome()
        var appLogger = logger
        appLogger[metadataKey: "listener"] = "control"
        // Stopping is a cancellation, which Hummingbird reports at error level on every
        // shutdown. Failures to bind are thrown, not logged, so nothing of use is lost.
        appLogger.logLevel = .critical
        let journal = api.server.journal
        let application = Application(
            router: api.makeRouter(),
            server: .http1(configuration: HTTP1Channel.Configuration(
                additionalChannelHandlers: [
                    ControlConnectionHandler(requestHeaderTimeout: requestHeaderTimeout, journal: journal, logger: logger),
                ]
            )),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "mockapns"),
            onServerRunning: { channel in bound.resolve(.success(channel.localAddress?.port ?? port)) },
            eventLoopGroupProvider: .shared(group),
            logger: appLogger
        )
        let running = Task {
            do {
                try await application.run()
            } catch {
                bound.resolve(.failure(error))
            }
            // Stopped before it ever listened (cancelled early): nobody must wait forever.
            bound.resolve(.failure(CancellationError()))
        }
        task.withLock { $0 = running }
        return try await bound.value()
    }

    /// Stops serving; in-flight requests (long polls included) are cancelled.
    func stop() async {
        let running = task.withLock { task in
            defer { task = nil }
            return task
        }
        running?.cancel()
        await running?.value
    }
}

/// The first outcome of binding, delivered once to whoever waits for it.
private final class BindOutcome: Sendable {
    private let state = Mutex<(result: Result<Int, any Error>?, waiter: CheckedContinuation<Int, any Error>?)>((nil, nil))

    func resolve(_ result: Result<Int, any Error>) {
        let waiter: CheckedContinuation<Int, any Error>? = state.withLock { state in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
    }

    func value() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<Int, any Error>? = state.withLock { state in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
