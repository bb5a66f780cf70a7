import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A thousand TLS connections at once, each pushing, by h2load: every request is answered,
/// every notification journaled, and every descriptor released afterwards.
final class LoadTests: XCTestCase {
    func testAThousandConcurrentConnectionsAreServedAndReleased() async throws {
        let h2load = try ProcessRunner.locate("h2load")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: h2load), "h2load is not installed (Debian nghttp2-client)")
        var limit = rlimit()
        XCTAssertEqual(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit), 0)
        try XCTSkipIf(limit.rlim_max < 2500, "the hard open-file limit (\(limit.rlim_max)) cannot hold 1,000 connections on both sides")
        let (server, ports) = try await TestServer.start { configuration in
            configuration.requiresAuthentication = false
            configuration.recordsFrames = false
        }
        let payload = Fixtures.temporaryPath("payload.json")
        try Data(#"{"aps":{"alert":"load"}}"#.utf8).write(to: URL(fileURLWithPath: payload))
        defer { try? FileManager.default.removeItem(atPath: payload) }
        let result = try ProcessRunner.run(h2load, [
            "-c", "1000", "-n", "2000", "-m", "1", "-t", "2",
            "-H", "apns-topic: com.example.app", "-H", "apns-push-type: alert", "-d", payload,
            "https://127.0.0.1:\(ports.http2)/3/device/\(Fixtures.token)",
        ], timeout: 240)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("2000 succeeded"), result.stdout)
        XCTAssertTrue(result.stdout.contains("status codes: 2000 2xx"), result.stdout)
        let recorded = try await server.waitForNotifications(count: 2000, matching: NotificationFilter(status: 200), timeout: .seconds(30))
        XCTAssertEqual(recorded.count, 2000)
        let opened = server.journal.events(matching: JournalEventFilter(kinds: ["connectionOpened"])).count
        XCTAssertGreaterThanOrEqual(opened, 1000)

        // Every connection's descriptor is released (a thousand close asynchronously; the wait
        // names any still open when it gives up).
        try await OpenDescriptors.waitForOnlyListeners(on: ports.all, timeout: .seconds(120))
        try await server.shutdown()
    }
}
