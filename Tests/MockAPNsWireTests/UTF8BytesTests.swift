import MockAPNsWire
import XCTest

/// ASCII lowercasing, for field names the relay forwards and device tokens the registry keys.
final class UTF8BytesTests: XCTestCase {
    func testOnlyASCIILettersAreLowercased() {
        let table: [(text: String, lowercased: String)] = [
            ("apns-id", "apns-id"), ("Apns-ID", "apns-id"), ("TE", "te"), ("", ""), (":PATH", ":path"),
            ("A1B2C3D4", "a1b2c3d4"), ("@[`{", "@[`{"),  // the bytes around A-Z stay
            ("x-Ünïcode", "x-Ünïcode"), ("X-Ünï", "x-Ünï"),  // only ASCII letters have a case here
        ]
        for row in table {
            XCTAssertEqual(row.text.asciiLowercased, row.lowercased, row.text)
        }
    }
}
