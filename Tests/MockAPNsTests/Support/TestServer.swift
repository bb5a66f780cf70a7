import Foundation
import MockAPNs
import MockAPNsCore

/// Starts a real MockAPNs server on an ephemeral port with the committed certs-dev/.
enum TestServer {
    static func start(_ adjust: (inout MockAPNsConfiguration) -> Void = { _ in }) async throws -> (MockAPNsServer, BoundPorts) {
        var configuration = MockAPNsConfiguration()
        configuration.http2Port = 0
        configuration.legacy.gatewayPort = 0
        configuration.legacy.feedbackPort = 0
        configuration.certificateDirectory = Fixtures.certificateDirectory
        configuration.eventLoopThreads = 1
        adjust(&configuration)
        let server = MockAPNsServer(configuration: configuration)
        let ports = try await server.start()
        return (server, ports)
    }
}
