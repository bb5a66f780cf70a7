import XCTest
import MockAPNsWire
@testable import MockAPNsCapture

/// Header blocks as literals without indexing (RFC 7541, 6.2.2), checked against the RFC's
/// own examples.
final class HPACKLiteralsTests: XCTestCase {
    func testALiteralWithANewNameAsTheRFCSpellsIt() {
        // C.2.1 spells `custom-key: custom-header` with incremental indexing (0x40); without
        // indexing only the first byte differs.
        let expected: [UInt8] = [0x00, 0x0a] + Array("custom-key".utf8) + [0x0d] + Array("custom-header".utf8)
        XCTAssertEqual(HPACKLiterals.block([HTTPHeader(name: "custom-key", value: "custom-header")]), expected)
    }

    func testIntegersPastTheirPrefixContinueInSevenBitGroups() {
        var bytes: [UInt8] = []
        HPACKLiterals.integer(1337, prefixBits: 5, into: &bytes)  // C.1.2
        XCTAssertEqual(bytes, [0x1f, 0x9a, 0x0a])
        bytes = []
        HPACKLiterals.integer(10, prefixBits: 5, into: &bytes)  // C.1.1
        XCTAssertEqual(bytes, [0x0a])
        bytes = []
        HPACKLiterals.integer(127, prefixBits: 7, into: &bytes)
        XCTAssertEqual(bytes, [0x7f, 0x00])
    }

    func testALongValueHasAMultiByteLength() {
        let value = String(repeating: "x", count: 200)
        let block = HPACKLiterals.block([HTTPHeader(name: "a", value: value)])
        XCTAssertEqual(Array(block.prefix(6)), [0x00, 0x01, UInt8(ascii: "a"), 0x7f, 0x49, UInt8(ascii: "x")])
        XCTAssertEqual(block.count, 3 + 2 + 200)
    }
}
