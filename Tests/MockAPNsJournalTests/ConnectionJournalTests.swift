import MockAPNsCore
import MockAPNsJournal
import XCTest

final class ConnectionJournalTests: XCTestCase {
    private func fault(_ text: String) -> JournalEventKind { .fault(description: text) }

    private func descriptions(_ journal: Journal) -> [String] {
        journal.events().map { event in
            guard case .fault(let description) = event.kind else { return event.kind.name }
            return description
        }
    }

    func testOutsideAReadEventsAreRecordedAtOnce() {
        let journal = Journal()
        let recorder = ConnectionJournal(journal: journal, connectionID: 4)
        recorder.record(fault("timer"), stream: 3)
        let events = journal.events()
        XCTAssertEqual(events.count, 1)
        XCTAssertEqual(events.first?.connectionID, 4)
        XCTAssertEqual(events.first?.streamID, 3)
    }

    func testHeldEventsWaitForTheCommitAndKeepTheirOrderAndStreams() {
        let clock = ServerClock(fixedAt: 1_767_225_600_000)
        let journal = Journal(clock: clock)
        let recorder = ConnectionJournal(journal: journal, connectionID: 9)
        recorder.hold()
        recorder.record(fault("frame in"), stream: 1)
        recorder.record(.legacyFrame(JournalLegacyFrame(command: 2, identifier: 7)), then: fault("notification"), stream: 1)
        clock.advance(milliseconds: 5)
        recorder.record(fault("frame out"), stream: 3)
        XCTAssertEqual(journal.statistics.lastSequence, 0, "nothing is recorded before the commit")

        // Another connection records meanwhile: its event comes first, this connection's stay together.
        journal.record(fault("other connection"), connection: 2)
        recorder.commit()

        XCTAssertEqual(descriptions(journal), ["other connection", "frame in", "legacyFrame", "notification", "frame out"])
        let held = journal.events().dropFirst()
        XCTAssertEqual(held.map(\.sequence), [2, 3, 4, 5])
        XCTAssertEqual(held.map(\.connectionID), [9, 9, 9, 9])
        XCTAssertEqual(held.map(\.streamID), [1, 1, 1, 3])
        XCTAssertEqual(Set(held.map(\.wallTimeMilliseconds)), [1_767_225_600_000], "one read, one moment: its first event's")
        XCTAssertEqual(Set(held.map(\.monotonicNanoseconds)).count, 1)
    }

    /// An answer completed outside the connection's read (a relayed request, its upstream's
    /// answer read on another connection) holds its events until its tick ends; inside a read
    /// the read's hold stands, and its end records them.
    func testAHoldUntilTheTickEndsStartsOnlyWhenNotHolding() {
        let journal = Journal()
        let recorder = ConnectionJournal(journal: journal, connectionID: 4)
        XCTAssertTrue(recorder.holdUnlessHolding())
        XCTAssertFalse(recorder.holdUnlessHolding(), "already holding: the first hold's owner ends it")
        recorder.record(fault("answer"), stream: 1)
        recorder.record(fault("HEADERS out"), stream: 1)
        XCTAssertEqual(journal.statistics.lastSequence, 0)
        recorder.commit()  // the connection's flush, before its bytes go out
        XCTAssertEqual(descriptions(journal), ["answer", "HEADERS out"])
        recorder.record(fault("DATA out"), stream: 1)
        XCTAssertEqual(journal.statistics.lastSequence, 2, "still held until the tick ends")
        recorder.endHolding()
        XCTAssertEqual(descriptions(journal), ["answer", "HEADERS out", "DATA out"])
        recorder.record(fault("timer"), stream: nil)
        XCTAssertEqual(journal.statistics.lastSequence, 4, "after the tick, events are recorded at once again")

        recorder.hold()  // a read
        XCTAssertFalse(recorder.holdUnlessHolding())
        XCTAssertFalse(ConnectionJournal(journal: nil, connectionID: 1).holdUnlessHolding(), "no journal, nothing to hold")
    }

    func testACommitWithinAReadKeepsHoldingUntilTheReadEnds() {
        let journal = Journal()
        let recorder = ConnectionJournal(journal: journal, connectionID: 1)
        recorder.hold()
        recorder.record(fault("answer"))
        recorder.commit()  // a flush: the answer's record goes in before its bytes go out
        XCTAssertEqual(descriptions(journal), ["answer"])
        recorder.record(fault("next request"))
        XCTAssertEqual(journal.statistics.lastSequence, 1, "still holding: the read goes on")
        recorder.endHolding()
        XCTAssertEqual(descriptions(journal), ["answer", "next request"])
        recorder.record(fault("after the read"))
        XCTAssertEqual(journal.statistics.lastSequence, 3, "recorded at once once the read is over")
    }

    func testWaitersAndSinksSeeACommittedRead() async {
        final class Collector: JournalReader, @unchecked Sendable {
            let wantedKinds = JournalEventKind.allBits
            var runs: [[String]] = []
            func read(_ batch: [JournalEvent]) { runs.append(batch.map(\.kind.name)) }
        }
        let journal = Journal()
        let sink = Collector()
        journal.subscribe(sink)
        let recorder = ConnectionJournal(journal: journal, connectionID: 1)
        recorder.hold()
        for index in 0..<70 { recorder.record(fault("\(index)")) }
        async let waited = journal.waitForEvents(count: 70, timeout: .seconds(10)) { _ in true }
        recorder.endHolding()
        let found = await waited
        XCTAssertEqual(found.count, 70)
        XCTAssertEqual(sink.runs.flatMap { $0 }.count, 70, "every held event reaches the sink")
        XCTAssertEqual(sink.runs.count, 1, "in one hand-over, though the lock was taken a slice at a time")
    }
}
