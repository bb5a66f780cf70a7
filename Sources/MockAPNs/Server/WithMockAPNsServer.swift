import Logging

/// Runs `body` with a started MockAPNs server and the ports it bound, and shuts the server
/// down afterwards, whether `body` returns, throws or is cancelled: the scoped form a test wants.
///
/// ```swift
/// @Test func tellsTheAppWhenItsTokenIsGone() async throws {
///     try await withMockAPNsServer(MockAPNsConfiguration()) { server, ports in
///         // ... push to https://127.0.0.1:\(ports.http2), then assert on server.notifications()
///     }
/// }
/// ```
///
/// - Parameters:
///   - configuration: the server's configuration; by default every listener on a free port,
///     with development credentials.
///   - logger: where the server says what it does; by default nowhere.
///   - isolation: the actor `body` runs on: the caller's, so a test's state needs no hopping.
///   - body: the test, given the server and the ports it bound (`server.ports` while it runs).
/// - Returns: what `body` returns.
/// - Throws: what `start()` throws (the server is then already stopped), what `body` throws,
///   or what the shutdown throws.
public func withMockAPNsServer<Result>(
    _ configuration: MockAPNsConfiguration = MockAPNsConfiguration(),
    logger: Logger = Logger(label: "mockapns", factory: { _ in SwiftLogNoOpLogHandler() }),
    isolation: isolated (any Actor)? = #isolation,
    _ body: (MockAPNsServer, BoundPorts) async throws -> Result
) async throws -> Result {
    let server = MockAPNsServer(configuration: configuration, logger: logger)
    let ports = try await server.start()
    let result: Result
    do {
        result = try await body(server, ports)
    } catch {
        try? await server.shutdown()
        throw error
    }
    try await server.shutdown()
    return result
}
