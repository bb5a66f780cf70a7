import MockAPNsControl
import MockAPNsCore
import MockAPNsJournal
import XCTest

/// The reader a dashboard stream subscribes: what the journal pushes it, what it keeps when
/// the stream falls behind, and what it says it passed over.
final class JournalStreamReaderTests: XCTestCase {
    private func fault(_ sequence: UInt64) -> JournalEvent {
        JournalEvent(sequence: sequence, wallTimeMilliseconds: 1, monotonicNanoseconds: 1, connectionID: nil, streamID: nil,
                     kind: .fault(description: "fault \(sequence)"))
    }

    private func feedbackTuple(_ sequence: UInt64) -> JournalEvent {
        JournalEvent(sequence: sequence, wallTimeMilliseconds: 1, monotonicNanoseconds: 1, connectionID: 1, streamID: nil,
                     kind: .feedbackTuple(deviceToken: "ab", timestampMilliseconds: 0))
    }

    func testAStreamThatFallsBehindKeepsTheNewestAndCountsTheRest() {
        let reader = JournalStreamReader(wantedKinds: JournalEventKind.bits(.fault), capacity: 2)
        reader.start(after: 0)
        reader.read((1...5).map(fault))
        reader.read((6...7).map(feedbackTuple))
        let taken = reader.take()
        XCTAssertEqual(taken.events.map(\.sequence), [4, 5], "the newest two of its kind")
        XCTAssertEqual(taken.skipped, 3)
        let again = reader.take()
        XCTAssertEqual(again.events.map(\.sequence), [])
        XCTAssertEqual(again.skipped, 0, "told once")
    }

    func testABurstIsBoundedWhileItWaits() {
        let reader = JournalStreamReader(wantedKinds: JournalEventKind.allBits, capacity: 10)
        reader.start(after: 0)
        for start in stride(from: UInt64(1), through: 10_000, by: 100) {
            reader.read((start..<start + 100).map(fault))
        }
        let taken = reader.take()
        XCTAssertEqual(taken.events.count, 10)
        XCTAssertEqual(taken.events.last?.sequence, 10_000)
        XCTAssertEqual(taken.skipped, 9_990)
    }

    /// What arrives between the subscription and the stream's look at the history is in that
    /// look: the reader drops it rather than send it twice, and pushes nothing out before then.
    func testWhatTheOpeningLookHeldIsNotSentTwice() {
        let reader = JournalStreamReader(wantedKinds: JournalEventKind.allBits, capacity: 1)
        reader.read((1...4).map(fault))
        reader.start(after: 3)
        let taken = reader.take()
        XCTAssertEqual(taken.events.map(\.sequence), [4])
        XCTAssertEqual(taken.skipped, 0)
    }

    func testAPushRingsTheStreamsBell() async {
        let reader = JournalStreamReader(wantedKinds: JournalEventKind.bits(.fault), capacity: 5)
        let journal = Journal()
        journal.subscribe(reader)
        reader.start(after: 0)
        journal.record(.fault(description: "pushed"))
        await reader.bell.wait(timeout: .seconds(30))
        XCTAssertEqual(reader.take().events.map(\.sequence), [1])
        journal.unsubscribe(reader)
        XCTAssertEqual(journal.statistics.readers, 0)
    }
}
