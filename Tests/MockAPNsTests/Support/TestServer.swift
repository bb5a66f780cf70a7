import Foundation
import MockAPNs
import MockAPNsCore

/// Starts a real MockAPNs server on an ephemeral port with the committed certs-dev/.
enum TestServer {
    /// Every listener on an ephemeral port, the committed certificates, one event loop; then `adjust`.
    static func configuration(_ adjust: (inout MockAPNsConfiguration) -> Void = { _ in }) -> MockAPNsConfiguration {
        var configuration = MockAPNsConfiguration()
        configuration.http2Port = 0
        configuration.legacy.gatewayPort = 0
        configuration.legacy.feedbackPort = 0
        configuration.certificateDirectory = Fixtures.certificateDirectory
        configuration.eventLoopThreads = 1
        adjust(&configuration)
        return configuration
    }

    static func start(_ adjust: (inout MockAPNsConfiguration) -> Void = { _ in }) async throws -> (MockAPNsServer, BoundPorts) {
        let server = MockAPNsServer(configuration: configuration(adjust))
        let ports = try await server.start()
        return (server, ports)
    }
}
