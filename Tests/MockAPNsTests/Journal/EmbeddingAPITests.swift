import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import Testing

/// The embedding API as a Swift Testing user writes it: start, push, wait, assert, stop.
@Suite struct EmbeddingAPITests {
    @Test func waitReturnsTheNotificationsAProviderSentWithTheirVerdicts() async throws {
        var configuration = MockAPNsConfiguration()
        configuration.http2Port = 0
        configuration.legacy.gatewayPort = 0
        configuration.legacy.feedbackPort = 0
        configuration.certificateDirectory = Fixtures.certificateDirectory
        let server = MockAPNsServer(configuration: configuration)
        let ports = try await server.start()
        server.registry.markUnregistered(Fixtures.token, since: 1_700_000_000_000)

        let client = CurlClient(port: ports.http2, caPath: server.caCertificatePath, certificate: "sandbox")
        let other = String(repeating: "0f", count: 32)
        _ = try client.send(path: "/3/device/\(other)", headers: [("apns-topic", "com.example.app"), ("apns-push-type", "alert")])
        _ = try client.send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app"), ("apns-push-type", "alert")])

        let gone = try await server.waitForNotifications(count: 1, matching: NotificationFilter(deviceToken: Fixtures.token), timeout: .seconds(10))
        #expect(gone.count == 1)
        #expect(gone.first?.status == 410)
        #expect(gone.first?.reason == .unregistered)
        #expect(gone.first?.timestamp == 1_700_000_000_000)
        #expect(gone.first?.topic == "com.example.app")

        let delivered = server.notifications(matching: NotificationFilter(accepted: true))
        #expect(delivered.map(\.deviceToken) == [other])
        #expect(delivered.first?.responseAPNsID != nil)
        #expect(server.journal.statistics.dropped == 0)
        try await server.shutdown()
    }

    @Test func waitReturnsAsSoonAsTheLastNotificationArrivesNotAtTheTimeout() async throws {
        let (server, ports) = try await TestServer.start()
        let started = ContinuousClock.now
        async let waited = server.waitForNotifications(count: 2, timeout: .seconds(60))
        try await waitUntil("the wait to park") { server.journal.waitingReaders > 0 }
        let client = CurlClient(port: ports.http2)
        _ = try client.send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")])
        _ = try client.send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")])
        let records = try await waited
        #expect(records.count == 2)
        #expect(ContinuousClock.now - started < .seconds(20))
        try await server.shutdown()
    }
}
