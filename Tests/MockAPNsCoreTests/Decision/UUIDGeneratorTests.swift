import MockAPNsWire
import XCTest
@testable import MockAPNsCore

final class UUIDGeneratorTests: XCTestCase {
    func testGeneratedIDsAreCanonicalVersion4InTheChosenCase() {
        for letterCase in [UUIDLetterCase.uppercase, .lowercase] {
            let generator = UUIDGenerator(letterCase: letterCase)
            for _ in 0..<100 {
                let id = generator.next().text
                XCTAssertCanonicalUUID(id, uppercase: letterCase == .uppercase)
                XCTAssertTrue(UUIDSyntax.isCanonical(id, allowsUppercase: letterCase == .uppercase))
                let bytes = Array(id.utf8)
                XCTAssertEqual(bytes[14], UInt8(ascii: "4"), "version nibble of \(id)")
                XCTAssertTrue(Array("89abAB".utf8).contains(bytes[19]), "variant nibble of \(id)")
            }
        }
    }

    func testFormattingIsExact() {
        XCTAssertEqual(
            UUIDGenerator.version4(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210, uppercase: false).text,
            "01234567-89ab-4def-bedc-ba9876543210"
        )
        XCTAssertEqual(
            UUIDGenerator.version4(high: 0, low: 0, uppercase: true).text,
            "00000000-0000-4000-8000-000000000000"
        )
    }

    func testIDsDoNotRepeat() {
        let generator = UUIDGenerator(letterCase: .lowercase)
        let ids = (0..<10_000).map { _ in generator.next().text }
        XCTAssertEqual(Set(ids).count, ids.count)
    }
}
