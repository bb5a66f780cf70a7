import XCTest
@testable import MockAPNsCore
import MockAPNsWire

/// What a record says made a push request wrong where its fields cannot show it.
final class HTTP2RequestProblemTests: XCTestCase {
    private func headers(_ pairs: [(String, String)]) -> [HTTPHeader] {
        pairs.map { HTTPHeader(name: $0.0, value: $0.1) }
    }

    func testRepeatedHeaderNamesAreNamedWithTheirCountInTheOrderFirstRepeated() {
        let sent = headers([(":method", "POST"), ("apns-topic", "a"), ("x-trace", "1"), ("apns-topic", "a"),
                            ("x-trace", "2"), ("apns-topic", "b")])
        XCTAssertEqual(HTTP2RequestProblem.describe(.duplicateHeaders, head: RequestHead(sent), scope: .allHeaders),
                       "apns-topic sent 3 times, x-trace sent 2 times")
        // Under the Apple-headers scope a header Apple does not define is not what was refused.
        XCTAssertEqual(HTTP2RequestProblem.describe(.duplicateHeaders, head: RequestHead(sent), scope: .appleHeaders), "apns-topic sent 3 times")
        XCTAssertNil(HTTP2RequestProblem.describe(.duplicateHeaders, head: RequestHead(headers([("apns-topic", "a")])), scope: .allHeaders),
                     "a scripted DuplicateHeaders for a request without any")
    }

    func testAPathOrMethodNoEndpointServesIsQuotedBounded() {
        XCTAssertEqual(HTTP2RequestProblem.describe(.badPath, head: RequestHead(headers([(":method", "POST"), (":path", "/nope")])), scope: .allHeaders),
                       "no endpoint serves POST /nope: a push goes to POST /3/device/<device token>")
        let long = "/" + String(repeating: "x", count: 500)
        let quoted = HTTP2RequestProblem.describe(.badPath, head: RequestHead(headers([(":method", "POST"), (":path", long)])), scope: .allHeaders)
        XCTAssertLessThan(quoted?.count ?? .max, 200, quoted ?? "")
        XCTAssertEqual(HTTP2RequestProblem.describe(.methodNotAllowed, head: RequestHead(headers([(":method", "GET")])), scope: .allHeaders),
                       "method GET: a push is a POST")
    }

    func testReasonsAboutFieldsTheRecordKeepsAddNothing() {
        let sent = headers([(":method", "POST"), (":path", "/3/device/00"), ("apns-topic", "a"), ("apns-topic", "a")])
        for reason in [Reason.badDeviceToken, .badPriority, .payloadTooLarge, .unregistered] {
            XCTAssertNil(HTTP2RequestProblem.describe(reason, head: RequestHead(sent), scope: .allHeaders), "\(reason)")
        }
        XCTAssertNil(HTTP2RequestProblem.describe(nil, head: RequestHead(sent), scope: .allHeaders))
    }
}
