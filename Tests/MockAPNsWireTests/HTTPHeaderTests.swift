import MockAPNsWire
import XCTest

/// The pseudo-field check the relay makes for every field it forwards.
final class HTTPHeaderTests: XCTestCase {
    func testPseudoFieldsAreThoseWhoseNameStartsWithAColon() {
        let table: [(name: String, pseudo: Bool)] = [
            (":status", true), (":path", true), (":", true), ("status", false), ("apns-id", false), ("", false),
            ("x:y", false), ("\u{FF1A}path", false),  // a fullwidth colon is no colon
        ]
        for row in table {
            XCTAssertEqual(HTTPHeader.isPseudoField(row.name), row.pseudo, row.name.debugDescription)
        }
    }

}

/// A response's HEADERS record shares the submitted list and stands for that list with
/// `:status` in front: it reads, compares and hashes as that list.
final class HTTP2FrameRecordDetailsTests: XCTestCase {
    func testAResponseReadsComparesAndHashesAsItsHeaderList() {
        let fields = [HTTPHeader(name: "apns-id", value: "4F2B6C1E-9A7D-4E35-8C1B-2D3E4F5A6B7C"), HTTPHeader(name: "apns-unique-id", value: "u")]
        let response = HTTP2FrameRecord.Details.response(status: 200, headers: fields)
        let list = [HTTPHeader(name: ":status", value: "200")] + fields
        XCTAssertEqual(response.headerList, list)
        XCTAssertEqual(response.headerCount, 3)
        var visited: [HTTPHeader] = []
        response.forEachHeader { visited.append(HTTPHeader(name: $0, value: $1)) }
        XCTAssertEqual(visited, list)
        XCTAssertEqual(response, .headers(list))
        XCTAssertEqual(HTTP2FrameRecord.Details.headers(list), response)
        XCTAssertEqual(Set([response, .headers(list)]).count, 1)
        XCTAssertNotEqual(response, .response(status: 400, headers: fields))
        XCTAssertNotEqual(response, .headers(fields))
        XCTAssertNil(HTTP2FrameRecord.Details.ping(opaqueData: []).headerList)
    }
}
