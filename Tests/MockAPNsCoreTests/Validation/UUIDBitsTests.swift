@testable import MockAPNsCore
import MockAPNsWire
import XCTest

/// A canonical UUID whose letters are of one case is its 128 bits and that case, and is written
/// back byte for byte; any other text has no bits (it is kept as text).
final class UUIDBitsTests: XCTestCase {
    func testCanonicalUUIDsOfOneLetterCaseAreWrittenBackExactly() {
        let table: [(text: String, high: UInt64, low: UInt64, uppercase: Bool)] = [
            ("4f2b6c1e-9a7d-4e35-8c1b-2d3e4f5a6b7c", 0x4F2B_6C1E_9A7D_4E35, 0x8C1B_2D3E_4F5A_6B7C, false),
            ("4F2B6C1E-9A7D-4E35-8C1B-2D3E4F5A6B7C", 0x4F2B_6C1E_9A7D_4E35, 0x8C1B_2D3E_4F5A_6B7C, true),
            // No letters: either case writes the same text; it reads as lowercase.
            ("12345678-1234-1234-1234-123456789012", 0x1234_5678_1234_1234, 0x1234_1234_5678_9012, false),
            ("00000000-0000-0000-0000-000000000000", 0, 0, false),
            ("ffffffff-ffff-ffff-ffff-ffffffffffff", .max, .max, false),
            ("FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF", .max, .max, true),
        ]
        for row in table {
            guard let bits = UUIDBits(row.text) else {
                XCTFail("\(row.text) has no bits")
                continue
            }
            XCTAssertEqual(bits, UUIDBits(high: row.high, low: row.low, uppercase: row.uppercase), row.text)
            XCTAssertEqual(bits.text, row.text)
        }
    }

    func testAnythingElseHasNoBits() {
        let refused = [
            "4f2b6c1e-9a7d-4E35-8c1b-2d3e4f5a6b7c",   // mixed case: the bits cannot say which letters were upper
            "4f2b6c1e9a7d4e358c1b2d3e4f5a6b7c",       // no hyphens
            "{4f2b6c1e-9a7d-4e35-8c1b-2d3e4f5a6b7c}", // braces
            "4f2b6c1e-9a7d-4e35-8c1b-2d3e4f5a6b7",    // one digit short
            "4f2b6c1e-9a7d-4e35-8c1b-2d3e4f5a6b7c0",  // one too many
            "4f2b6c1e-9a7d4-e35-8c1b-2d3e4f5a6b7c",   // a hyphen out of place
            "4f2b6c1g-9a7d-4e35-8c1b-2d3e4f5a6b7c",   // not hex
            "4f2b6c1e-9a7d-4e35-8c1b-2d3e4f5a6b7\u{E9}",
            "", "x", "id-1",
        ]
        for text in refused {
            XCTAssertNil(UUIDBits(text), text)
        }
    }

    /// Every byte value at every position of a UUID, against a digit-at-a-time reading: the
    /// eight-at-once reading takes exactly the texts it does, with the same bits and case, and the
    /// validator's check accepts exactly the canonical ones.
    func testEveryByteAtEveryPositionIsReadAsADigitAtATimeReadsIt() {
        let base = Array("0123abcd-4567-89ef-0a1b-2c3d4e5f6789".utf8)
        for position in base.indices {
            for byte in UInt8.min...UInt8.max {
                for letterCase in [false, true] {
                    var bytes = letterCase ? Array(String(decoding: base, as: UTF8.self).uppercased().utf8) : base
                    bytes[position] = byte
                    let text = String(decoding: bytes, as: UTF8.self)
                    let reference = Self.reference(text)
                    XCTAssertEqual(UUIDBits(text), reference?.oneCase, "\(text.debugDescription)")
                    // The validator's check reads the same way: any case, or lowercase only.
                    XCTAssertEqual(UUIDSyntax.isCanonical(text, allowsUppercase: true), reference != nil, "\(text.debugDescription)")
                    XCTAssertEqual(UUIDSyntax.isCanonical(text, allowsUppercase: false), reference?.upper == false, "\(text.debugDescription)")
                }
            }
        }
    }

    /// A plain reading of the canonical form, a character at a time: its bits when its letters
    /// are of one case, and whether it has uppercase ones; `nil` when it is no canonical UUID.
    private static func reference(_ text: String) -> (oneCase: UUIDBits?, upper: Bool)? {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return nil }
        var digits: [UInt64] = []
        var lower = false, upper = false
        for (offset, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(offset) {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits.append(UInt64(byte - UInt8(ascii: "0")))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digits.append(UInt64(byte - UInt8(ascii: "a") + 10)); lower = true
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digits.append(UInt64(byte - UInt8(ascii: "A") + 10)); upper = true
            default: return nil
            }
        }
        let high = digits[..<16].reduce(0) { $0 << 4 | $1 }
        let low = digits[16...].reduce(0) { $0 << 4 | $1 }
        return (lower && upper ? nil : UUIDBits(high: high, low: low, uppercase: upper), upper)
    }

    func testGeneratedIDsOfEitherCaseRoundTrip() {
        for letterCase in [UUIDLetterCase.lowercase, .uppercase] {
            let generator = UUIDGenerator(letterCase: letterCase)
            for _ in 0..<200 {
                let id = generator.next().text
                XCTAssertEqual(UUIDBits(id)?.text, id)
            }
        }
    }
}
