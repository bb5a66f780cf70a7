import MockAPNs
import MockAPNsCore
import MockAPNsHTTP2
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
}
