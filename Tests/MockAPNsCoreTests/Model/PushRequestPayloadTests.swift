import MockAPNsCore
import MockAPNsWire
import XCTest

/// A request's payload copied into its connection's arena is the same payload to the decision
/// core as the array it came from: examined in place, compared by its bytes.
final class PushRequestPayloadTests: XCTestCase {
    func testAPayloadInAnArenaIsExaminedInPlaceAndEqualsItsArray() {
        var arena = ByteArena()
        let shared = Array(#"{"aps":{}}"#.utf8).withUnsafeBytes { arena.copy($0) }
        XCTAssertTrue(shared.isInArena)
        XCTAssertEqual(PayloadJSON(shared), PayloadJSON(Array(#"{"aps":{}}"#.utf8)))
        XCTAssertEqual(PayloadJSON(shared).isObject, true)
        let request = PushRequest(transport: .legacy, deviceToken: "ab", payload: shared)
        XCTAssertEqual(request, PushRequest(transport: .legacy, deviceToken: "ab", payload: Array(#"{"aps":{}}"#.utf8)))
        XCTAssertNotEqual(request, PushRequest(transport: .legacy, deviceToken: "ab", payload: Array(#"{"aps":[]}"#.utf8)))
    }
}
