import MockAPNsWire
import XCTest
@testable import MockAPNsCore

final class HTTP2ResponseRendererTests: XCTestCase {
    private let apnsID = "123e4567-e89b-42d3-a456-426614174000"
    private var madeID: MessageID { .text(apnsID) }

    func testEveryReasonRendersItsStatusAndBody() {
        for reason in Reason.allCases {
            let timestamp: Int64? = reason.carriesTimestamp ? 1_454_402_113_000 : nil
            let response = HTTP2ResponseRenderer.render(.rejected(reason: reason, apnsID: madeID, timestamp: timestamp))
            let expectedBody = reason.carriesTimestamp
                ? #"{"reason":"\#(reason.rawValue)","timestamp":1454402113000}"#
                : #"{"reason":"\#(reason.rawValue)"}"#
            XCTAssertEqual(response.status, reason.httpStatus, reason.rawValue)
            XCTAssertEqual(response.body.map { String(decoding: $0, as: UTF8.self) }, expectedBody, reason.rawValue)
            XCTAssertEqual(response.fields, [
                HTTPHeader(name: "content-type", value: "application/json"),
                HTTPHeader(name: "apns-id", value: apnsID),
            ])
        }
    }

    func testTimestampAppearsOnlyFor410() {
        let response = HTTP2ResponseRenderer.render(.rejected(reason: .badDeviceToken, apnsID: madeID, timestamp: 99))
        XCTAssertEqual(response.body, Array(#"{"reason":"BadDeviceToken"}"#.utf8))
    }

    func testTimestampDigits() {
        let rows: [(Int64, String)] = [
            (0, "0"), (7, "7"), (10, "10"), (1_000, "1000"), (-42, "-42"),
            (Int64.max, "9223372036854775807"), (Int64.min, "-9223372036854775808"),
        ]
        for (value, digits) in rows {
            var bytes: [UInt8] = []
            HTTP2ResponseRenderer.appendDecimal(value, to: &bytes)
            XCTAssertEqual(String(decoding: bytes, as: UTF8.self), digits)
        }
    }

    func testSuccessHasNoBodyAndTheUniqueIDAfterTheAPNsID() {
        let both = HTTP2ResponseRenderer.render(.accepted(apnsID: madeID, uniqueID: "a-unique-id"))
        XCTAssertEqual(both.status, 200)
        XCTAssertNil(both.body)
        XCTAssertEqual(both.fields, [
            HTTPHeader(name: "apns-id", value: apnsID),
            HTTPHeader(name: "apns-unique-id", value: "a-unique-id"),
        ])
        let one = HTTP2ResponseRenderer.render(.accepted(apnsID: madeID, uniqueID: nil))
        XCTAssertEqual(one.fields, [HTTPHeader(name: "apns-id", value: apnsID)])
        XCTAssertNil(one.body)
    }

    /// A made id goes out as its canonical text, in the letter case it was made in.
    func testAMadeIDIsWrittenAsItsText() {
        let bits = UUIDBits(high: 0x0123_4567_89AB_4DEF, low: 0x8EDC_BA98_7654_3210, uppercase: true)
        let answer = HTTP2ResponseRenderer.render(.rejected(reason: .badTopic, apnsID: .uuid(bits), timestamp: nil))
        XCTAssertEqual(answer.fields.last, HTTPHeader(name: "apns-id", value: "01234567-89AB-4DEF-8EDC-BA9876543210"))
    }

    /// The body must parse as JSON with the same fields as Apple's.
    func testErrorBodyIsJSON() throws {
        let response = HTTP2ResponseRenderer.render(.rejected(reason: .unregistered, apnsID: madeID, timestamp: 12))
        let body = try XCTUnwrap(response.body)
        XCTAssertTrue(JSONScanner.isObject(body))
    }
}
