import MockAPNsCore
import MockAPNsJournal
import XCTest

/// A record is a value: its box is shared by its copies, and a change to one copy (a box of
/// its own) is seen by that copy alone; a record made with everything at once reads back what
/// it was given.
final class NotificationRecordTests: XCTestCase {
    private func record() -> NotificationRecord {
        NotificationRecord(
            transport: .legacy, deviceToken: "ab12", topic: "com.example.app", priority: 10, expiration: 1_700_000_000,
            legacyIdentifier: 7, legacyCommand: 2, payload: Array(#"{"aps":{}}"#.utf8), payloadLength: 40,
            payloadIsJSON: true, authentication: JournalAuthentication(kind: "certificate"),
            answer: SentAnswer(accepted: true), problem: "none", handlingMicroseconds: 12, environment: .production,
            connectionID: 3, streamID: 5, sequence: 9, wallTimeMilliseconds: 1234
        )
    }

    func testARecordMadeAtOnceReadsBackWhatItWasGiven() {
        let made = record()
        XCTAssertEqual(made.deviceToken, "ab12")
        XCTAssertEqual(made.topic, "com.example.app")
        XCTAssertEqual(made.priority, 10)
        XCTAssertEqual(made.expiration, 1_700_000_000)
        XCTAssertEqual(made.legacyIdentifier, 7)
        XCTAssertEqual(made.legacyCommand, 2)
        XCTAssertEqual(made.payload, Array(#"{"aps":{}}"#.utf8))
        XCTAssertEqual(made.payloadLength, 40, "the true length, not the kept bytes'")
        XCTAssertEqual(made.problem, "none")
        XCTAssertEqual(made.handlingMicroseconds, 12)
        XCTAssertEqual(made.environment, .production)
        XCTAssertEqual(made.connectionID, 3)
        XCTAssertEqual(made.streamID, 5)
        XCTAssertEqual(made.sequence, 9)
        XCTAssertEqual(made.wallTimeMilliseconds, 1234)
        XCTAssertTrue(made.accepted)
    }

    func testChangingACopyLeavesTheOriginal() {
        let original = record()
        var changed = original
        changed.deviceToken = "cd34"
        changed.accepted = false
        changed.payload = [1, 2, 3]
        XCTAssertEqual(original.deviceToken, "ab12")
        XCTAssertTrue(original.accepted)
        XCTAssertEqual(original.payload, Array(#"{"aps":{}}"#.utf8))
        XCTAssertEqual(changed.deviceToken, "cd34")
        XCTAssertFalse(changed.accepted)
        XCTAssertEqual(changed.payload, [1, 2, 3])
        XCTAssertNotEqual(original, changed)
        XCTAssertEqual(original, record(), "records compare by what they hold")
    }
}
