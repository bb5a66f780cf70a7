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
        XCTAssertTrue(server.journal.notifications(matching: NotificationFilter.all, limit: 10).isEmpty,
                      "the refused request is no notification")
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
}
