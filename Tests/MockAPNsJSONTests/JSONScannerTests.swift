import XCTest
@testable import MockAPNsJSON

/// The one JSON syntax checker: where a value ends (the legacy payload diagnoses), and
/// whether a payload is one JSON object (the payload rules).
final class JSONScannerTests: XCTestCase {
    func testObjectsAreRecognized() {
        let objects = [
            "{}", " {} ", "\n{\"aps\":{}}\r\n", #"{"aps":{"alert":"hi","badge":0,"sound":"default"}}"#,
            #"{"mdm":"00000000-1111-2222-3333-444444444444"}"#,
            #"{"a":[1,-2,3.5,4e10,-0.5E-3,true,false,null,{"b":[]}]}"#,
            #"{"s":"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"}"#, "{\"é\":\"😀\"}",
        ]
        for text in objects {
            XCTAssertTrue(JSONScanner.isObject(Array(text.utf8)), text)
        }
    }

    func testEverythingElseIsRefused() {
        let others = [
            "", " ", "[]", "\"text\"", "42", "true", "null", "{", "}", "{}{}", "{} x", "{\"a\"}",
            "{\"a\":}", "{\"a\":1,}", "{a:1}", "{'a':1}", "{\"a\":01}", "{\"a\":1.}", "{\"a\":.5}",
            "{\"a\":+1}", "{\"a\":tru}", "{\"a\":\"\\x\"}", "{\"a\":\"\\u12\"}", "{\"a\":\"tab\there\"}",
            "{\"a\":[1 2]}", "{\"a\":1 \"b\":2}",
        ]
        for text in others {
            XCTAssertFalse(JSONScanner.isObject(Array(text.utf8)), text)
        }
        XCTAssertFalse(JSONScanner.isObject([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]), "invalid UTF-8")
    }

    func testDeepNestingIsRefusedWithoutExhaustingTheStack() {
        let depth = 100_000
        let deep = Array(repeating: UInt8(ascii: "["), count: depth) + Array(repeating: UInt8(ascii: "]"), count: depth)
        XCTAssertFalse(JSONScanner.isObject([UInt8(ascii: "{"), UInt8(ascii: "\""), UInt8(ascii: "\""), UInt8(ascii: ":")] + deep + [UInt8(ascii: "}")]))
        let fine = "{\"a\":" + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}"
        XCTAssertTrue(JSONScanner.isObject(Array(fine.utf8)))
    }

    func scan(_ text: String) -> JSONScanner.Outcome {
        Array(text.utf8).withUnsafeBytes { JSONScanner.scanValue($0) }
    }

    func testCompleteValues() {
        XCTAssertEqual(scan(#"{"a":[1,2.5,-3e+2,true,false,null,"x\n\u00e9"]}"#), .complete(end: 47))
        XCTAssertEqual(scan("  []"), .complete(end: 4))
        XCTAssertEqual(scan("0"), .complete(end: 1))
        XCTAssertEqual(scan(#"{"a":1} trailing"#), .complete(end: 7))
    }

    func testTruncatedValues() {
        for text in [#"{"a":"#, #"{"a":"b"#, "[1,", "tru", "-", "1.", "1e", #""\u00"#, "{", "   "] {
            XCTAssertEqual(scan(text), .truncated, text)
        }
    }

    func testInvalidValues() {
        XCTAssertEqual(scan("{'a':1}"), .invalid(offset: 1))
        XCTAssertEqual(scan("[1,]"), .invalid(offset: 3))
        XCTAssertEqual(scan("01"), .complete(end: 1), "a leading zero ends the number")
        XCTAssertEqual(scan(#"{"a" 1}"#), .invalid(offset: 5))
        XCTAssertEqual(scan("[1}"), .invalid(offset: 2))
        XCTAssertEqual(scan("\"a\u{1}\""), .invalid(offset: 2))
        XCTAssertEqual(scan(#""\x""#), .invalid(offset: 2))
        XCTAssertEqual(scan("nul1"), .invalid(offset: 3))
    }

    func testDeepNestingNeitherCrashesNorRecurses() {
        let depth = 60_000
        let open = String(repeating: "[", count: depth)
        XCTAssertEqual(scan(open), .truncated)
        XCTAssertEqual(scan(open + String(repeating: "]", count: depth)), .complete(end: 2 * depth))
        let mixed = String(repeating: #"{"a":["#, count: 100) + "1" + String(repeating: "]}", count: 100)
        XCTAssertEqual(scan(mixed), .complete(end: mixed.utf8.count))
        XCTAssertEqual(scan(String(repeating: #"{"a":["#, count: 100) + "1" + String(repeating: "}]", count: 100)), .invalid(offset: 601))
    }

    func testIsObjectAllowsNestingToTheLimitAndNoDeeper() {
        let limit = JSONScanner.objectMaximumDepth
        func nested(_ depth: Int) -> [UInt8] {
            Array(("{\"a\":" + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1) + "}").utf8)
        }
        XCTAssertTrue(JSONScanner.isObject(nested(limit)))
        XCTAssertFalse(JSONScanner.isObject(nested(limit + 1)))
    }
}
