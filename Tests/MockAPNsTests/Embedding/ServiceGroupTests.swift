import Foundation
import Logging
import MockAPNs
import MockAPNsCore
import ServiceLifecycle
import XCTest

/// `MockAPNsServer` as a ServiceLifecycle service: a group starts it, and the group's graceful
/// shutdown stops it the way `shutdown()` does.
final class ServiceGroupTests: XCTestCase {
    func testAServiceGroupStartsTheServerAndItsGracefulShutdownStopsIt() async throws {
        let server = MockAPNsServer(configuration: TestServer.configuration())
        let group = ServiceGroup(services: [server], logger: Logger(label: "test"))
        let running = Task { try await group.run() }

        // The group's run starts the server: wait (bounded) for its ports.
        let deadline = Date().addingTimeInterval(10)
        while server.ports == nil, Date() < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let ports = try XCTUnwrap(server.ports, "the group never started the server")
        let response = try CurlClient(port: ports.http2).send(
            path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")])
        XCTAssertEqual(response.status, 200)

        await group.triggerGracefulShutdown()
        try await running.value
        XCTAssertNil(server.ports, "the server is stopped once the group's run returns")
        XCTAssertThrowsError(
            try CurlClient(port: ports.http2).send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")]),
            "the HTTP/2 port no longer accepts connections"
        )
    }
}
