import MockAPNsCore
import MockAPNsJournal
import XCTest

/// `Journal.tail` (what a dashboard stream shows when it opens).
final class JournalTailTests: XCTestCase {
    private let fault = JournalEventKind.fault(description: "x")
    private let diagnosis = JournalEventKind.diagnosis(code: .http2StreamError, message: "m")

    func testTakesTheNewestWantedEventsAndCountsThePassedOver() {
        let journal = Journal()
        for _ in 1...7 { journal.record(fault, connection: 1) }
        let tail = journal.tail(after: 0, kinds: JournalEventKind.allBits, limit: 3)
        XCTAssertEqual(tail.events.map(\.sequence), [5, 6, 7])
        XCTAssertEqual(tail.skipped, 4)
        XCTAssertEqual(tail.lastSequence, 7)
        journal.record(fault, connection: 1)
        let next = journal.tail(after: tail.lastSequence, kinds: JournalEventKind.allBits, limit: 3)
        XCTAssertEqual(next.events.map(\.sequence), [8])
        XCTAssertEqual(next.skipped, 0)
    }

    func testOnlyWantedKindsAreTakenOrCounted() {
        let journal = Journal()
        journal.record(fault)
        journal.record(diagnosis)
        journal.record(fault)
        journal.record(diagnosis)
        journal.record(diagnosis)
        let tail = journal.tail(after: 0, kinds: diagnosis.bit, limit: 2)
        XCTAssertEqual(tail.events.map(\.sequence), [4, 5])
        XCTAssertEqual(tail.skipped, 1, "one older diagnosis; the faults are not counted")
        XCTAssertEqual(tail.lastSequence, 5)
    }

    func testEventsPushedOutOfAFullJournalCountAsSkipped() {
        let journal = Journal(options: JournalOptions(capacity: 3))
        for _ in 1...10 { journal.record(fault) }
        let tail = journal.tail(after: 2, kinds: JournalEventKind.allBits, limit: 100)
        XCTAssertEqual(tail.events.map(\.sequence), [8, 9, 10])
        XCTAssertEqual(tail.skipped, 5, "events 3…7 were gone before this look")
    }

    /// A reset or `DELETE /v1/journal` forgets events on purpose: a reader that opens
    /// afterwards (a dashboard starting from 0) has missed nothing it could have read.
    func testEventsAClearForgotAreNotSkipped() {
        let journal = Journal()
        for _ in 1...6 { journal.record(fault) }
        journal.clear()
        journal.record(fault)
        let tail = journal.tail(after: 0, kinds: JournalEventKind.allBits, limit: 100)
        XCTAssertEqual(tail.events.map(\.sequence), [7])
        XCTAssertEqual(tail.skipped, 0)
    }

    func testEventsPushedOutAfterAClearStillCountAsSkipped() {
        let journal = Journal(options: JournalOptions(capacity: 3))
        for _ in 1...4 { journal.record(fault) }
        journal.clear()
        for _ in 5...10 { journal.record(fault) }
        let fromStart = journal.tail(after: 0, kinds: JournalEventKind.allBits, limit: 100)
        XCTAssertEqual(fromStart.events.map(\.sequence), [8, 9, 10])
        XCTAssertEqual(fromStart.skipped, 3, "events 5…7 were pushed out; 1…4 were cleared")
        let fromSix = journal.tail(after: 6, kinds: JournalEventKind.allBits, limit: 100)
        XCTAssertEqual(fromSix.skipped, 1, "only event 7 was pushed out after the reader's place")
    }

    func testALookPastTheNewestFindsNothing() {
        let journal = Journal()
        journal.record(fault)
        let tail = journal.tail(after: .max, kinds: JournalEventKind.allBits, limit: 10)
        XCTAssertTrue(tail.events.isEmpty)
        XCTAssertEqual(tail.skipped, 0)
    }
}
