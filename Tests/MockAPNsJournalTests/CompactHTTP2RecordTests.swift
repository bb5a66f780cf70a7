import MockAPNsCore
@testable import MockAPNsJournal
import MockAPNsWire
import XCTest

/// An HTTP/2 push answered as Apple accepts one has a compact record that says everything the
/// boxed record of the same push says, packs and reads back as it does, and becomes a box of its
/// own when a copy of it is changed; what it cannot hold is left to a box.
final class CompactHTTP2RecordTests: XCTestCase {
    private let authentication = AuthenticationResult.providerToken(teamID: "TEAM123456", keyID: "KEY1234567", allowedTopics: nil)
    private let token = String(repeating: "a1b2c3d4", count: 8)
    private let payload = Array(#"{"aps":{"alert":"hello"}}"#.utf8)
    private let answerID = MessageID.uuid(UUIDBits(high: 0x0123_4567_89AB_CDEF, low: 0x0FED_CBA9_8765_4321, uppercase: true))

    private func request(
        token: String? = nil, apnsID: String? = "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0", priority: Priority? = .immediate,
        expiration: Int64? = 1_700_000_000, collapseID: String? = "score", topic: String? = "com.example.app",
        body: [UInt8]? = nil
    ) -> PushRequest {
        PushRequest(
            transport: .http2, deviceToken: token ?? self.token, topic: topic, pushType: .alert, apnsID: apnsID,
            expiration: expiration, priority: priority, collapseID: collapseID, payload: body ?? payload
        )
    }

    private func accepted(uniqueID: MessageID? = nil) -> SentAnswer {
        SentAnswer(status: 200, apnsID: answerID, uniqueID: uniqueID, accepted: true)
    }

    private func compact(
        _ request: PushRequest, sent: SentAnswer? = nil, payloadIsJSON: Bool? = true, handling: Int? = 41, issuedAt: Int64? = 1_699_999_000,
        detail: String? = nil, writer: HTTP2RecordWriter = HTTP2RecordWriter(), handOvers: UInt64 = 0
    ) -> NotificationRecord? {
        writer.record(
            request, sent: sent ?? accepted(), payloadLength: request.payload.count, payloadIsJSON: payloadIsJSON,
            authentication: authentication, tokenIssuedAt: issuedAt, authenticationDetail: detail, environment: .sandbox,
            handlingMicroseconds: handling, providerTokens: .withoutSignature, handOvers: handOvers
        )
    }

    private func boxed(
        _ request: PushRequest, sent: SentAnswer? = nil, payloadIsJSON: Bool? = true, handling: Int? = 41, issuedAt: Int64? = 1_699_999_000
    ) -> NotificationRecord {
        var recorded = JournalAuthentication(authentication)
        recorded.issuedAt = issuedAt
        return NotificationRecord(
            request, answer: sent ?? accepted(), authentication: recorded, payloadLength: request.payload.count,
            payloadIsJSON: payloadIsJSON, handlingMicroseconds: handling, environment: .sandbox
        )
    }

    private func event(_ record: NotificationRecord) -> JournalEvent {
        JournalEvent(sequence: 1, wallTimeMilliseconds: 2, monotonicNanoseconds: 3, connectionID: 4, streamID: 5, kind: .notification(record))
    }

    /// Requests and answers a compact record holds, each field present and absent.
    private var rows: [(name: String, request: PushRequest, sent: SentAnswer, json: Bool?, handling: Int?, issuedAt: Int64?)] {
        [
            ("every header", request(), accepted(), true, 41, 1_699_999_000),
            ("no optional header", request(apnsID: nil, priority: nil, expiration: nil, collapseID: nil), accepted(), false, nil, nil),
            ("no topic, priority 5, expiration 0", request(priority: .powerAware, expiration: 0, topic: nil), accepted(), nil, 0, 1),
            ("a sandbox acceptance's unique id", request(), accepted(uniqueID: .text("a1a2a3a4-b1b2-c1c2-d1d2-e1e2e3e4e5e6")), true, 7, nil),
            ("an id given as text", request(apnsID: "not-a-uuid"), SentAnswer(status: 200, apnsID: .text("not-a-uuid"), accepted: true), true, 1, nil),
            ("an empty body, a short token", request(token: "ab", body: []), accepted(), false, 3, nil),
        ]
    }

    func testACompactRecordSaysWhatTheBoxedRecordOfTheSamePushSays() throws {
        for row in rows {
            let compact = try XCTUnwrap(
                compact(row.request, sent: row.sent, payloadIsJSON: row.json, handling: row.handling, issuedAt: row.issuedAt), row.name
            )
            let boxed = boxed(row.request, sent: row.sent, payloadIsJSON: row.json, handling: row.handling, issuedAt: row.issuedAt)
            XCTAssertTrue(compact.isCompact, row.name)
            XCTAssertFalse(boxed.isCompact, row.name)
            XCTAssertEqual(compact, boxed, row.name)
            XCTAssertEqual(compact.transport, .http2, row.name)
            XCTAssertEqual(compact.deviceToken, row.request.deviceToken, row.name)
            XCTAssertEqual(compact.topic, row.request.topic, row.name)
            XCTAssertEqual(compact.pushType, "alert", row.name)
            XCTAssertEqual(compact.requestAPNsID, row.request.apnsID, row.name)
            XCTAssertEqual(compact.priority, row.request.priority?.rawValue, row.name)
            XCTAssertEqual(compact.expiration, row.request.expiration, row.name)
            XCTAssertEqual(compact.collapseID, row.request.collapseID, row.name)
            XCTAssertEqual(compact.payload, row.request.payload.array, row.name)
            XCTAssertEqual(compact.payloadLength, row.request.payload.count, row.name)
            XCTAssertEqual(compact.payloadIsJSON, row.json, row.name)
            XCTAssertEqual(compact.handlingMicroseconds, row.handling, row.name)
            XCTAssertEqual(compact.authentication.issuedAt, row.issuedAt, row.name)
            XCTAssertEqual(compact.authentication.kind, boxed.authentication.kind, row.name)
            XCTAssertEqual(compact.answer, row.sent, row.name)
            XCTAssertEqual(compact.status, 200, row.name)
            XCTAssertEqual(compact.responseAPNsID, row.sent.apnsID?.text, row.name)
            XCTAssertNil(compact.legacyIdentifier, row.name)
            XCTAssertNil(compact.problem, row.name)
            XCTAssertFalse(compact.dropped, row.name)
            XCTAssertEqual(compact.environment, .sandbox, row.name)
            XCTAssertEqual(compact.deviceTokenIsEmpty, row.request.deviceToken.isEmpty, row.name)
            XCTAssertEqual(event(compact).json, event(boxed).json, row.name)
        }
    }

    func testACompactRecordPacksToTheBytesOfTheBoxedOne() throws {
        let places: [(connection: UInt64?, stream: Int32?)] = [(4, 1), (nil, nil), (4, nil), (nil, 3)]
        for place in places {
            for row in rows {
                let compact = try XCTUnwrap(
                    compact(row.request, sent: row.sent, payloadIsJSON: row.json, handling: row.handling, issuedAt: row.issuedAt), row.name
                )
                let boxed = boxed(row.request, sent: row.sent, payloadIsJSON: row.json, handling: row.handling, issuedAt: row.issuedAt)
                let compactBytes = compact.packed(connection: place.connection, stream: place.stream)
                XCTAssertEqual(compactBytes, boxed.packed(connection: place.connection, stream: place.stream), row.name)
                XCTAssertGreaterThanOrEqual(compactBytes.count, row.request.payload.count + row.request.deviceToken.utf8.count, row.name)
            }
        }
    }

    func testAJournalReadsACompactRecordBackAsTheBoxedOne() throws {
        let journal = Journal(options: JournalOptions())
        _ = journal.record(.notification(try XCTUnwrap(compact(request()))), connection: 4, stream: 1)
        _ = journal.record(.notification(boxed(request())), connection: 4, stream: 1)
        let read = journal.notifications()
        XCTAssertEqual(read.count, 2)
        XCTAssertEqual(read.first?.connectionID, 4)
        XCTAssertEqual(read.first?.streamID, 1)
        var expected = try XCTUnwrap(read.last)
        expected.sequence = read.first?.sequence ?? 0
        expected.wallTimeMilliseconds = read.first?.wallTimeMilliseconds ?? 0
        XCTAssertEqual(read.first, expected, "packed and read back alike")
        XCTAssertEqual(read.first?.payload, payload)
        XCTAssertEqual(read.first?.requestAPNsID, "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0")
        XCTAssertEqual(read.first?.responseAPNsID, answerID.text)
    }

    func testChangingACopyOfACompactRecordBoxesTheCopyAlone() throws {
        let original = try XCTUnwrap(compact(request()))
        var changed = original
        changed.status = 410
        changed.collapseID = nil
        XCTAssertTrue(original.isCompact)
        XCTAssertFalse(changed.isCompact)
        XCTAssertEqual(original.status, 200)
        XCTAssertEqual(original.collapseID, "score")
        XCTAssertEqual(changed.status, 410)
        XCTAssertNil(changed.collapseID)
        XCTAssertEqual(changed.payload, payload, "the rest carried over")
        XCTAssertEqual(changed.requestAPNsID, original.requestAPNsID)
    }

    func testWhatACompactRecordCannotHoldIsLeftToABox() {
        let jws = "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJURUFNIn0.c2lnbmF0dXJlc2lnbmF0dXJl"
        let refused = SentAnswer(status: 400, reason: .badDeviceToken, apnsID: answerID, accepted: false)
        let rows: [(name: String, request: PushRequest, sent: SentAnswer, payloadLength: Int?, detail: String?)] = [
            ("a refusal", request(), refused, nil, nil),
            ("a rule's acceptance", request(), { var sent = accepted(); sent.rule = "slow"; return sent }(), nil, nil),
            ("a fault after the answer", request(), { var sent = accepted(); sent.fault = .resetStream(errorCode: 2); return sent }(), nil, nil),
            ("a delayed answer", request(), { var sent = accepted(); sent.delayMilliseconds = 20; return sent }(), nil, nil),
            ("an answer the client never got", request(), { var sent = accepted(); sent.undelivered = "stream closed"; return sent }(), nil, nil),
            ("no answer written", request(), SentAnswer(accepted: true), nil, nil),
            ("a token longer than 64 bytes", request(token: String(repeating: "ab", count: 33)), accepted(), nil, nil),
            ("a body stored cut short", request(), accepted(), payload.count + 10, nil),
            ("a body longer than a record keeps", request(body: [UInt8](repeating: 0x20, count: RecordedPayload.limit + 1)), accepted(), nil, nil),
            ("a provider token as the collapse id", request(collapseID: jws), accepted(), nil, nil),
            ("a provider token as the topic", request(topic: jws), accepted(), nil, nil),
            ("a provider token in the authentication's detail", request(), accepted(), nil, "token \(jws)"),
        ]
        for row in rows {
            let record = HTTP2RecordWriter().record(
                row.request, sent: row.sent, payloadLength: row.payloadLength ?? row.request.payload.count, payloadIsJSON: true,
                authentication: authentication, tokenIssuedAt: nil, authenticationDetail: row.detail, environment: .sandbox,
                handlingMicroseconds: nil, providerTokens: .withoutSignature, handOvers: 0
            )
            XCTAssertNil(record, row.name)
        }
        XCTAssertNotNil(compact(request(), detail: "an iat sent as a string"), "a detail recorded as it is fits")
    }

    func testPushesShareAContextOnlyWhileTheirFactsStayTheSame() throws {
        let writer = HTTP2RecordWriter()
        var records: [NotificationRecord] = []
        let topics = ["com.example.app", "com.example.app", "com.example.other", "com.example.other", "com.example.app"]
        for (index, topic) in topics.enumerated() {
            records.append(try XCTUnwrap(compact(request(topic: topic), issuedAt: index < 4 ? 1 : 2, writer: writer)))
        }
        // A new context starts a block of its own: the first two share one, the next two
        // another, and the last (another `iat`) a third.
        XCTAssertEqual(writer.blocksAllocated, 3)
        XCTAssertEqual(records.map(\.topic), topics)
        XCTAssertEqual(records.map(\.authentication.issuedAt), [1, 1, 1, 1, 2])
    }

    func testRecordsHandedOverKeepWhatTheySaidWhileTheWriterGoesOn() throws {
        let writer = HTTP2RecordWriter()
        var written: [(id: String, record: NotificationRecord)] = []
        var handOvers: UInt64 = 0
        for number in 1...600 {
            if number % 100 == 0 { handOvers += 1 }
            let id = "00000000-0000-0000-0000-\(String(repeating: "0", count: 12 - String(number).count))\(number)"
            let body = Array(#"{"aps":{"badge":\#(number)}}"#.utf8)
            written.append((id, try XCTUnwrap(compact(request(apnsID: id, body: body), writer: writer, handOvers: handOvers))))
        }
        for (number, (id, record)) in zip(1..., written) {
            XCTAssertEqual(record.requestAPNsID, id)
            XCTAssertEqual(record.payloadText, #"{"aps":{"badge":\#(number)}}"#)
            XCTAssertEqual(record.deviceToken, token)
        }
    }

    /// A block lives while any record in it is held, and an idle connection keeps a few: the
    /// payloads they keep alive are bounded in bytes, not only in entries.
    func testABlockIsFullOnceItsPayloadsReachTheirLimitHoweverFewItsEntries() throws {
        let small = HTTP2RecordWriter()
        for _ in 0..<14 {
            _ = try XCTUnwrap(compact(request(), writer: small))
        }
        XCTAssertEqual(small.blocksAllocated, 1, "fourteen small payloads fit the first block of 16")
        let large = HTTP2RecordWriter()
        let body = [UInt8](repeating: 0x20, count: RecordedPayload.limit)
        var records: [NotificationRecord] = []
        for _ in 0..<14 {
            records.append(try XCTUnwrap(compact(request(body: body), writer: large)))
        }
        let perBlock = (RecordEntries<HTTP2RecordBlock.Entry>.payloadByteLimit + body.count - 1) / body.count
        XCTAssertEqual(large.blocksAllocated, (14 + perBlock - 1) / perBlock)
        XCTAssertGreaterThan(large.blocksAllocated, 1)
        XCTAssertTrue(records.allSatisfy { $0.payload == body })
    }
}
