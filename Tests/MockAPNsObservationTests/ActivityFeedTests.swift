import MockAPNsObservation
import MockAPNsWire
import MockAPNsCore
import MockAPNsJournal
import XCTest

/// Without an access log the feed passes on of a notification only what the metrics count
/// by; with one, the whole event the log prints. Other kinds always go whole.
final class ActivityFeedTests: XCTestCase {
    private let notification: JournalEvent = {
        var record = NotificationRecord(
            transport: .http2, deviceToken: "a1b2", topic: "com.example.app", pushType: "alert",
            payload: Array(#"{"aps":{}}"#.utf8), authentication: JournalAuthentication(kind: "providerToken", teamID: "T", keyID: "K"),
            accepted: false, reason: .badDeviceToken, status: 400, responseAPNsID: "id"
        )
        record.handlingMicroseconds = 12
        return JournalEvent(sequence: 3, wallTimeMilliseconds: 1, monotonicNanoseconds: 2, connectionID: 4, streamID: 5,
                            kind: .notification(record))
    }()

    private let opened = JournalEvent(sequence: 2, wallTimeMilliseconds: 1, monotonicNanoseconds: 1, connectionID: 4,
                                      streamID: nil, kind: .connectionOpened(transport: .http2, peer: "127.0.0.1:1"))

    /// A reader that cannot keep up does not let the backlog grow without end: past the high-
    /// water mark the read gate closes (provider connections read more slowly), and taking the
    /// backlog opens it; the file's writer holding the gate keeps it closed all the same.
    func testABacklogPastTheHighWaterMarkClosesTheReadGateUntilItIsTaken() {
        let gate = JournalReadGate()
        let feed = ActivityFeed(keepsWholeNotifications: true, gate: gate, highWater: 100)
        for _ in 0..<99 { feed.receive(notification) }
        XCTAssertTrue(gate.isOpen)
        feed.read([opened, notification])
        XCTAssertFalse(gate.isOpen, "101 items waiting")
        XCTAssertEqual(feed.waiting, 101)
        XCTAssertEqual(feed.drain().count, 101)
        XCTAssertTrue(gate.isOpen)
        XCTAssertEqual(feed.waiting, 0)

        gate.close(.file)
        for _ in 0..<100 { feed.receive(notification) }
        _ = feed.drain()
        XCTAssertFalse(gate.isOpen, "the file's writer still holds it")
        gate.open(.file)
        XCTAssertTrue(gate.isOpen)
        XCTAssertEqual(gate.closedCount, 2)
    }

    /// The reader is woken when half the high-water mark waits, once per crossing, so a burst
    /// that piles up while it rests is taken before the gate has to close; events one at a
    /// time and in batches both count.
    func testABacklogOfHalfTheHighWaterMarkWakesTheReaderOnce() async {
        let gate = JournalReadGate()
        let feed = ActivityFeed(keepsWholeNotifications: true, gate: gate, highWater: 100)
        for _ in 0..<49 { feed.receive(notification) }
        XCTAssertFalse(feed.bell.isRung, "49 waiting: the reader may rest")
        feed.receive(notification)
        XCTAssertTrue(feed.bell.isRung, "50 waiting")
        await feed.bell.wait(timeout: nil)   // returns at once: the ring was kept
        feed.read([opened, notification])
        XCTAssertFalse(feed.bell.isRung, "rung once per crossing, not per event above it")
        XCTAssertTrue(gate.isOpen)

        _ = feed.drain()
        feed.read(Array(repeating: notification, count: 60))
        XCTAssertTrue(feed.bell.isRung, "a batch that crosses the mark rings too")
        XCTAssertTrue(gate.isOpen, "60 of 100")
    }

    func testWithoutAnAccessLogANotificationIsPassedOnAsWhatIsCounted() throws {
        let feed = ActivityFeed(keepsWholeNotifications: false)
        feed.receive(opened)
        feed.receive(notification)
        let items = feed.drain()
        XCTAssertEqual(items.count, 2)
        XCTAssertEqual(items[0], .event(opened))
        guard case .notification(let outcome) = items[1] else { return XCTFail("\(items[1])") }
        XCTAssertEqual(outcome.labels.transport, .http2)
        XCTAssertEqual(outcome.labels.status, 400)
        XCTAssertEqual(outcome.labels.reason, .badDeviceToken)
        XCTAssertEqual(outcome.labels.statusLabel, "400")
        XCTAssertEqual(outcome.handlingMicroseconds, 12)
        XCTAssertEqual(feed.drain(), [])
    }

    /// Through a journal: the readers' kinds reach the feed (diagnoses too: the verdicts read
    /// some), frames and faults never do.
    func testTheJournalHandsTheFeedOnlyTheKindsItsReadersRead() {
        let journal = Journal()
        let feed = ActivityFeed(keepsWholeNotifications: true)
        journal.subscribe(feed)
        journal.record(.connectionOpened(transport: .http2, peer: nil), connection: 1)
        journal.record(.http2Frame(HTTP2FrameRecord(direction: .inbound, type: .ping, flags: 0, streamID: 0, length: 8, details: .ping(opaqueData: [0, 0, 0, 0, 0, 0, 0, 0]))), connection: 1)
        journal.record(.diagnosis(code: .http2StreamError, message: "m"), connection: 1)
        journal.record(.fault(description: "f"), connection: 1)
        journal.record(.connectionClosed(transport: .http2, closedBy: .client, reason: nil), connection: 1)
        let kinds = feed.drain().compactMap { $0.event?.kind.type }
        XCTAssertEqual(kinds, [.connectionOpened, .diagnosis, .connectionClosed])
        XCTAssertEqual(JournalEventKind.Name.allCases.filter(ActivityFeed.wants).count, 9)
    }

    func testWithAnAccessLogTheWholeEventIsPassedOn() {
        let feed = ActivityFeed(keepsWholeNotifications: true)
        feed.receive(notification)
        XCTAssertEqual(feed.drain(), [.event(notification)])
    }
}
