@testable import MockAPNsCore
@testable import MockAPNsJournal
import MockAPNsWire
import XCTest

/// The journal's memory is bounded by bytes as well as by events: whichever bound is reached
/// first pushes the oldest out, large input is kept as a bounded prefix beside its true
/// length, and nothing is kept per connection once its events are gone.
final class JournalStoreByteBoundTests: XCTestCase {
    private func notification(_ index: Int, payload: [UInt8]) -> JournalEventKind {
        var record = NotificationRecord(
            transport: .http2, deviceToken: String(format: "%064x", index), topic: "com.example.app", pushType: "alert",
            payload: payload, authentication: JournalAuthentication(kind: "providerToken", teamID: "TEAM000001", keyID: "KEY0000001"),
            accepted: false, reason: .payloadTooLarge, status: 413, responseAPNsID: nil
        )
        record.payloadLength = payload.count
        return .notification(record)
    }

    /// A distinct 300-byte payload: nothing is shared between events.
    private func payload(_ index: Int) -> [UInt8] { Array(String(repeating: "\(index)-", count: 100).utf8.prefix(300)) }

    func testTheOldestGoWhenTheBytesAreReachedBeforeTheCount() {
        let bound = 2 << 20
        var store = JournalStore(capacity: 1_000_000, capacityBytes: bound)
        var mostBytes = 0
        for index in 1...20_000 {
            store.append(sequence: UInt64(index), wallTime: 1_767_225_600_000, monotonic: 5_000, connection: 4, stream: 1,
                         kind: notification(index, payload: payload(index)))
            mostBytes = max(mostBytes, store.bytesCounted)
        }
        XCTAssertLessThanOrEqual(mostBytes, bound, "at no moment over the bound")
        // About 400 bytes an event: the bytes, not the million events, bound the store.
        XCTAssertLessThan(store.count, 20_000)
        XCTAssertGreaterThan(store.count, bound / 1_000)
        XCTAssertEqual(store.dropped, UInt64(20_000 - store.count))
        XCTAssertEqual(store.first?.sequence, UInt64(20_000 - store.count + 1))
        XCTAssertEqual(store.event(at: store.count - 1).notification?.payload, payload(20_000))
        XCTAssertEqual(store.first?.notification?.payload, payload(20_000 - store.count + 1))
    }

    func testEventsKeptAsValuesCountTowardTheBytes() {
        let bound = 1 << 20
        var store = JournalStore(capacity: 1_000_000, capacityBytes: bound)
        // A handshake failure per junk connection, each naming a long list of offered suites.
        let failure = JournalEventKind.tlsFailed(JournalTLSFailure(
            reason: "the client sent 300 bytes that are not a TLS record", alertSent: "unexpected_message", alertReceived: nil,
            serverName: nil, offeredALPN: nil, offeredVersions: ["TLSv1.3"],
            offeredCipherSuites: (0..<60).map { "TLS_SUITE_\($0)_WITH_A_LONG_NAME" }
        ))
        for index in 1...10_000 {
            store.append(sequence: UInt64(index), wallTime: 0, monotonic: 0, connection: UInt64(index), stream: nil, kind: failure)
        }
        XCTAssertLessThanOrEqual(store.bytesCounted, bound)
        XCTAssertLessThan(store.valuesHeld, 10_000)
        XCTAssertEqual(store.valuesHeld, store.count)
        XCTAssertEqual(store.event(at: store.count - 1).kind, failure)
    }

    func testTheDefaultBoundFollowsTheCountAndNeverFallsBelow128MiB() {
        XCTAssertEqual(JournalOptions().capacityBytes, 128 << 20)
        XCTAssertEqual(JournalOptions(capacity: 1_000_000).capacityBytes, 1_000_000 * 1024)
        XCTAssertEqual(JournalOptions(capacity: 1_000, capacityBytes: 5 << 20).capacityBytes, 5 << 20)
        XCTAssertEqual(JournalStore(capacity: 10, capacityBytes: 1).capacityBytes, JournalStore.minimumCapacityBytes)
    }

    func testInputOverTheLimitIsKeptAsAPrefixBesideItsLength() {
        var store = JournalStore(capacity: 10)
        // A payload far over Apple's limit (answered 413): the record keeps its first bytes.
        let large = Array(repeating: UInt8(ascii: "x"), count: 61_440)
        store.append(sequence: 1, wallTime: 0, monotonic: 0, connection: 1, stream: 1, kind: notification(1, payload: large))
        // Bytes that are no legacy frame, read whole.
        let junk = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        store.append(sequence: 2, wallTime: 0, monotonic: 0, connection: 2, stream: nil, kind: .legacyFrame(JournalLegacyFrame(
            command: 0xEE, frameLength: junk.count, problem: "unknown command 238", rawBytes: junk
        )))
        // A client's GOAWAY with 16,000 bytes of debug data.
        let debug = Array(repeating: UInt8(ascii: "d"), count: 16_000)
        store.append(sequence: 3, wallTime: 0, monotonic: 0, connection: 3, stream: nil, kind: .http2Frame(HTTP2FrameRecord(
            direction: .inbound, type: .goaway, flags: 0, streamID: 0, length: 8 + debug.count,
            details: .goaway(errorCode: 0, lastStreamID: 0, debugData: debug)
        )))
        // A payload Apple accepts (VoIP, 5 KiB) is kept whole.
        let voip = Array(repeating: UInt8(ascii: "v"), count: 5_120)
        store.append(sequence: 4, wallTime: 0, monotonic: 0, connection: 1, stream: 3, kind: notification(4, payload: voip))
        // A legacy frame's bytes that fit are kept whole too.
        let short = Array(junk.prefix(64))
        store.append(sequence: 5, wallTime: 0, monotonic: 0, connection: 2, stream: nil, kind: .legacyFrame(JournalLegacyFrame(
            command: 0xEE, frameLength: 64, problem: "unknown command 238", rawBytes: short
        )))

        let limit = JournalPacking.keptBytesLimit
        let record = store.event(at: 0).notification
        XCTAssertEqual(record?.payload.count, limit)
        XCTAssertEqual(record?.payload == Array(large.prefix(limit)), true)
        XCTAssertEqual(record?.payloadLength, 61_440, "the true length stays")
        guard case .legacyFrame(let frame) = store.event(at: 1).kind else { return XCTFail("not a legacy frame") }
        XCTAssertEqual(frame.rawBytes?.count, limit)
        XCTAssertEqual(frame.rawBytes == Array(junk.prefix(limit)), true)
        XCTAssertEqual(frame.frameLength, 20_000)
        guard case .http2Frame(let goaway) = store.event(at: 2).kind,
              case .goaway(_, _, let kept) = goaway.details else { return XCTFail("not a GOAWAY") }
        XCTAssertEqual(kept.count, limit)
        XCTAssertEqual(kept == Array(debug.prefix(limit)), true)
        XCTAssertEqual(goaway.length, 16_008)
        XCTAssertEqual(store.event(at: 3).notification?.payload.count, voip.count)
        XCTAssertEqual(store.event(at: 3).notification?.payload == voip, true)
        guard case .legacyFrame(let whole) = store.event(at: 4).kind else { return XCTFail("not a legacy frame") }
        XCTAssertEqual(whole.rawBytes, short)
        XCTAssertLessThan(store.bytesHeld, 4 * limit + 1_000, "four fields of at most the limit, the rest small")
    }

    func testAConnectionIsForgottenOnceItsCloseIsPushedOut() {
        let journal = Journal(options: JournalOptions(capacity: 100))
        for connection in UInt64(1)...5_000 {
            journal.record(.connectionOpened(transport: .legacy, peer: "127.0.0.1:1"), connection: connection)
            journal.record(.connectionClosed(transport: .legacy, closedBy: .client, reason: nil), connection: connection)
        }
        XCTAssertNil(journal.transport(ofConnection: 1), "its events are gone, and so is its transport")
        XCTAssertEqual(journal.transport(ofConnection: 5_000), .legacy)
        var store = JournalStore(capacity: 100)
        for connection in UInt64(1)...5_000 {
            store.append(sequence: 2 * connection - 1, wallTime: 0, monotonic: 0, connection: connection, stream: nil,
                         kind: .connectionOpened(transport: .http2, peer: nil))
            store.append(sequence: 2 * connection, wallTime: 0, monotonic: 0, connection: connection, stream: nil,
                         kind: .connectionClosed(transport: .http2, closedBy: .server, reason: nil))
        }
        XCTAssertLessThanOrEqual(store.transportsHeld, 51)
        store.removeAll()
        XCTAssertEqual(store.transportsHeld, 0, "a clear forgets the closed connections too")
    }
}
