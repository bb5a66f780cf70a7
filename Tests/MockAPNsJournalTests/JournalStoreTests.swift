@testable import MockAPNsCore
@testable import MockAPNsJournal
import MockAPNsTestSupport
import MockAPNsWire
import XCTest

/// The packed store gives back exactly the events it was given, keeps the newest `capacity`,
/// and stores a field repeated within a chunk once.
final class JournalStoreTests: XCTestCase {
    private func append(_ kind: JournalEventKind, to store: inout JournalStore, sequence: UInt64,
                        wallTime: Int64 = 1_767_225_600_123, monotonic: UInt64 = 5_000,
                        connection: UInt64? = 4, stream: Int32? = 1) {
        store.append(sequence: sequence, wallTime: wallTime, monotonic: monotonic, connection: connection,
                     stream: stream, kind: kind)
    }

    private func notification(token: String, payload: [UInt8]) -> JournalEventKind {
        .notification(NotificationRecord(
            transport: .http2, deviceToken: token, topic: "com.example.app", pushType: "alert", payload: payload,
            authentication: JournalAuthentication(kind: "providerToken", teamID: "TEAM000001", keyID: "KEY0000001"),
            accepted: true, status: 200, responseAPNsID: "4F2B6C1E-9A7D-4E35-8C1B-2D3E4F5A6B7C"
        ))
    }

    func testEveryKindReadsBackAsRecorded() {
        var store = JournalStore(capacity: 100)
        // Times before and after the chunk's first event, the largest ids, negative and absent streams.
        let shapes: [(wall: Int64, monotonic: UInt64, connection: UInt64?, stream: Int32?)] = [
            (1_767_225_600_123, 5_000, 4, 1), (0, 0, nil, nil), (-86_400_000, UInt64.max, UInt64.max, Int32.max),
            (Int64.max, 1, 0, Int32.min), (Int64.min, 7, 1, 0),
        ]
        var expected: [JournalEvent] = []
        for (index, kind) in JournalEventSamples.samples.enumerated() {
            let shape = shapes[index % shapes.count]
            let event = JournalEvent(
                sequence: UInt64(index + 1), wallTimeMilliseconds: shape.wall, monotonicNanoseconds: shape.monotonic,
                connectionID: shape.connection, streamID: shape.stream, kind: kind
            )
            append(kind, to: &store, sequence: event.sequence, wallTime: shape.wall, monotonic: shape.monotonic,
                   connection: shape.connection, stream: shape.stream)
            expected.append(event)
        }
        var read: [JournalEvent] = []
        store.forEach(after: 0) { read.append($0); return true }
        XCTAssertEqual(read.count, expected.count)
        for (got, want) in zip(read, expected) {
            XCTAssertEqual(got, want, "\(want.kind.name)")
            XCTAssertEqual(store.kindName(at: Int(want.sequence) - 1), want.kind.type)
        }
    }

    func testNotificationFieldsAtTheirLimitsReadBack() {
        var record = NotificationRecord(
            transport: .legacy, deviceToken: "", topic: "é.ü.漢字 🙂", pushType: "", requestAPNsID: "x",
            priority: Int.min, expiration: Int64.min, collapseID: String(repeating: "c", count: 300),
            legacyIdentifier: UInt32.max, payload: [], authentication: JournalAuthentication(kind: "rejected", refusal: .badCertificate, detail: "é 漢字 🙂 " + String(repeating: "d", count: 300)),
            accepted: false, reason: .idleTimeout, status: Int.max, responseAPNsID: nil, timestamp: Int64.max,
            legacyStatus: .unknown, dropped: true, connectionID: UInt64.max, streamID: Int32.min
        )
        record.sequence = UInt64.max
        record.wallTimeMilliseconds = Int64.min
        record.legacyCommand = 255
        record.payloadLength = Int.max
        record.problem = ""
        record.handlingMicroseconds = 0
        record.environment = .production
        var store = JournalStore(capacity: 4)
        append(.notification(record), to: &store, sequence: 10)
        XCTAssertEqual(store.event(at: 0).kind, .notification(record))
        XCTAssertEqual(store.event(at: 0).sequence, 10)
    }

    func testAFullStoreKeepsTheNewestAcrossManyChunksAndFreesTheRest() {
        var store = JournalStore(capacity: 1_000)
        // Distinct 300-byte payloads: nothing is shared, so the events fill many chunks.
        func payload(_ index: Int) -> [UInt8] { Array(String(repeating: "\(index)-", count: 100).utf8.prefix(300)) }
        var sequence: UInt64 = 0
        for index in 1...20_000 {
            sequence += 1
            append(notification(token: String(format: "%064x", index), payload: payload(index)), to: &store, sequence: sequence)
            if index % 7 == 0 {  // kinds kept as values are pushed out with their events too
                sequence += 1
                append(JournalEventSamples.samples[2], to: &store, sequence: sequence)
            }
        }
        XCTAssertEqual(store.count, 1_000)
        XCTAssertEqual(store.dropped, UInt64(20_000 + 20_000 / 7 - 1_000))
        XCTAssertLessThanOrEqual(store.valuesHeld, 1_000 / 7 + 1)
        // Only the chunks the newest 1,000 events point into are kept.
        XCTAssertLessThan(store.bytesHeld, 1_000 * 450 + 2 * JournalStore.chunkSize)
        let newest = store.event(at: store.count - 1)
        XCTAssertEqual(newest.notification?.deviceToken, String(format: "%064x", 20_000))
        XCTAssertEqual(newest.notification?.payload, payload(20_000))
        XCTAssertEqual(newest.sequence, sequence)
        XCTAssertEqual(store.first?.sequence, sequence - 999)
    }

    func testAFieldRepeatedWithinAChunkIsStoredOnce() {
        var store = JournalStore(capacity: 10_000)
        let payload = Array(#"{"aps":{"alert":{"title":"Hello","body":"\#(String(repeating: "x", count: 1_000))"}}}"#.utf8)
        for index in 1...1_000 {
            append(notification(token: String(repeating: "ab", count: 32), payload: payload), to: &store, sequence: UInt64(index))
        }
        // The payload and token alone are over a megabyte; shared, the thousand events take a few tens of kilobytes.
        XCTAssertLessThan(store.bytesHeld, 70_000, "\(store.bytesHeld)")
        for position in [0, 1, 500, 999] {
            XCTAssertEqual(store.event(at: position).notification?.payload, payload)
            XCTAssertEqual(store.event(at: position).notification?.deviceToken, String(repeating: "ab", count: 32))
        }
    }

    /// Ids are kept as 16 bytes when they are UUIDs of one letter case (every id the server
    /// makes, and Apple's) and read back exactly, whatever their form; in a notification and in
    /// a HEADERS frame alike.
    func testIdentifiersReadBackExactlyWhateverTheirForm() {
        let ids: [String?] = [
            "4f2b6c1e-9a7d-4e35-8c1b-2d3e4f5a6b7c", "4F2B6C1E-9A7D-4E35-8C1B-2D3E4F5A6B7C",
            "12345678-1234-1234-1234-123456789012", "4f2b6c1e-9a7d-4E35-8c1b-2d3e4f5a6b7c",
            "4f2b6c1e9a7d4e358c1b2d3e4f5a6b7c", "", "x", "é 漢字 🙂", nil,
        ]
        var store = JournalStore(capacity: 100)
        var expected: [JournalEventKind] = []
        for (index, id) in ids.enumerated() {
            let other = ids[(index + 1) % ids.count]
            var record = NotificationRecord(
                transport: .http2, deviceToken: "ab", requestAPNsID: id, payload: [], authentication: JournalAuthentication(kind: "none"),
                accepted: true, status: 200, responseAPNsID: other
            )
            record.answer.uniqueID = id.map(MessageID.text)
            expected.append(.notification(record))
            let fields = [HTTPHeader(name: ":status", value: "200"), HTTPHeader(name: "apns-id", value: id ?? ""),
                          HTTPHeader(name: "apns-unique-id", value: other ?? "")]
            expected.append(.http2Frame(HTTP2FrameRecord(
                direction: .outbound, type: .headers, flags: 0x5, streamID: Int32(2 * index + 1), length: 60, details: .headers(fields)
            )))
        }
        for (index, kind) in expected.enumerated() { append(kind, to: &store, sequence: UInt64(index + 1)) }
        for (position, kind) in expected.enumerated() {
            XCTAssertEqual(store.event(at: position).kind, kind, "event \(position + 1)")
        }
    }

    /// The two ids of an answer (`apns-id`, `apns-unique-id`), unique to every notification, were
    /// most of a notification's bytes as text: as UUIDs they take 17 bytes each, not 37.
    func testAnAnswersUUIDsTakeSeventeenBytesEach() {
        func bytes(ids: (Int) -> (String, String)) -> Int {
            var store = JournalStore(capacity: 10_000)
            for index in 1...1_000 {
                let (apnsID, uniqueID) = ids(index)
                var record = NotificationRecord(
                    transport: .http2, deviceToken: String(repeating: "ab", count: 32), topic: "com.example.app", pushType: "alert",
                    payload: Array(#"{"aps":{"alert":"hello"}}"#.utf8),
                    authentication: JournalAuthentication(kind: "providerToken", teamID: "TEAM000001", keyID: "KEY0000001"),
                    accepted: true, status: 200, responseAPNsID: apnsID
                )
                record.answer.uniqueID = .text(uniqueID)
                append(.notification(record), to: &store, sequence: UInt64(index))
            }
            return store.bytesHeld
        }
        func id(_ index: Int, _ kind: Int) -> String { String(format: "%08x-%04x-4abc-8def-%012x", index, kind, index * 7) }
        let asUUIDs = bytes { index in (id(index, 1).uppercased(), id(index, 2)) }
        // The same ids with a first character that is no hex digit: no longer UUIDs, kept as text.
        let asText = bytes { index in ("g" + id(index, 1).uppercased().dropFirst(), "g" + id(index, 2).dropFirst()) }
        // 20 bytes saved per id (36 bytes of text against 16 of bits), give or take the shared
        // fields that an id's entry in the table of recent fields pushed out and wrote again.
        XCTAssertEqual(Double(asText - asUUIDs), Double(1_000 * 2 * 20), accuracy: 1_000 * 2 * 2, "\(asText) against \(asUUIDs)")
        XCTAssertLessThan(asUUIDs, 1_000 * 110, "\(asUUIDs) bytes for 1,000 notifications")
    }

    /// Fields of four to seven bytes repeat in every request and answer (`:method`, `POST`,
    /// `:scheme`, `https`, `:path`, `:status`, `apns-id`, `alert`): each is stored once per
    /// chunk and referred to afterwards, as longer fields are; shorter ones stay inline.
    func testShortFieldsRepeatedWithinAChunkAreStoredOnce() {
        var store = JournalStore(capacity: 10_000)
        var frames: [JournalEventKind] = []
        for index in 1...500 {
            let stream = Int32(2 * index - 1)
            let request: [HTTPHeader] = [
                HTTPHeader(name: ":method", value: "POST"), HTTPHeader(name: ":scheme", value: "https"),
                HTTPHeader(name: ":path", value: "/3/device/" + String(repeating: "a1", count: 32)),
                HTTPHeader(name: ":authority", value: "127.0.0.1:2197"), HTTPHeader(name: "apns-push-type", value: "alert"),
                HTTPHeader(name: "te", value: "gzip"),
            ]
            let answer: [HTTPHeader] = [
                HTTPHeader(name: ":status", value: "200"), HTTPHeader(name: "apns-id", value: String(format: "%08x-0000-4000-8000-%012x", index, index)),
            ]
            frames.append(.http2Frame(HTTP2FrameRecord(direction: .inbound, type: .headers, flags: 0x4, streamID: stream, length: 90, details: .headers(request))))
            frames.append(.http2Frame(HTTP2FrameRecord(direction: .outbound, type: .headers, flags: 0x5, streamID: stream, length: 30, details: .headers(answer))))
        }
        for (index, kind) in frames.enumerated() { append(kind, to: &store, sequence: UInt64(index + 1)) }
        for position in [0, 1, 2, 3, 500, 999] {
            XCTAssertEqual(store.event(at: position).kind, frames[position])
        }
        // With every short field inline, a request and its answer took 125 bytes here; shared, 88.
        XCTAssertLessThan(store.bytesHeld, 500 * 100, "\(store.bytesHeld) bytes for 500 requests and their answers")
    }

    /// A connection repeating its request is recorded with the previous record's own header
    /// list (one array): the list is written whole once per chunk and named afterwards, and
    /// every record reads back the whole list, across chunks too. An equal list of its own
    /// storage is written whole.
    func testAHeaderListRecordedAgainIsStoredOncePerChunk() {
        let request: [HTTPHeader] = [
            HTTPHeader(name: ":method", value: "POST"), HTTPHeader(name: ":scheme", value: "https"),
            HTTPHeader(name: ":path", value: "/3/device/" + String(repeating: "a1", count: 32)),
            HTTPHeader(name: "apns-push-type", value: "alert"), HTTPHeader(name: "apns-id", value: "4F2B6C1E-9A7D-4E35-8C1B-2D3E4F5A6B7C"),
        ]
        func frame(_ headers: [HTTPHeader], stream: Int32) -> JournalEventKind {
            .http2Frame(HTTP2FrameRecord(direction: .inbound, type: .headers, flags: 0x4, streamID: stream, length: 90, details: .headers(headers)))
        }
        var shared = JournalStore(capacity: 100_000)
        var separate = JournalStore(capacity: 100_000)
        // Enough to fill more than one 256 KiB chunk.
        let count = 20_000
        for index in 0..<count {
            let stream = Int32(2 * index + 1)
            append(frame(request, stream: stream), to: &shared, sequence: UInt64(index + 1))
            append(frame(request.map { HTTPHeader(name: $0.name, value: $0.value) }, stream: stream), to: &separate, sequence: UInt64(index + 1))
        }
        XCTAssertGreaterThan(separate.bytesHeld, JournalStore.chunkSize, "the lists written whole fill more than one chunk")
        for position in [0, 1, 2, count / 2, count - 2, count - 1] {
            XCTAssertEqual(shared.event(at: position).kind, frame(request, stream: Int32(2 * position + 1)), "event \(position)")
            XCTAssertEqual(separate.event(at: position).kind, frame(request, stream: Int32(2 * position + 1)), "event \(position)")
        }
        XCTAssertLessThan(shared.bytesHeld, separate.bytesHeld * 2 / 3, "\(shared.bytesHeld) bytes against \(separate.bytesHeld)")
    }

    /// A notification's connection, stream, sequence and time, and its token's `iat`, are
    /// written relative to the event that holds it; they read back exactly whatever the event
    /// says, the same as its own or not, at the limits of their types.
    func testANotificationsPlaceAndTokenTimeReadBackWhateverTheEventSays() {
        let places: [(connection: UInt64?, stream: Int32?)] = [(4, 1), (nil, nil), (5, 1), (4, 3), (nil, 1), (4, nil), (.max, .min)]
        let issuedAts: [Int64?] = [1_767_225_000, nil, .min, .max, 0, -1]
        let wallTimes: [Int64] = [1_767_225_600_123, 0, .min, .max, -1_000]
        var store = JournalStore(capacity: 1_000)
        var expected: [JournalEvent] = []
        var sequence: UInt64 = 0
        for (index, place) in places.enumerated() {
            for issuedAt in issuedAts {
                sequence += 1
                var record = NotificationRecord(
                    transport: .http2, deviceToken: "ab", payload: [],
                    authentication: JournalAuthentication(kind: "providerToken", teamID: "T", keyID: "K", issuedAt: issuedAt),
                    accepted: true, status: 200, connectionID: place.connection, streamID: place.stream
                )
                record.sequence = index.isMultiple(of: 2) ? 0 : sequence
                record.wallTimeMilliseconds = index.isMultiple(of: 3) ? 0 : 1_767_225_600_999
                let wallTime = wallTimes[Int(sequence) % wallTimes.count]
                let event = JournalEvent(sequence: sequence, wallTimeMilliseconds: wallTime, monotonicNanoseconds: 1,
                                         connectionID: 4, streamID: 1, kind: .notification(record))
                append(event.kind, to: &store, sequence: sequence, wallTime: wallTime, monotonic: 1, connection: 4, stream: 1)
                expected.append(event)
            }
        }
        for (position, event) in expected.enumerated() {
            XCTAssertEqual(store.event(at: position), event, "event \(position + 1)")
        }
    }

    /// A notification as an HTTP/2 push records it (on its event's connection and stream, with
    /// a provider token issued minutes before) does not repeat what its event says.
    func testANotificationDoesNotRepeatItsEventsPlace() {
        var store = JournalStore(capacity: 10_000)
        let wallTime: Int64 = 1_767_225_600_123
        for index in 1...1_000 {
            let stream = Int32(2 * index - 1)
            var record = NotificationRecord(
                transport: .http2, deviceToken: String(repeating: "ab", count: 32), topic: "com.example.app", pushType: "alert",
                payload: Array(#"{"aps":{"alert":"hello"}}"#.utf8),
                authentication: JournalAuthentication(kind: "providerToken", teamID: "TEAM000001", keyID: "KEY0000001", issuedAt: wallTime / 1000 - 600),
                accepted: true, status: 200, responseAPNsID: String(format: "%08x-0000-4000-8000-%012x", index, index),
                connectionID: 7, streamID: stream
            )
            record.answer.uniqueID = .text(String(format: "%08x-1111-4000-8000-%012x", index, index))
            append(.notification(record), to: &store, sequence: UInt64(index), wallTime: wallTime, connection: 7, stream: stream)
        }
        // 101 bytes each when the connection, stream and `iat` were written whole; 92 now.
        XCTAssertLessThan(store.bytesHeld, 1_000 * 96, "\(store.bytesHeld) bytes for 1,000 notifications")
    }

    func testClearingEmptiesAndSequencesGoOn() {
        var store = JournalStore(capacity: 3)
        for index in 1...5 { append(.fault(description: "f\(index)"), to: &store, sequence: UInt64(index)) }
        store.removeAll()
        XCTAssertEqual(store.count, 0)
        XCTAssertNil(store.first)
        append(.fault(description: "after"), to: &store, sequence: 6)
        XCTAssertEqual(store.first?.sequence, 6)
        XCTAssertEqual(store.first?.kind, .fault(description: "after"))
        XCTAssertEqual(store.position(after: 5), 0)
        XCTAssertEqual(store.position(after: 6), 1)
        XCTAssertEqual(store.position(after: UInt64.max), 1)
        var fromZero = JournalStore(capacity: 2)
        append(.fault(description: "zero"), to: &fromZero, sequence: 0)
        XCTAssertEqual(fromZero.position(after: UInt64.max), 1, "the largest cursor reads nothing, and does not overflow")
    }
}
