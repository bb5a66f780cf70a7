import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest

/// The provider API's hot path: a push answered as Apple accepts one reaches the journal's
/// readers as a compact record (no box per request), which says what the journal reads back;
/// a refused one is boxed with the answer it got.
final class HTTP2CompactRecordTests: XCTestCase {
    func testAcceptedPushesReachTheReadersCompactAndReadBackWhole() async throws {
        let h2load = try ProcessRunner.locate("h2load")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: h2load), "h2load is not installed (Debian nghttp2-client)")
        let (server, ports) = try await TestServer.start { $0.requiresAuthentication = false }
        let collector = NotificationRecordCollector()
        server.journal.subscribe(collector)
        let payload = Fixtures.temporaryPath("compact-payload.json")
        try Data(#"{"aps":{"alert":"compact"}}"#.utf8).write(to: URL(fileURLWithPath: payload))
        defer { try? FileManager.default.removeItem(atPath: payload) }

        // 300 pushes on one connection, ten at a time: many reads, so many hand-overs.
        let result = try ProcessRunner.run(h2load, [
            "-c", "1", "-n", "300", "-m", "10", "-t", "1",
            "-H", "apns-topic: com.example.app", "-H", "apns-push-type: alert", "-H", "apns-priority: 5",
            "-H", "apns-collapse-id: scores", "-d", payload,
            "https://127.0.0.1:\(ports.http2)/3/device/\(Fixtures.token)",
        ], timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("status codes: 300 2xx"), result.stdout)
        let refusal = try CurlClient(port: ports.http2).send(
            path: "/3/device/not-a-token", headers: [("apns-topic", "com.example.app"), ("apns-push-type", "alert")]
        )
        XCTAssertEqual(refusal.status, 400)
        _ = try await server.waitForNotifications(count: 301, timeout: .seconds(30))
        let handed = await collector.collected(count: 301)
        XCTAssertEqual(handed.count, 301)
        let accepted = handed.filter(\.accepted)
        XCTAssertEqual(accepted.count, 300)
        XCTAssertTrue(accepted.allSatisfy(\.isCompact), "every accepted push is a compact record")
        XCTAssertTrue(accepted.allSatisfy { $0.deviceToken == Fixtures.token && $0.collapseID == "scores" && $0.priority == 5 })
        XCTAssertEqual(Set(accepted.compactMap(\.responseAPNsID)).count, 300, "each with the id its answer carried")
        let refused = try XCTUnwrap(handed.first { !$0.accepted })
        XCTAssertFalse(refused.isCompact, "a refusal carries its reason, in a box")
        XCTAssertEqual(refused.reason, .badDeviceToken)

        // What the journal packed reads back as what the readers got.
        let stored = server.journal.notifications()
        XCTAssertEqual(stored.count, 301)
        for (read, given) in zip(stored, handed) {
            XCTAssertEqual(read.deviceToken, given.deviceToken)
            XCTAssertEqual(read.payload, given.payload)
            XCTAssertEqual(read.topic, given.topic)
            XCTAssertEqual(read.pushType, given.pushType)
            XCTAssertEqual(read.priority, given.priority)
            XCTAssertEqual(read.collapseID, given.collapseID)
            XCTAssertEqual(read.payloadIsJSON, given.payloadIsJSON)
            XCTAssertEqual(read.handlingMicroseconds, given.handlingMicroseconds)
            XCTAssertEqual(read.authentication, given.authentication)
            XCTAssertEqual(read.answer, given.answer)
            XCTAssertEqual(read.environment, given.environment)
        }
        XCTAssertEqual(stored.first?.payloadText, #"{"aps":{"alert":"compact"}}"#)
        XCTAssertEqual(stored.first?.status, 200)
        server.journal.unsubscribe(collector)
        collector.finish()
        try await server.shutdown()
    }
}
