import MockAPNs
import MockAPNsCore
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

    /// The configuration file's keys for who may use the control API, and their mistakes
    /// named by JSON path.
    /// The address printed for the dashboard must be one a browser opens and the API answers:
    /// `http://0.0.0.0:2198/` reaches nothing by that name (the API answers it 421) and
    /// `http://:::2198/` is no URL at all.
    func testTheDashboardAddressIsOneABrowserCanOpen() {
        let cases: [(host: String, address: String)] = [
            ("127.0.0.1", "http://127.0.0.1:2198/"),
            ("localhost", "http://localhost:2198/"),
            ("mockapns.local", "http://mockapns.local:2198/"),
            ("192.0.2.10", "http://192.0.2.10:2198/"),
            ("0.0.0.0", "http://127.0.0.1:2198/"),
            ("::", "http://[::1]:2198/"),
            ("0:0:0:0:0:0:0:0", "http://[::1]:2198/"),
            ("[::]", "http://[::1]:2198/"),
            ("::1", "http://[::1]:2198/"),
            ("[::1]", "http://[::1]:2198/"),
            ("2001:db8::5", "http://[2001:db8::5]:2198/"),
        ]
        for (host, address) in cases {
            var settings = MockAPNsConfiguration.ControlSettings()
            settings.host = host
            XCTAssertEqual(settings.dashboardAddress(port: 2198), address, host)
            XCTAssertEqual(settings.listensOnEveryAddress, ["0.0.0.0", "::", "0:0:0:0:0:0:0:0", "[::]"].contains(host), host)
        }
    }

    func testTheAccessSettingsAreReadFromAConfigurationFile() throws {
        let text = """
        {"control": {"host": "0.0.0.0", "allowNonLoopback": true, "allowedHosts": ["mockapns.test", "10.0.0.5"],
                     "allowedOrigins": ["http://localhost:3000", "https://tools.example:8443/"],
                     "token": "a-token-of-sixteen-or-more"}}
        """
        let control = try MockAPNsConfiguration.parse(json: text).control
        XCTAssertEqual(control.allowedHosts, ["mockapns.test", "10.0.0.5"])
        XCTAssertEqual(control.allowedOrigins.map(\.description), ["http://localhost:3000", "https://tools.example:8443"])
        XCTAssertEqual(control.token?.value, "a-token-of-sixteen-or-more")

        let mistakes: [(text: String, path: String, says: String)] = [
            (#"{"control": {"allowedHosts": ["mockapns.test:2198"]}}"#, "$.control.allowedHosts[0]", "without a port"),
            (#"{"control": {"allowedHosts": ["a b"]}}"#, "$.control.allowedHosts[0]", "host name or address"),
            (#"{"control": {"allowedHosts": "mockapns.test"}}"#, "$.control.allowedHosts", "an array"),
            (#"{"control": {"allowedOrigins": ["localhost:3000"]}}"#, "$.control.allowedOrigins[0]", "an origin like"),
            (#"{"control": {"allowedOrigins": ["http://localhost:3000/app"]}}"#, "$.control.allowedOrigins[0]", "no path"),
            (#"{"control": {"token": "short"}}"#, "$.control.token", "16 to 256 characters"),
            (#"{"control": {"token": "spaces are not allowed here"}}"#, "$.control.token", "only letters"),
            (#"{"control": {"token": 12345678901234567}}"#, "$.control.token", "expected a string"),
        ]
        for (text, path, says) in mistakes {
            XCTAssertThrowsError(try MockAPNsConfiguration.parse(json: text), text) { error in
                let error = error as? JSONFileError
                XCTAssertEqual(error?.path, path, text)
                XCTAssertTrue(error?.message.contains(says) == true, "\(text): \(error?.message ?? "")")
                XCTAssertFalse(error?.description.contains("spaces are not allowed") == true, "a refused token is not repeated")
            }
        }
    }
}
