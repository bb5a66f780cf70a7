import MockAPNsWire
import XCTest

/// The pseudo-field check the relay makes for every field it forwards.
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

}
