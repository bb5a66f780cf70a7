import MockAPNsCore
import MockAPNsDeliveryRuntime
import MockAPNsJournal
import XCTest

/// The delivery feed keeps the journal's batches as they come and the model's reader picks its
/// inputs out of them; past its limit a batch is counted and named instead of kept, and a
/// device change is known to have been handed over either way.
final class DeliveryFeedTests: XCTestCase {
    private func accepted(_ sequence: UInt64, token: String = "a1b2c3") -> JournalEvent {
        let record = NotificationRecord(
            transport: .http2, deviceToken: token, topic: "com.example.app", pushType: "alert", payload: Array(#"{"aps":{}}"#.utf8),
            authentication: JournalAuthentication(kind: "providerToken", teamID: "T", keyID: "K"),
            accepted: true, reason: nil, status: 200, responseAPNsID: "id"
        )
        return JournalEvent(sequence: sequence, wallTimeMilliseconds: Int64(sequence), monotonicNanoseconds: sequence,
                            connectionID: 1, streamID: 1, kind: .notification(record))
    }

    private func refused(_ sequence: UInt64) -> JournalEvent {
        let record = NotificationRecord(
            transport: .http2, deviceToken: "a1b2c3", topic: "com.example.app", payload: [],
            authentication: JournalAuthentication(kind: "providerToken", teamID: "T", keyID: "K"),
            accepted: false, reason: .badDeviceToken, status: 400, responseAPNsID: "id"
        )
        return JournalEvent(sequence: sequence, wallTimeMilliseconds: 0, monotonicNanoseconds: 0, connectionID: 1, streamID: 1,
                            kind: .notification(record))
    }

    private func deviceOnline(_ sequence: UInt64) -> JournalEvent {
        JournalEvent(sequence: sequence, wallTimeMilliseconds: 0, monotonicNanoseconds: 0, connectionID: nil, streamID: nil,
                     kind: .delivery(DeliveryRecord(step: .online, deviceToken: "a1b2c3", atMilliseconds: 7)))
    }

    private func inputs(_ batches: [[JournalEvent]]) -> [DeliveryFeed.Input] {
        batches.flatMap { $0.compactMap(DeliveryFeed.input) }
    }

    func testTheModelsInputsArePickedOutOfTheBatchesInOrder() {
        let feed = DeliveryFeed()
        let opened = JournalEvent(sequence: 1, wallTimeMilliseconds: 0, monotonicNanoseconds: 0, connectionID: 1, streamID: nil,
                                  kind: .connectionOpened(transport: .http2, peer: nil))
        feed.read([opened])
        feed.read([accepted(2), refused(3), deviceOnline(4)])
        feed.read([accepted(5, token: "d4e5f6")])
        XCTAssertEqual(feed.lastDeviceChange, 4)
        let drained = feed.drain()
        XCTAssertEqual(drained.batches.count, 2, "a batch with nothing the model reads is not kept")
        XCTAssertEqual(drained.overflow, 0)
        XCTAssertNil(drained.leftOut)
        guard case .notification(let first, 2, 2)? = inputs(drained.batches).first else {
            return XCTFail("\(inputs(drained.batches))")
        }
        XCTAssertEqual(first.deviceToken, "a1b2c3")
        XCTAssertEqual(inputs(drained.batches).count, 3, "the refused notification is no input")
        XCTAssertEqual(inputs(drained.batches)[1], .device(token: "a1b2c3", online: true, atMilliseconds: 7))
        XCTAssertTrue(feed.drain().batches.isEmpty)
        XCTAssertEqual(feed.lastDeviceChange, 4, "a drain does not forget the newest device change")
    }

    func testPastTheLimitABatchIsCountedAndNamedNotKept() {
        let feed = DeliveryFeed()
        feed.read(Array(repeating: accepted(1), count: DeliveryFeed.limit))
        feed.read([accepted(10), refused(11), deviceOnline(12), accepted(13)])
        XCTAssertEqual(feed.lastDeviceChange, 12, "a device change left out was still handed over")
        let drained = feed.drain()
        XCTAssertEqual(drained.batches.map(\.count), [DeliveryFeed.limit])
        XCTAssertEqual(drained.overflow, 3, "two accepted notifications and a device change; the refused one is no input")
        XCTAssertEqual(drained.leftOut, 10...13)
        feed.read([accepted(14)])
        XCTAssertEqual(feed.drain().overflow, 0, "a drained feed keeps batches again")
    }
}
