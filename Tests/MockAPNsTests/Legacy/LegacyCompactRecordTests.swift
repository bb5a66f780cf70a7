import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest

/// The gateway's hot path: an accepted notification reaches the journal's readers as a compact
/// record (its payload in the connection's arena, nothing boxed), which says what the journal
/// reads back; a refused one is boxed with the answer it got.
final class LegacyCompactRecordTests: XCTestCase {
    func testAcceptedNotificationsReachTheReadersCompactAndReadBackWhole() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        let collector = NotificationRecordCollector()
        server.journal.subscribe(collector)
        let badToken = Legacy.token(0xBD)
        server.registry.markUnregistered(Legacy.hex(badToken), since: 1_700_000_000_000)

        var stream: [UInt8] = []
        for identifier in UInt32(1)...20 {
            stream += Legacy.frame(identifier: identifier, token: identifier == 20 ? badToken : Legacy.token(UInt8(identifier)))
        }
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: stream)
        XCTAssertEqual(outcome.received, [8, 8, 0, 0, 0, 20], "status 8 for the last")
        _ = try await server.waitForNotifications(count: 20, timeout: .seconds(30))
        let handed = await collector.collected(count: 20)
        XCTAssertEqual(handed.count, 20)
        let accepted = handed.filter(\.accepted)
        XCTAssertEqual(accepted.count, 19)
        XCTAssertTrue(accepted.allSatisfy(\.isCompact), "every accepted notification is a compact record")
        XCTAssertEqual(accepted.map(\.legacyIdentifier), (1...19).map { Optional(UInt32($0)) })
        XCTAssertEqual(accepted.map(\.deviceToken), (1...19).map { Legacy.hex(Legacy.token(UInt8($0))) })
        let refused = try XCTUnwrap(handed.last)
        XCTAssertFalse(refused.isCompact, "a refusal carries its packet, in a box")
        XCTAssertEqual(refused.legacyStatus, .invalidToken)

        // What the journal packed reads back as what the readers got.
        let stored = server.journal.notifications()
        XCTAssertEqual(stored.count, 20)
        for (read, given) in zip(stored, handed) {
            XCTAssertEqual(read.deviceToken, given.deviceToken)
            XCTAssertEqual(read.payload, given.payload)
            XCTAssertEqual(read.topic, given.topic)
            XCTAssertEqual(read.pushType, given.pushType)
            XCTAssertEqual(read.legacyIdentifier, given.legacyIdentifier)
            XCTAssertEqual(read.expiration, given.expiration)
            XCTAssertEqual(read.priority, given.priority)
            XCTAssertEqual(read.authentication, given.authentication)
            XCTAssertEqual(read.answer, given.answer)
            XCTAssertEqual(read.environment, given.environment)
        }
        XCTAssertEqual(stored.first?.topic, "com.example.app")
        XCTAssertFalse(stored.first?.payload.isEmpty ?? true)
        server.journal.unsubscribe(collector)
        collector.finish()
        try await server.shutdown()
    }
}
