@testable import MockAPNsHTTP2
import MockAPNsWire
import XCTest

/// The `nghttp2_nv` list a request or response is handed to nghttp2 as: pseudo-headers
/// first, names lowercased, and a request list sent again laid out once.
final class HeaderListEncoderTests: XCTestCase {
    private static func fields(path: String) -> [HTTPHeader] {
        [
            HTTPHeader(name: "apns-topic", value: "com.example.app"), HTTPHeader(name: ":method", value: "POST"),
            HTTPHeader(name: ":path", value: path), HTTPHeader(name: "Authorization", value: "bearer x"),
        ]
    }

    /// The list as nghttp2 reads it: each entry's name and value.
    private static func read(_ encoder: inout HeaderListEncoder, fields: [HTTPHeader]) -> [String] {
        encoder.withHeaderList(fields: fields) { list, count in
            (0..<count).map { index in
                guard let entry = list?[index] else { return "" }
                let name = String(decoding: UnsafeBufferPointer(start: entry.name, count: entry.namelen), as: UTF8.self)
                let value = String(decoding: UnsafeBufferPointer(start: entry.value, count: entry.valuelen), as: UTF8.self)
                return "\(name): \(value)"
            }
        }
    }

    func testARequestListIsItsPseudoHeadersFirstWithNamesLowercased() {
        var encoder = HeaderListEncoder()
        XCTAssertEqual(Self.read(&encoder, fields: Self.fields(path: "/a")), [
            ":method: POST", ":path: /a", "apns-topic: com.example.app", "authorization: bearer x",
        ])
    }

    func testAListSentAgainReadsTheSameAndAnotherListReadsItsOwn() {
        var encoder = HeaderListEncoder()
        let first = Self.fields(path: "/a")
        let expectedFirst = Self.read(&encoder, fields: first)
        XCTAssertEqual(Self.read(&encoder, fields: first), expectedFirst, "the same list, laid out once")
        XCTAssertEqual(Self.read(&encoder, fields: first), expectedFirst)

        let other = Self.fields(path: "/bb")
        XCTAssertEqual(Self.read(&encoder, fields: other)[1], ":path: /bb", "another list is laid out anew")
        XCTAssertEqual(Self.read(&encoder, fields: first), expectedFirst, "and the first again, after it")

        // A response in between lays out its own list; the request's is laid out again after.
        let response = ResponseHead(status: 200, headers: [HTTPHeader(name: "apns-id", value: "x")])
        let answer = encoder.withHeaderList(response: response) { _, count in count }
        XCTAssertEqual(answer, 2)
        XCTAssertEqual(Self.read(&encoder, fields: first), expectedFirst)

        // A list equal to the first, on storage of its own, reads the same.
        var copy = Self.fields(path: "/a")
        copy.reserveCapacity(10)
        XCTAssertEqual(Self.read(&encoder, fields: copy), expectedFirst)
    }

    func testAListChangedAfterItWasSentIsLaidOutAgain() {
        var encoder = HeaderListEncoder()
        var list = Self.fields(path: "/a")
        _ = Self.read(&encoder, fields: list)
        // The encoder holds the list: a change copies it first, so the changed list is new.
        list[2] = HTTPHeader(name: ":path", value: "/z")
        XCTAssertEqual(Self.read(&encoder, fields: list)[1], ":path: /z")
    }
}
