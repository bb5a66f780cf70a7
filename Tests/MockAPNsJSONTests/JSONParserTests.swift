import MockAPNsJSON
import XCTest

final class JSONParserTests: XCTestCase {
    func testParsesEveryKindWithPositions() throws {
        let text = "{\n  \"a\": [1, -2.5e3, true, null],\n  \"b\": \"x\\u00e9\\ud83d\\ude00\"\n}"
        let root = try JSONParser.parse(text)
        guard case .object(let members) = root.value else { return XCTFail("expected an object") }
        XCTAssertEqual(members.map(\.key), ["a", "b"])
        XCTAssertEqual(members[0].value.position, SourcePosition(line: 2, column: 8))
        guard case .array(let elements) = members[0].value.value else { return XCTFail("expected an array") }
        XCTAssertEqual(elements.map(\.value), [.number("1"), .number("-2.5e3"), .bool(true), .null])
        XCTAssertEqual(members[1].value.value, .string("xé😀"))
    }

    func testSyntaxErrorsSayWhereAndWhat() {
        let cases: [(text: String, line: Int, column: Int, fragment: String)] = [
            ("{\"a\": 1,}", 1, 9, "member name"),
            ("{\"a\" 1}", 1, 6, "expected ':'"),
            ("[1 2]", 1, 4, "',' or ']'"),
            ("{\"a\": 1, \"a\": 2}", 1, 10, "duplicate member"),
            ("\"unterminated", 1, 14, "unterminated string"),
            ("01", 1, 2, "after the end"),
            ("{\n  \"x\": tru\n}", 2, 8, "expected 'true'"),
            ("", 1, 1, "end of the document"),
        ]
        for item in cases {
            XCTAssertThrowsError(try JSONParser.parse(item.text), item.text) { error in
                guard let error = error as? JSONFileError else { return XCTFail("wrong error type") }
                XCTAssertEqual(error.position, SourcePosition(line: item.line, column: item.column), item.text)
                XCTAssertTrue(error.message.contains(item.fragment), "\(item.text): \(error.message)")
            }
        }
    }

    func testDeepNestingIsRefusedNotACrash() {
        let text = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        XCTAssertThrowsError(try JSONParser.parse(text))
    }

    func testObjectReaderReportsPathsTypesAndUnknownKeys() throws {
        let root = try JSONParser.parse(#"{"port": "2197", "inner": {"limit": 70000}, "extra": 1}"#)
        var reader = try JSONObjectReader(root)
        XCTAssertThrowsError(try reader.integer("port", in: 0...65535)) { error in
            XCTAssertEqual((error as? JSONFileError)?.path, "$.port")
            XCTAssertEqual((error as? JSONFileError)?.message, "expected an integer from 0 to 65535, found a string")
        }
        var inner = try XCTUnwrap(try reader.object("inner"))
        XCTAssertThrowsError(try inner.integer("limit", in: 0...65535)) { error in
            XCTAssertEqual((error as? JSONFileError)?.path, "$.inner.limit")
            XCTAssertEqual((error as? JSONFileError)?.message, "expected an integer from 0 to 65535, found 70000")
        }
        XCTAssertThrowsError(try reader.finish(allowed: ["port", "inner"])) { error in
            XCTAssertEqual((error as? JSONFileError)?.path, "$.extra")
            XCTAssertEqual((error as? JSONFileError)?.position, SourcePosition(line: 1, column: 45))
        }
    }

    private enum Environment: String, CaseIterable {
        case sandbox, production
    }

    func testOneOfListsTheChoices() throws {
        var reader = try JSONObjectReader(try JSONParser.parse(#"{"environment": "prod"}"#))
        XCTAssertThrowsError(try reader.oneOf("environment", Environment.self)) { error in
            XCTAssertEqual((error as? JSONFileError)?.message, #"expected one of "sandbox", "production", found "prod""#)
        }
    }
}
