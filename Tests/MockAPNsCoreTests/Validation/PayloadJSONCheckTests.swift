@testable import MockAPNsCore
import XCTest

/// One pass over a payload answers both questions asked of it, and each answer is the one the
/// separate checks gave.
final class PayloadJSONCheckTests: XCTestCase {
    func testOnePassAnswersWhetherItIsAnObjectAndWhereItStopsBeingJSON() {
        let rows: [(payload: [UInt8], problem: PayloadJSONCheck.Problem?, isObject: Bool)] = [
            (Array(#"{"aps":{"alert":"hi"}}"#.utf8), nil, true),
            (Array(" \n{\"a\":[1,2,{}]}\t ".utf8), nil, true),
            (Array(#"["not","an","object"]"#.utf8), nil, false),
            (Array("42".utf8), nil, false),
            (Array(#"{"a":1} {"#.utf8), .badByte(offset: 8), false),
            (Array(#"{"a":1"#.utf8), .incomplete, false),
            (Array(#"{"a":tru}"#.utf8), .badByte(offset: 8), false),
            (Array("hello".utf8), .badByte(offset: 0), false),
            // UTF-8 is checked only for the object question: a string's bytes are not the grammar's.
            ([0x7B, 0x22, 0xC3, 0xA9, 0x22, 0x3A, 0x31, 0x7D], nil, true),
            ([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D], nil, false),
            ([], nil, false),
        ]
        for row in rows {
            let examined = PayloadJSON(row.payload)
            let text = String(decoding: row.payload, as: UTF8.self)
            XCTAssertEqual(examined.problem, row.problem, text)
            XCTAssertEqual(examined.isObject, row.isObject, text)
            XCTAssertEqual(row.payload.withUnsafeBytes { PayloadJSON($0) }, examined, "in place: \(text)")
            XCTAssertEqual(JSONScanner.isObject(row.payload), row.isObject, text)
        }
    }

    /// The same examination says whether the payload is JSON at all (what the delivery view
    /// shows as JSON) and, when asked, keeps its JSON value for the readers of its structure;
    /// without the request it keeps none.
    func testTheExaminationSaysWhetherItIsJSONAndKeepsTheValueWhenAsked() {
        let rows: [(payload: String, isJSON: Bool, value: JSONValue?)] = [
            (#"{"aps":{"badge":1}}"#, true, .object([])),
            (#" ["a"] "#, true, .array([])),
            ("42", true, .number("42")),
            (#"{"a":1} x"#, false, nil),
            ("nope", false, nil),
            ("", false, nil),
            // JSON, though the parser refuses a repeated key: nothing to read, still shown as JSON.
            (#"{"a":1,"a":2}"#, true, nil),
        ]
        for row in rows {
            let bytes = Array(row.payload.utf8)
            let plain = PayloadJSON(bytes)
            let kept = PayloadJSON(bytes, keepingValue: true)
            XCTAssertEqual(plain.isJSON, row.isJSON, row.payload)
            XCTAssertEqual(kept.isJSON, row.isJSON, row.payload)
            XCTAssertFalse(plain.keepsValue)
            XCTAssertNil(plain.value, row.payload)
            XCTAssertTrue(kept.keepsValue)
            switch (kept.value, row.value) {
            case (.object?, .object?), (.array?, .array?), (nil, nil): break
            case (let found, let expected): XCTAssertEqual(found, expected, row.payload)
            }
        }
        XCTAssertFalse(PayloadJSON([0x22, 0xFF, 0x22]).isJSON, "not UTF-8")
        let value = PayloadJSON(Array(#"{"aps":{"badge":1}}"#.utf8), keepingValue: true).value
        guard case .object(let members)? = value, case .object(let aps) = members.first?.value.value else {
            return XCTFail("expected the payload's object")
        }
        XCTAssertEqual(members.map(\.key), ["aps"])
        XCTAssertEqual(aps.first?.value.value, .number("1"))
    }

    func testTooDeepIsValidJSONButNotAnObjectTheRulesAccept() {
        let depth = JSONScanner.objectMaximumDepth + 1
        let payload = Array(("{\"a\":" + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1) + "}").utf8)
        let examined = PayloadJSON(payload)
        XCTAssertNil(examined.problem, "deep nesting is still JSON: no diagnosis")
        XCTAssertFalse(examined.isObject)
    }

    func testTheRulesUseTheExaminationTheyAreGiven() {
        let rules = PayloadRules(options: ValidationOptions(nonObjectPayload: .reject(.badMessageId)))
        let request = PushRequest(transport: .http2, deviceToken: "ab", payload: Array("[1]".utf8))
        XCTAssertEqual(rules.check(request), .badMessageId)
        XCTAssertEqual(rules.check(request, json: PayloadJSON(request.payload)), .badMessageId)
        let object = PushRequest(transport: .http2, deviceToken: "ab", payload: Array("{}".utf8))
        XCTAssertNil(rules.check(object, json: PayloadJSON(object.payload)))
    }

    func testProblems() {
        let rows: [(String, PayloadJSONCheck.Problem?)] = [
            (#"{"aps":{}}"#, nil),
            (" {\"a\":1} \n", nil),
            (#"{"aps":{"alert":hi}}"#, .badByte(offset: 16)),
            (#"{"aps":"#, .incomplete),
            (#"{"a":1}x"#, .badByte(offset: 7)),
            ("", nil),
        ]
        for (text, expected) in rows {
            XCTAssertEqual(PayloadJSON(Array(text.utf8)).problem, expected, text)
        }
        XCTAssertEqual(PayloadJSONCheck.describe(.badByte(offset: 3)), "the payload is not valid JSON (first bad byte at offset 3)")
    }
}
