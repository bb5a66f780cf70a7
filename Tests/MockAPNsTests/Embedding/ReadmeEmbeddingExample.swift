// The README's embedding example ("Swift: a server inside your tests"), character for
// character between the markers; ReadmeEmbeddingExampleTests fails when the two differ.
// It runs with the package root as the working directory, as `swift test` sets it.
// README example begins
import Foundation
import MockAPNs
import Testing

@Test func tellsTheAppWhenItsTokenIsGone() async throws {
    // Every listener on a free port; development credentials found or generated on first start.
    // The server is shut down when the closure ends, whether it returns or throws.
    try await withMockAPNsServer(MockAPNsConfiguration()) { server, ports in
        let credentials = server.developmentCredentials   // the CA and client files for your client
        let token = String(repeating: "a1b2c3d4", count: 8)
        server.registry.markUnregistered(token, since: 1_767_225_600_000)

        // Your provider code pushes here; any HTTP/2 client works, curl keeps this self-contained.
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = [
            "--http2", "-s", "-o", "/dev/null", "--cacert", credentials.caCertificatePath,
            "--cert", credentials.clientCertificatePath(for: .sandbox), "--key", credentials.clientKeyPath(for: .sandbox),
            "-H", "apns-topic: com.example.app", "-H", "apns-push-type: alert",
            "-d", #"{"aps":{"alert":"hello"}}"#, "https://127.0.0.1:\(ports.http2)/3/device/\(token)",
        ]
        try curl.run()
        curl.waitUntilExit()

        let pushes = try await server.waitForNotifications(
            count: 1, matching: NotificationFilter(deviceToken: token), timeout: .seconds(5))
        #expect(pushes.first?.status == 410)
        #expect(pushes.first?.reason == .unregistered)
        #expect(pushes.first?.payloadText?.contains("\"alert\"") == true)
    }
}
// README example ends
