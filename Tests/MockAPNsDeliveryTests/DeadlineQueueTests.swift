@testable import MockAPNsCore
import XCTest
@testable import MockAPNsDelivery

/// The delivery model's deadlines: earliest first whatever the order they came in, and a
/// model whose devices come and go many times keeps its queue (and its answers) right.
final class DeadlineQueueTests: XCTestCase {
    func testDeadlinesComeOutEarliestFirst() {
        var queue = DeadlineQueue()
        var random = SeededRandom(seed: 7, stream: 0)
        var times: [Int64] = []
        for index in 0..<500 {
            let time = Int64(random.next() % 10_000)
            times.append(time)
            queue.insert(time, token: "t\(index)")
        }
        XCTAssertEqual(queue.earliest, times.min())
        var seen: [Int64] = []
        var now: Int64 = -1
        while let earliest = queue.earliest {
            XCTAssertGreaterThan(earliest, now, "each look finds only later times")
            now = earliest
            let due = queue.removeDue(by: now)
            seen += times.enumerated().filter { $0.element == now }.map(\.element)
            XCTAssertEqual(due.count, times.enumerated().filter { $0.element == now }.count)
        }
        XCTAssertEqual(seen, times.sorted())
        XCTAssertEqual(queue.count, 0)
    }

    func testManyDevicesSupersedingAndComingBackLeaveNothingBehind() throws {
        var model = DeliveryModel()
        let devices = (0..<2000).map { String(format: "%04x", $0) }
        for token in devices { _ = model.setOnline(token, false, at: 0) }
        var sequence: UInt64 = 0
        for round in 1...3 {
            for token in devices {
                sequence += 1
                let changes = model.receive(DeliveryNotification(
                    sequence: sequence, deviceToken: token, topic: "com.example.app", expiration: 100 + Int64(round),
                    receivedAtMilliseconds: Int64(round)))
                XCTAssertEqual(changes.map(\.record.step), round == 1 ? [.stored] : [.superseded, .stored])
            }
        }
        // Stale entries may make the next look early, never late: the live deadlines are at 103 s.
        XCTAssertLessThanOrEqual(try XCTUnwrap(model.nextDeadline), 103_000)
        // Half come back and get their last notification; the other half's expire at 103 s.
        var delivered = 0
        for token in devices.prefix(1000) { delivered += model.setOnline(token, true, at: 50_000).filter { $0.record.step == .delivered }.count }
        XCTAssertEqual(delivered, 1000)
        let expired = model.advance(to: 200_000)
        XCTAssertEqual(expired.count, 1000)
        XCTAssertTrue(expired.allSatisfy { $0.record.step == .expired && $0.record.atMilliseconds == 103_000 })
        XCTAssertEqual(model.devicesHeld.count, 1000, "offline devices stay known, with nothing stored")
        XCTAssertNil(model.nextDeadline)
    }
}
