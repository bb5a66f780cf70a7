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

/// A response's HEADERS record shares the submitted list and ids and stands for the list
/// sent: `:status`, then the fields with the ids in their place. It reads, compares and hashes
/// as that list.
final class HTTP2FrameRecordDetailsTests: XCTestCase {
    private let madeID = MessageID.uuid(UUIDBits(high: 0x4F2B_6C1E_9A7D_4E35, low: 0x8C1B_2D3E_4F5A_6B7C, uppercase: true))

    /// RFC 9113, section 8.2.2's fields, in any case; nothing longer, shorter or near them.
    func testConnectionSpecificFieldsAreRFC9113sListInAnyCase() {
        for name in ["connection", "Connection", "keep-alive", "KEEP-ALIVE", "proxy-connection", "transfer-encoding",
                     "Transfer-Encoding", "upgrade", "te", "TE"] {
            XCTAssertTrue(HTTPHeader.isConnectionSpecific(name), name)
        }
        for name in ["", "t", "tes", "host", "connections", "keep_alive", "keep-alivE2", "upgraded", "proxy-connectio",
                     "transfer-encodings", "content-length", "apns-topic", "k\reep-alive"] {
            XCTAssertFalse(HTTPHeader.isConnectionSpecific(name), name)
        }
    }

    func testAResponseReadsComparesAndHashesAsItsHeaderList() {
        let contentType = HTTPHeader(name: "content-type", value: "application/json")
        let extra = HTTPHeader(name: "apns-request-id", value: "r")
        let head = ResponseHead(status: 400, headers: [contentType, extra], apnsID: madeID, uniqueID: "u", idsAfter: 1)
        let list = [
            HTTPHeader(name: ":status", value: "400"), contentType,
            HTTPHeader(name: "apns-id", value: "4F2B6C1E-9A7D-4E35-8C1B-2D3E4F5A6B7C"), HTTPHeader(name: "apns-unique-id", value: "u"), extra,
        ]
        let response = HTTP2FrameRecord.Details.response(head)
        XCTAssertEqual(response.headerList, list)
        XCTAssertEqual(head.fieldCount, 5)
        let visited = (0..<head.fieldCount).map { index -> String in
            switch head.field(at: index) {
            case .text(let name, let value): "\(name)=\(value)"
            case .id(let name, let value): "\(name)#\(value)"
            }
        }
        XCTAssertEqual(visited, [
            ":status=400", "content-type=application/json", "apns-id#4F2B6C1E-9A7D-4E35-8C1B-2D3E4F5A6B7C", "apns-unique-id#u",
            "apns-request-id=r",
        ], "the ids are handed over as values, not text")
        XCTAssertEqual(response, .headers(list))
        XCTAssertEqual(HTTP2FrameRecord.Details.headers(list), response)
        XCTAssertEqual(Set([response, .headers(list)]).count, 1)
        XCTAssertNotEqual(response, .response(ResponseHead(status: 400, headers: [contentType, extra], apnsID: madeID, uniqueID: "u", idsAfter: 0)))
        XCTAssertNotEqual(response, .headers(Array(list.dropFirst())))
        XCTAssertNil(HTTP2FrameRecord.Details.ping(opaqueData: []).headerList)
    }

    /// A made id is its bits until read; it equals the same id given as text, and its bytes
    /// are the canonical text.
    func testAMadeIDEqualsItsTextAndWritesItsBytes() {
        XCTAssertEqual(madeID, .text("4F2B6C1E-9A7D-4E35-8C1B-2D3E4F5A6B7C"))
        XCTAssertNotEqual(madeID, .text("4f2b6c1e-9a7d-4e35-8c1b-2d3e4f5a6b7c"), "the letter case is part of the id")
        XCTAssertEqual(Set<MessageID>([madeID, "4F2B6C1E-9A7D-4E35-8C1B-2D3E4F5A6B7C"]).count, 1)
        XCTAssertEqual(madeID.withUTF8 { Array($0) }, Array("4F2B6C1E-9A7D-4E35-8C1B-2D3E4F5A6B7C".utf8))
        XCTAssertEqual(MessageID.text("é").withUTF8 { Array($0) }, Array("é".utf8))
        // An id is compared as the bytes on the wire, not as Unicode text: a composed é and an e
        // with a combining accent are different ids (and hash as such).
        XCTAssertNotEqual(MessageID.text("\u{E9}"), .text("e\u{301}"))
        XCTAssertEqual(Set<MessageID>([.text("\u{E9}"), .text("e\u{301}")]).count, 2)
    }
}
