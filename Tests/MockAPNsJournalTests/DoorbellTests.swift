import MockAPNsJournal
import XCTest

/// The bell the journal's readers rest on: a ring is never lost, a timeout ends the wait it
/// belongs to, and a wait a ring ended leaves nothing behind that would end the next one.
final class DoorbellTests: XCTestCase {
    func testARingWhileNobodyWaitsIsKeptForTheNextWaitOnly() async {
        let bell = Doorbell()
        bell.ring()
        XCTAssertTrue(bell.isRung)
        await bell.wait(timeout: nil)   // at once: the ring was kept
        XCTAssertFalse(bell.isRung)
    }

    func testAWaitEndsWhenItsTimeoutPassesEvenOneTooShortToBeginWaiting() async {
        let bell = Doorbell()
        let ended = expectation(description: "both waits ended")
        ended.expectedFulfillmentCount = 2
        Task {
            await bell.wait(timeout: .milliseconds(20))
            ended.fulfill()
            // A timer that runs out before the wait has begun ends it all the same.
            await bell.wait(timeout: .zero)
            ended.fulfill()
        }
        await fulfillment(of: [ended], timeout: 30)
        XCTAssertFalse(bell.isRung, "a timeout is not a ring")
    }

    /// A wait that a ring ends cancels its timer; the timer used to ring as it was cancelled,
    /// so every following wait ended at once and the reader resting on the bell spun.
    func testAWaitARingEndedLeavesNoRingForTheNextWait() async throws {
        let bell = Doorbell()
        for _ in 0..<20 {
            bell.ring()
            await bell.wait(timeout: .seconds(30))
        }
        // The cancelled timers finish within microseconds; nothing else can be awaited here,
        // as what is checked is that no ring comes.
        try await Task.sleep(for: .milliseconds(200))
        XCTAssertFalse(bell.isRung)
    }
}
