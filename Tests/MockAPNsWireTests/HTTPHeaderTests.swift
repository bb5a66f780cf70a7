import MockAPNsWire
import XCTest

/// The field-name checks the relay makes for every field it forwards.
final class HTTPHeaderTests: XCTestCase {
    func testPseudoFieldsAreThoseWhoseNameStartsWithAColon() {
        let table: [(name: String, pseudo: Bool)] = [
            (":status", true), (":path", true), (":", true), ("status", false), ("apns-id", false), ("", false),
            ("x:y", false), ("\u{FF1A}path", false),  // a fullwidth colon is no colon
        ]
        for row in table {
            XCTAssertEqual(HTTPHeader.isPseudoField(row.name), row.pseudo, row.name.debugDescription)
        }
    }

    func testNamesAreLowercasedOnlyInTheirASCIILetters() {
        let table: [(name: String, lowercased: String)] = [
            ("apns-id", "apns-id"), ("Apns-ID", "apns-id"), ("TE", "te"), ("", ""), (":PATH", ":path"),
            ("x-Ünïcode", "x-Ünïcode"), ("X-Ünï", "x-Ünï"),  // only ASCII letters have a case in a field name
        ]
        for row in table {
            XCTAssertEqual(HTTPHeader.lowercasedName(row.name), row.lowercased, row.name)
        }
    }
}
