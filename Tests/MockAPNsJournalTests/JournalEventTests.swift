@testable import MockAPNsCore
import XCTest
@testable import MockAPNsJournal

final class JournalEventTests: XCTestCase {
    /// Every event is copied into the sinks' buffers and out to every reader, so a kind that
    /// makes the enum large makes every event slow: rare, large kinds must stay `indirect`.
    /// (A broadcast's record inline made every event 448 bytes.)
    func testAnEventStaysTheSizeOfTheCommonKinds() {
        XCTAssertLessThanOrEqual(MemoryLayout<JournalEventKind>.size, 96)
        XCTAssertLessThanOrEqual(MemoryLayout<JournalEvent>.size, 144)
    }
}
