import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsTestSupport
import XCTest

/// A provider whose every stream is reset (its token is empty, so it sends `authorization:
/// bearer ` with a trailing space, a value HTTP/2 forbids): the log says so once with a count,
/// not once a stream, and the readers beside the server keep nothing per refused request.
final class RefusedStreamsTests: XCTestCase {
    func testResetStreamsAreLoggedOnceWithACountAndLeaveTheReadersNothing() async throws {
        let h2load = try ProcessRunner.locate("h2load")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: h2load), "h2load is not installed (Debian nghttp2-client)")
        let logs = CapturedLogs()
        // A window longer than the run: the count is said at shutdown.
        let (server, ports) = try await LegacyTestServer.start(logger: logs.logger()) { $0.http2.refusalNoticeWindow = .seconds(600) }
        let payload = Fixtures.temporaryPath("refused.json")
        try Data(#"{"aps":{"alert":"refused"}}"#.utf8).write(to: URL(fileURLWithPath: payload))
        defer { try? FileManager.default.removeItem(atPath: payload) }

        let result = try ProcessRunner.run(h2load, [
            // One stream at a time: a token connection allows one until a token is good, so
            // more would also be refused past the stream limit.
            "-n", "2000", "-c", "2", "-m", "1", "-t", "1", "-d", payload,
            "-H", "apns-topic: com.example.app", "-H", "authorization: bearer ",
            "https://127.0.0.1:\(ports.http2)/3/device/\(Fixtures.token)",
        ], timeout: 120)
        XCTAssertTrue(result.stdout.contains("2000 total"), result.stdout + result.stderr)
        let records = try await server.waitForNotifications(count: 2000, timeout: .seconds(30))
        XCTAssertEqual(records.count, 2000, "every reset stream has its record")
        XCTAssertTrue(records.allSatisfy { $0.dropped && $0.status == nil })

        // Both connections closed: the readers forget them, and the judge keeps one notification
        // sent again and again, not a finding or a delay per attempt.
        var counts = await server.readerStateCounts()
        let deadline = ContinuousClock.now + .seconds(20)
        while counts.metricsConnections > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            counts = await server.readerStateCounts()
        }
        XCTAssertEqual(counts.metricsConnections, 0)
        XCTAssertEqual(counts.accessLogConnections ?? 0, 0)
        let judge = try XCTUnwrap(counts.judge)
        XCTAssertEqual(judge.chains, 1)
        XCTAssertEqual(judge.pendingFindings, 0)
        XCTAssertLessThanOrEqual(judge.connections, 2)
        XCTAssertLessThanOrEqual(judge.chainDelays, 2_000 + 3)

        try await server.shutdown()
        let resets = logs.messages.filter { $0.contains("reset: ") }
        XCTAssertEqual(resets.count, 1, "the first reset is logged whole: \(resets.prefix(3))")
        let summaries = logs.messages.filter { $0.contains("more streams refused") }
        XCTAssertEqual(summaries.count, 1, "\(summaries)")
        XCTAssertTrue(summaries.first?.contains("1999 more streams refused") ?? false, "\(summaries)")
        XCTAssertTrue(summaries.first?.contains("1999 reset") ?? false, "\(summaries)")
        XCTAssertLessThan(logs.messages.count, 50, "the log does not grow with the refused streams")
    }
}
