@testable import MockAPNsCore
@testable import MockAPNsJournal
import XCTest

/// A chunk's bytes live in one block the writer appends to in place: an event larger than the
/// room left grows the block without losing what it held, and a copy of the store taken
/// before an append still reads what it held then.
final class JournalChunkBytesTests: XCTestCase {
    private func diagnosis(_ message: String) -> JournalEventKind {
        .diagnosis(code: .timeoutTLSHandshake, message: message, figures: [JournalFigure("bytes", Int64(message.utf8.count))])
    }

    func testAnEventLargerThanTheChunksRoomGrowsItAndEveryEventReadsBack() {
        var store = JournalStore(capacity: 100, capacityBytes: 64 << 20)
        store.append(sequence: 1, wallTime: 1_000, monotonic: 10, connection: 3, stream: nil, kind: diagnosis("before"))
        // Larger than a whole chunk and its slack: the open block must grow to hold it.
        let large = String(repeating: "0123456789abcdef", count: (JournalStore.chunkSize + JournalStore.chunkSlack) / 8)
        store.append(sequence: 2, wallTime: 1_001, monotonic: 11, connection: 3, stream: 5, kind: diagnosis(large))
        store.append(sequence: 3, wallTime: 1_002, monotonic: 12, connection: nil, stream: nil, kind: diagnosis("after"))

        XCTAssertEqual(store.count, 3)
        XCTAssertEqual(store.event(at: 0).kind, diagnosis("before"))
        XCTAssertEqual(store.event(at: 1).kind, diagnosis(large))
        XCTAssertEqual(store.event(at: 1).streamID, 5)
        XCTAssertEqual(store.event(at: 2).kind, diagnosis("after"))
        XCTAssertEqual(store.event(at: 2).wallTimeMilliseconds, 1_002)
        XCTAssertGreaterThanOrEqual(store.bytesCounted, large.utf8.count, "the grown block is counted against the bound")
    }

    func testACopyOfTheStoreKeepsWhatItHeldWhileTheOriginalGoesOn() {
        var store = JournalStore(capacity: 100, capacityBytes: 64 << 20)
        for sequence in 1...3 {
            store.append(sequence: UInt64(sequence), wallTime: 0, monotonic: 0, connection: 1, stream: nil,
                         kind: diagnosis("event \(sequence) with a shared field"))
        }
        let snapshot = store
        let heldThen = store.bytesHeld
        for sequence in 4...50 {
            store.append(sequence: UInt64(sequence), wallTime: 0, monotonic: 0, connection: 1, stream: nil,
                         kind: diagnosis("event \(sequence) with a shared field"))
        }
        XCTAssertEqual(snapshot.count, 3)
        XCTAssertEqual(snapshot.bytesHeld, heldThen, "the snapshot's block did not grow with the original's appends")
        XCTAssertEqual((0..<3).map { snapshot.event(at: $0).kind }, (1...3).map { diagnosis("event \($0) with a shared field") })
        XCTAssertEqual(store.count, 50)
        XCTAssertLessThan(snapshot.bytesHeld, store.bytesHeld, "the original's appends went to its own copy of the block")
        XCTAssertEqual(store.event(at: 49).kind, diagnosis("event 50 with a shared field"))
    }
}
