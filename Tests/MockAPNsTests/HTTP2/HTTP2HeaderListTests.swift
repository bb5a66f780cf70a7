import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import MockAPNsHTTP2
import MockAPNsTestSupport
import XCTest

/// A header list over the announced 8,000-byte MAX_HEADER_LIST_SIZE, sent by curl (which
/// splits it over HEADERS and CONTINUATION frames): answered 431 by default and journaled;
/// reset when configured so.
final class HTTP2HeaderListTests: XCTestCase {
    private let bigValue = String(repeating: "x", count: 9000)

    func testAnOversizedHeaderListIsAnswered431AndJournaled() async throws {
        let (server, ports) = try await TestServer.start()

        let response = try CurlClient(port: ports.http2).send(
            path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app"), ("x-big", bigValue)]
        )

        XCTAssertEqual(response.status, 431)
        let refusals = server.journal.events().filter {
            if case .diagnosis(let code, _, _) = $0.kind { return code == .http2RequestRefused }
            return false
        }
        XCTAssertEqual(refusals.count, 1)
        if case .diagnosis(_, let message, _)? = refusals.first?.kind {
            XCTAssertTrue(message.contains("MAX_HEADER_LIST_SIZE of 8000"), message)
        }
        // Like every request, it has its notification record: what it was sent, with its
        // headers as far as they were kept.
        let records = server.journal.notifications(matching: NotificationFilter.all, limit: 10)
        XCTAssertEqual(records.count, 1)
        XCTAssertEqual(records.first?.status, 431)
        XCTAssertEqual(records.first?.accepted, false)
        XCTAssertEqual(records.first?.deviceToken, Fixtures.token)
        XCTAssertEqual(records.first?.topic, "com.example.app")
        XCTAssertTrue(records.first?.problem?.contains("MAX_HEADER_LIST_SIZE") == true, "\(String(describing: records.first?.problem))")
        let next = try CurlClient(port: ports.http2).send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")])
        XCTAssertEqual(next.status, 200)
        try await server.shutdown()
    }

    func testResetStreamCanBeChosen() async throws {
        let (server, ports) = try await TestServer.start { $0.http2.headerListOverflow = .resetStream }

        XCTAssertThrowsError(try CurlClient(port: ports.http2).send(
            path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app"), ("x-big", bigValue)]
        )) { error in
            XCTAssertTrue("\(error)".contains("PROTOCOL_ERROR") || "\(error)".contains("stream"), "\(error)")
        }
        try await server.shutdown()
    }

    func testTheConfigurationFileChoosesTheAnswer() throws {
        XCTAssertEqual(MockAPNsConfiguration().http2.headerListOverflow, .answer431)
        let reset = try MockAPNsConfiguration.parse(json: #"{"http2": {"headerListOverflow": "resetStream"}}"#)
        XCTAssertEqual(reset.http2.headerListOverflow, .resetStream)
        XCTAssertThrowsError(try MockAPNsConfiguration.parse(json: #"{"http2": {"headerListOverflow": "drop"}}"#)) { error in
            XCTAssertTrue("\(error)".contains("headerListOverflow"), "\(error)")
        }
    }

    /// A provider token far over the limit, sent by hand over HEADERS and CONTINUATION (curl
    /// refuses to send one that large): nghttp2 decodes no header value longer than 65,536
    /// bytes as encoded, so a 100 KB `authorization` ends the connection with GOAWAY
    /// COMPRESSION_ERROR instead of 431, and the journal's diagnosis names that limit; a
    /// 20 KB one decodes and is answered 431 like any header list over the limit.
    func testAProviderTokenOverNghttp2sFieldLimitEndsTheConnectionAndIsExplained() async throws {
        let (server, ports) = try await TestServer.start()

        let twenty = try RawHTTP2Client.sendHTTP2(port: ports.http2, bytes: Self.request(authorizationBytes: 20_000), timeout: 1)
        XCTAssertFalse(twenty.frames.contains { $0.type == RawHTTP2Frame.goAway }, "\(twenty.frames.map(\.type))")
        XCTAssertEqual(twenty.answeredStreams, [1])
        XCTAssertEqual(diagnoses(server, "http2.requestRefused").count, 1)

        let hundred = try RawHTTP2Client.sendHTTP2(port: ports.http2, bytes: Self.request(authorizationBytes: 100_000))
        let goAway = try XCTUnwrap(hundred.frames.first { $0.type == RawHTTP2Frame.goAway })
        XCTAssertEqual(bigEndian(goAway.payload[4..<8]), 0x9, "COMPRESSION_ERROR")
        XCTAssertEqual(hundred.answeredStreams, [])
        let explained = diagnoses(server, "http2.connectionError")
        XCTAssertEqual(explained.count, 1, "\(explained)")
        XCTAssertTrue(explained.first?.contains("longer than 65,536 bytes as encoded") == true, "\(explained)")
        XCTAssertTrue(explained.first?.contains("answered 431 instead") == true, "\(explained)")
        try await server.shutdown()
    }

    private func diagnoses(_ server: MockAPNsServer, _ code: String) -> [String] {
        server.journal.events(matching: JournalEventFilter(kinds: ["diagnosis"])).compactMap { event in
            guard case .diagnosis(let recorded, let message, _) = event.kind, recorded.rawValue == code else { return nil }
            return message
        }
    }

    /// A request whose `authorization` value is `bytes` long, its header block split over
    /// HEADERS and CONTINUATION frames of at most 16,384 bytes.
    private static func request(authorizationBytes bytes: Int) -> [UInt8] {
        let block = ClientBytes.requestHeaderBlock + ClientBytes.literal("authorization", "bearer " + String(repeating: "e", count: bytes - 7))
        let chunks = stride(from: 0, to: block.count, by: 16_384).map { Array(block[$0..<min($0 + 16_384, block.count)]) }
        var frames = ClientBytes.opening()
        for (index, chunk) in chunks.enumerated() {
            let endHeaders: UInt8 = index == chunks.count - 1 ? 0x4 : 0
            frames += index == 0
                ? ClientBytes.frame(type: 0x1, flags: endHeaders | 0x1, streamID: 1, payload: chunk)
                : ClientBytes.frame(type: 0x9, flags: endHeaders, streamID: 1, payload: chunk)
        }
        return frames
    }

    /// A request HTTP/2 itself refuses (a NUL in a field value is reset with PROTOCOL_ERROR)
    /// is a notification record too, with the field as sent; the diagnosis quotes the value
    /// whole, NUL and all. A value that is not UTF-8 is recorded with its bytes, not U+FFFD.
    func testFieldsHTTP2RefusesOrThatAreNotUTF8AreRecordedAsSent() async throws {
        let (server, ports) = try await TestServer.start()
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        func literal(_ name: String, _ value: [UInt8]) -> [UInt8] {
            [0, UInt8(name.utf8.count)] + Array(name.utf8) + [UInt8(value.count)] + value
        }
        func request(stream: UInt32, topic: [UInt8]) -> [UInt8] {
            let block = literal(":method", Array("POST".utf8)) + literal(":scheme", Array("https".utf8))
                + literal(":authority", Array("localhost".utf8)) + literal(":path", Array("/3/device/\(Fixtures.token)".utf8))
                + literal("apns-topic", topic)
            let body = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
            return ClientBytes.frame(type: 0x1, flags: 0x4, streamID: stream, payload: block)
                + ClientBytes.frame(type: 0x0, flags: 0x1, streamID: stream, payload: body)
        }
        let withNUL = Array("com.example.app".utf8) + [0] + Array("evil".utf8)
        let notUTF8 = Array("com.example.app".utf8) + [0xFF]
        let bytes = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + ClientBytes.frame(type: 0x4, flags: 0, streamID: 0, payload: [])
            + request(stream: 1, topic: withNUL) + request(stream: 3, topic: notUTF8)
        let outcome = try RawHTTP2Client.sendHTTP2(port: ports.http2, bytes: bytes)
        XCTAssertTrue(outcome.frames.contains { $0.type == 0x3 && $0.streamID == 1 }, "stream 1 is reset")
        XCTAssertEqual(outcome.answeredStreams, [3])

        let records = try await server.waitForNotifications(count: 2)
        let reset = try XCTUnwrap(records.first { $0.streamID == 1 })
        XCTAssertEqual(reset.topic, "com.example.app\u{0}evil", "the topic as sent, NUL included")
        XCTAssertNil(reset.status)
        XCTAssertTrue(reset.dropped)
        let answered = try XCTUnwrap(records.first { $0.streamID == 3 })
        XCTAssertEqual(answered.topic, "com.example.app\\xFF", "the byte sent, not U+FFFD")
        let diagnosis = server.journal.events().compactMap { event -> String? in
            guard case .diagnosis(.http2StreamError, let message, _) = event.kind else { return nil }
            return message
        }.first
        XCTAssertTrue(diagnosis?.contains(#""com.example.app\u{0}evil""#) == true, "\(String(describing: diagnosis))")
    }
}
