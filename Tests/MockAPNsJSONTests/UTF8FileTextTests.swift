import MockAPNsJSON
import XCTest

/// Scenario and configuration files must be UTF-8; a file that is not says where.
final class UTF8FileTextTests: XCTestCase {
    func testTheFirstIllFormedByteIsNamedByOffsetAndLine() {
        let cases: [(bytes: [UInt8], offset: Int, byte: UInt8, line: Int)] = [
            (Array(#"{"name": "caf"#.utf8) + [0xE9] + Array(#""}"#.utf8), 13, 0xE9, 1),  // Latin-1 é
            (Array("{\n\"a\":\n\"".utf8) + [0xC3, 0x28] + Array("\"}".utf8), 8, 0xC3, 3),  // truncated 2-byte sequence
            ([0xFF, 0xFE, 0x7B, 0x00], 0, 0xFF, 1),  // UTF-16 with its byte-order mark
            (Array("é".utf8) + [0x80], 2, 0x80, 1),  // a continuation byte alone
            ([0xED, 0xA0, 0x80], 0, 0xED, 1),  // an encoded surrogate
            ([0xC0, 0xAF], 0, 0xC0, 1),  // an overlong slash
        ]
        for (bytes, offset, byte, line) in cases {
            XCTAssertThrowsError(try UTF8FileText.decode(bytes), "\(bytes)") { error in
                XCTAssertEqual(error as? UTF8FileText.InvalidUTF8, UTF8FileText.InvalidUTF8(byteOffset: offset, byte: byte, line: line))
                XCTAssertTrue("\(error)".contains("byte offset \(offset)"), "\(error)")
            }
        }
    }

    func testValidTextDecodesAndLosesItsByteOrderMark() throws {
        XCTAssertEqual(try UTF8FileText.decode(Array(#"{"name": "café ✓"}"#.utf8)), #"{"name": "café ✓"}"#)
        XCTAssertEqual(try UTF8FileText.decode([0xEF, 0xBB, 0xBF] + Array("{}".utf8)), "{}")
        XCTAssertEqual(try UTF8FileText.decode([]), "")
    }
}
