import MockAPNsObservation
import MockAPNsWire
import MockAPNsCore
import MockAPNsJournal
import XCTest

/// The feed keeps the journal's batches as they come and passes on, in order, their events of
/// the kinds its readers read; a backlog wakes the reader, and past the high-water mark closes
/// the read gate until it is taken.
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
        let feed = ActivityFeed(gate: gate, highWater: 100)
        for _ in 0..<99 { feed.read([notification]) }
        XCTAssertTrue(gate.isOpen)
        feed.read([opened, notification])
        XCTAssertFalse(gate.isOpen, "101 items waiting")
        XCTAssertEqual(feed.waiting, 101)
        XCTAssertEqual(feed.drain().count, 101)
        XCTAssertTrue(gate.isOpen)
        XCTAssertEqual(feed.waiting, 0)

        gate.close(.file)
        for _ in 0..<100 { feed.read([notification]) }
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
        let feed = ActivityFeed(gate: gate, highWater: 100)
        for _ in 0..<49 { feed.read([notification]) }
        XCTAssertFalse(feed.bell.isRung, "49 waiting: the reader may rest")
        feed.read([notification])
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

    /// A batch that also holds kinds no reader of the feed reads (frames, when a journal file
    /// wants them) is kept whole, and passes on only the feed's kinds, in order; those alone
    /// count toward the backlog.
    func testABatchIsKeptWholeAndPassesOnOnlyTheFeedsKindsInOrder() {
        let gate = JournalReadGate()
        let feed = ActivityFeed(gate: gate, highWater: 3)
        let frame = JournalEvent(
            sequence: 2, wallTimeMilliseconds: 1, monotonicNanoseconds: 1, connectionID: 4, streamID: 0,
            kind: .http2Frame(HTTP2FrameRecord(direction: .inbound, type: .ping, flags: 0, streamID: 0, length: 8,
                                               details: .ping(opaqueData: [0, 0, 0, 0, 0, 0, 0, 0])))
        )
        feed.read([frame, frame])
        XCTAssertEqual(feed.waiting, 0, "a batch of frames only is not kept")
        feed.read([opened, frame, frame, notification])
        feed.read([frame, notification])
        XCTAssertEqual(feed.waiting, 3)
        XCTAssertFalse(gate.isOpen, "three events of the feed's kinds reach the mark; the frames do not count")
        let events = feed.drain()
        XCTAssertEqual(events.count, 3)
        XCTAssertEqual(Array(events), [opened, notification, notification])
        XCTAssertTrue(gate.isOpen)
        XCTAssertEqual(Array(feed.drain()), [])
    }

    /// Through a journal: the readers' kinds reach the feed (diagnoses too: the verdicts read
    /// some), frames and faults never do.
    func testTheJournalHandsTheFeedOnlyTheKindsItsReadersRead() {
        let journal = Journal()
        let feed = ActivityFeed()
        journal.subscribe(feed)
        journal.record(.connectionOpened(transport: .http2, peer: nil), connection: 1)
        journal.record(.http2Frame(HTTP2FrameRecord(direction: .inbound, type: .ping, flags: 0, streamID: 0, length: 8, details: .ping(opaqueData: [0, 0, 0, 0, 0, 0, 0, 0]))), connection: 1)
        journal.record(.diagnosis(code: .http2StreamError, message: "m"), connection: 1)
        journal.record(.fault(description: "f"), connection: 1)
        journal.record(.connectionClosed(transport: .http2, closedBy: .client, reason: nil), connection: 1)
        let kinds = feed.drain().map(\.kind.type)
        XCTAssertEqual(kinds, [.connectionOpened, .diagnosis, .connectionClosed])
        XCTAssertEqual(JournalEventKind.Name.allCases.filter(ActivityFeed.wants).count, 9)
    }
}
