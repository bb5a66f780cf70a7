import ServiceLifecycle

/// A server is a ServiceLifecycle `Service`, so it runs in a `ServiceGroup` beside the
/// application's other services (a Hummingbird app, say) and stops with them:
///
/// ```swift
/// let server = MockAPNsServer(configuration: configuration)
/// let group = ServiceGroup(services: [server, app], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
extension MockAPNsServer: Service {
    /// Starts the server (unless it already runs), waits for the group's graceful shutdown
    /// (or cancellation), then shuts it down in its usual order (see `shutdown()`).
    public func run() async throws {
        if ports == nil { try await start() }
        // Ends when graceful shutdown begins; throws if the task is cancelled first.
        try? await gracefulShutdown()
        try await shutdown()
    }
}
