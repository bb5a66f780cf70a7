import XCTest
@testable import MockAPNsCore

final class JSONSyntaxTests: XCTestCase {
    func testObjectsAreRecognized() {
        let objects = [
            "{}", " {} ", "\n{\"aps\":{}}\r\n", #"{"aps":{"alert":"hi","badge":0,"sound":"default"}}"#,
            #"{"mdm":"00000000-1111-2222-3333-444444444444"}"#,
            #"{"a":[1,-2,3.5,4e10,-0.5E-3,true,false,null,{"b":[]}]}"#,
            #"{"s":"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"}"#, "{\"é\":\"😀\"}",
        ]
        for text in objects {
            XCTAssertTrue(JSONSyntax.isObject(Array(text.utf8)), text)
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
            XCTAssertFalse(JSONSyntax.isObject(Array(text.utf8)), text)
        }
        XCTAssertFalse(JSONSyntax.isObject([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]), "invalid UTF-8")
    }

    func testDeepNestingIsRefusedWithoutExhaustingTheStack() {
        let depth = 100_000
        let deep = Array(repeating: UInt8(ascii: "["), count: depth) + Array(repeating: UInt8(ascii: "]"), count: depth)
        XCTAssertFalse(JSONSyntax.isObject([UInt8(ascii: "{"), UInt8(ascii: "\""), UInt8(ascii: "\""), UInt8(ascii: ":")] + deep + [UInt8(ascii: "}")]))
        let fine = "{\"a\":" + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}"
        XCTAssertTrue(JSONSyntax.isObject(Array(fine.utf8)))
    }
}
