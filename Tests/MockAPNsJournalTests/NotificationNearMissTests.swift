import MockAPNsCore
import XCTest
@testable import MockAPNsJournal

/// A failed wait's near misses: the notifications its filter almost matched, ranked, each with
/// the conditions it failed, from the same checks the filter matches with.
final class NotificationNearMissTests: XCTestCase {
    private func record(
        token: String = "aa11", topic: String = "com.example.app", pushType: String? = "alert", priority: Int? = 10,
        status: Int = 200, payload: String = #"{"aps":{"alert":{"title":"Hi"}}}"#
    ) -> JournalEventKind {
        .notification(NotificationRecord(
            transport: .http2, deviceToken: token, topic: topic, pushType: pushType, priority: priority, payload: Array(payload.utf8),
            authentication: JournalAuthentication(kind: "certificate"), accepted: status == 200,
            reason: status == 410 ? .unregistered : nil, status: status
        ))
    }

    func testEachConditionSaysWhatItExpectedAndWhatItFound() {
        let filter = NotificationFilter(
            deviceToken: "AA11", topic: "com.example.other", status: 410, pushType: "background", priority: 5,
            payloadPath: "aps.alert.title", payloadValue: "Bye"
        )
        let journal = Journal()
        journal.record(record())
        let miss = try? XCTUnwrap(journal.notifications().first)
        guard let miss else { return }
        XCTAssertEqual(filter.differences(from: miss).map(\.description), [
            "topic: expected com.example.other, got com.example.app",
            "pushType: expected background, got alert",
            "priority: expected 5, got 10",
            "status: expected 410, got 200",
            "payload: expected aps.alert.title = Bye, got aps.alert.title = Hi",
        ], "the token matches without regard to case, so it is not a difference")
    }

    func testAnAbsentPayloadPathAndAFieldNeverSentAreNamed() {
        let journal = Journal()
        journal.record(record(priority: nil, payload: #"{"aps":{}}"#))
        let filter = NotificationFilter(priority: 10, payloadPath: "aps.alert.title")
        guard let record = journal.notifications().first else { return XCTFail("no record") }
        XCTAssertEqual(filter.differences(from: record).map(\.description), [
            "priority: expected 10, got none", "payload: expected aps.alert.title present, got aps.alert.title absent",
        ])
        XCTAssertFalse(filter.matches(record))
        XCTAssertTrue(NotificationFilter(payloadPath: "aps").matches(record))
    }

    func testNumbersInThePayloadCompareAsTheirText() {
        let journal = Journal()
        journal.record(record(payload: #"{"aps":{"badge":5}}"#))
        guard let record = journal.notifications().first else { return XCTFail("no record") }
        XCTAssertTrue(NotificationFilter(payloadPath: "aps.badge", payloadValue: "5").matches(record))
        XCTAssertFalse(NotificationFilter(payloadPath: "aps.badge", payloadValue: "6").matches(record))
    }

    /// Fewest failed conditions first, the newest first among equals, at most five; the
    /// notifications that matched are not near misses.
    func testNearMissesAreRankedAndBounded() async {
        let journal = Journal()
        journal.record(record(token: "bb22", topic: "com.example.other", status: 200))   // 1: token, topic, status
        journal.record(record(token: "aa11", status: 200))                                // 2: status
        journal.record(record(token: "cc33", status: 410))                                // 3: token
        for _ in 0..<6 { journal.record(record(token: "dd44", topic: "x", pushType: "background", status: 200)) } // 4-9: four each
        journal.record(record(token: "aa11", status: 410))                                // 10: matches
        let filter = NotificationFilter(deviceToken: "aa11", topic: "com.example.app", status: 410, pushType: "alert")
        do {
            let found = try await journal.waitForNotifications(count: 2, matching: filter, timeout: .milliseconds(50))
            XCTFail("2 were waited for and 1 matches, yet the wait returned \(found.count)")
        } catch {
            XCTAssertEqual(error.found.map(\.sequence), [10])
            XCTAssertEqual(error.nearMisses.map(\.record.sequence), [3, 2, 1, 9, 8])
            XCTAssertEqual(error.nearMisses.map(\.differences.count), [1, 1, 3, 4, 4])
            XCTAssertEqual(error.nearMisses.first?.differences.map(\.condition), ["token"])
            XCTAssertTrue(error.description.contains("#3 token cc33"), error.description)
            XCTAssertTrue(error.description.contains("token: expected aa11, got cc33"), error.description)
        }
    }

    func testNearMissesLookOnlyAfterTheWaitsSequence() {
        let journal = Journal()
        journal.record(record(status: 200))
        journal.record(record(status: 200))
        let misses = journal.nearMisses(for: NotificationFilter(status: 410, afterSequence: 1))
        XCTAssertEqual(misses.map(\.record.sequence), [2])
    }
}
