import MockAPNs
import XCTest

/// The control API binds loopback unless told otherwise; what counts as loopback is decided by
/// parsing the address, not by its spelling.
final class ControlSettingsTests: XCTestCase {
    func testOnlyLoopbackAddressesPassWithoutPermission() {
        let cases: [(host: String, loopback: Bool)] = [
            ("127.0.0.1", true),
            ("127.1.2.3", true),
            ("localhost", true),
            ("::1", true),
            ("[::1]", true),
            ("0:0:0:0:0:0:0:1", true),
            ("::ffff:127.0.0.1", true),
            ("[::ffff:127.9.9.9]", true),
            ("127.attacker.example", false),
            ("127.0.0.1.attacker.example", false),
            ("127.", false),
            ("0.0.0.0", false),
            ("10.0.0.1", false),
            ("::", false),
            ("::ffff:10.0.0.1", false),
            ("::2", false),
            ("", false),
        ]
        for (host, loopback) in cases {
            var settings = MockAPNsConfiguration.ControlSettings()
            settings.host = host
            if loopback {
                XCTAssertNoThrow(try settings.checkHost(), host)
            } else {
                XCTAssertThrowsError(try settings.checkHost(), host)
                settings.allowsNonLoopbackHost = true
                XCTAssertNoThrow(try settings.checkHost(), host)
            }
        }
    }
}
