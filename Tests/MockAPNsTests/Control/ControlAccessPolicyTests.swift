import MockAPNsControl
import MockAPNs
import MockAPNsCore
import XCTest

/// What the control API admits before routing: the Host list, the Origin check, the bearer
/// token, and the JSON-only rule for state changes (`ControlAccessPolicy`).
final class ControlAccessPolicyTests: XCTestCase {
    private func request(
        host: String?, method: String = "GET", origin: String? = nil, authorization: String? = nil,
        peer: String? = "127.0.0.1", local: String? = "127.0.0.1"
    ) -> ControlRequestFacts {
        ControlRequestFacts(
            method: method, path: "/v1/health", host: host, origin: origin, authorization: authorization,
            contentType: nil, peerAddress: peer, localAddress: local
        )
    }

    func testTheHostMustBeALoopbackNameTheListenAddressOrAnAddedName() {
        let policy = ControlAccessPolicy(listenHost: "127.0.0.1", allowedHosts: ["mockapns.test", "10.1.2.3"])
        let cases: [(host: String?, status: ControlRefusal.Status?)] = [
            ("localhost", nil),
            ("localhost:2198", nil),
            ("LocalHost.:2198", nil),
            ("127.0.0.1", nil),
            ("127.0.0.1:80", nil),
            ("127.9.9.9:2198", nil),
            ("[::1]", nil),
            ("[::1]:2198", nil),
            ("::1", nil),
            ("[0:0:0:0:0:0:0:1]:2198", nil),
            ("[::ffff:127.0.0.1]:2198", nil),
            ("mockapns.test", nil),
            ("MockAPNs.Test:8080", nil),
            ("10.1.2.3:2198", nil),
            ("evil.example", .misdirectedRequest),
            ("evil.example:2198", .misdirectedRequest),
            ("127.0.0.1.evil.example", .misdirectedRequest),
            ("localhost.evil.example", .misdirectedRequest),
            ("mockapns.test.evil.example", .misdirectedRequest),
            ("192.0.2.7:2198", .misdirectedRequest),
            ("0.0.0.0:2198", .misdirectedRequest),
            ("[::]:2198", .misdirectedRequest),
            (nil, .badRequest),
            ("", .badRequest),
            ("local host", .badRequest),
            ("user@localhost", .badRequest),
            ("localhost:", .badRequest),
            ("localhost:99999", .badRequest),
            ("localhost:80:80", .badRequest),
            ("[::1", .badRequest),
            ("[not-an-address]:80", .badRequest),
            ("localhost/path", .badRequest),
        ]
        for (host, expected) in cases {
            let refusal = policy.refusal(for: request(host: host))
            XCTAssertEqual(refusal?.status, expected, "Host: \(host ?? "(none)")")
            if let refusal {
                XCTAssertEqual(refusal.header, "Host")
            }
        }
    }

    /// The 421 answer names the setting that admits the name.
    func testARefusedNameIsToldWhichSettingAdmitsIt() throws {
        let refusal = try XCTUnwrap(ControlAccessPolicy(listenHost: "127.0.0.1").refusal(for: request(host: "evil.example:2198")))
        XCTAssertTrue(refusal.message.contains("\"evil.example\""), refusal.message)
        XCTAssertTrue(refusal.message.contains("--control-allowed-host NAME (config: control.allowedHosts)"), refusal.message)
    }

    /// Bound to one address, that address is a name too; bound to all of them, the address a
    /// connection arrived on is (typed by hand, it cannot be a rebound name).
    func testTheListenAddressAndTheConnectionsOwnAddressAreAccepted() {
        let bound = ControlAccessPolicy(listenHost: "192.0.2.10")
        XCTAssertNil(bound.refusal(for: request(host: "192.0.2.10:2198", local: "192.0.2.10")))
        XCTAssertEqual(bound.refusal(for: request(host: "192.0.2.11:2198", local: "192.0.2.10"))?.status, .misdirectedRequest)

        let everywhere = ControlAccessPolicy(listenHost: "0.0.0.0")
        XCTAssertNil(everywhere.refusal(for: request(host: "192.0.2.10:2198", local: "192.0.2.10")))
        XCTAssertEqual(everywhere.refusal(for: request(host: "192.0.2.11:2198", local: "192.0.2.10"))?.status, .misdirectedRequest)
        XCTAssertEqual(everywhere.refusal(for: request(host: "laptop.example:2198", local: "192.0.2.10"))?.status, .misdirectedRequest)

        let v6 = ControlAccessPolicy(listenHost: "::")
        XCTAssertNil(v6.refusal(for: request(host: "[2001:db8:0::5]:2198", local: "2001:db8::5")))
    }

    func testOnlyTheAPIsOwnOriginAndAddedOnesMaySendRequests() throws {
        let policy = ControlAccessPolicy(
            listenHost: "127.0.0.1", allowedOrigins: [try XCTUnwrap(WebOrigin("http://localhost:3000/"))]
        )
        let cases: [(host: String, origin: String?, status: ControlRefusal.Status?)] = [
            ("127.0.0.1:2198", nil, nil),
            ("127.0.0.1:2198", "http://127.0.0.1:2198", nil),
            ("localhost:2198", "http://LOCALHOST:2198", nil),
            ("localhost", "http://localhost:80", nil),
            ("[::1]:2198", "http://[::1]:2198", nil),
            ("127.0.0.1:2198", "http://localhost:3000", nil),
            ("127.0.0.1:2198", "HTTP://LocalHost:3000", nil),
            ("127.0.0.1:2198", "http://evil.example", .forbidden),
            ("127.0.0.1:2198", "http://127.0.0.1:2199", .forbidden),
            ("127.0.0.1:2198", "https://127.0.0.1:2198", .forbidden),
            ("127.0.0.1:2198", "http://localhost:2198", .forbidden),
            ("127.0.0.1:2198", "http://localhost:3001", .forbidden),
            ("127.0.0.1:2198", "null", .forbidden),
            ("127.0.0.1:2198", "", .forbidden),
            ("127.0.0.1:2198", "http://127.0.0.1:2198/path", .forbidden),
        ]
        for (host, origin, expected) in cases {
            for method in ["GET", "POST", "PUT", "DELETE"] {
                let refusal = policy.refusal(for: request(host: host, method: method, origin: origin))
                XCTAssertEqual(refusal?.status, expected, "\(method) Host: \(host), Origin: \(origin ?? "(none)")")
            }
        }
        let refusal = try XCTUnwrap(policy.refusal(for: request(host: "127.0.0.1:2198", origin: "http://evil.example")))
        XCTAssertEqual(refusal.header, "Origin")
        XCTAssertTrue(refusal.message.contains("its own origin (http://127.0.0.1:2198)"), refusal.message)
        XCTAssertTrue(refusal.message.contains("--control-allowed-origin ORIGIN (config: control.allowedOrigins)"), refusal.message)
    }

    /// The Host is checked before the Origin: a rebound name is 421 whatever it sends.
    func testAForeignNameIsRefusedBeforeItsOriginIsLookedAt() {
        let policy = ControlAccessPolicy(listenHost: "127.0.0.1")
        let refusal = policy.refusal(for: request(host: "evil.example:2198", method: "POST", origin: "http://evil.example:2198"))
        XCTAssertEqual(refusal?.status, .misdirectedRequest)
    }

    func testOtherMachinesNeedTheTokenAndLoopbackPeersDoNot() throws {
        let token = BearerToken.generate()
        let policy = ControlAccessPolicy(listenHost: "0.0.0.0", token: token)
        let cases: [(peer: String?, authorization: String?, status: ControlRefusal.Status?)] = [
            ("127.0.0.1", nil, nil),
            ("127.0.0.5", nil, nil),
            ("::1", nil, nil),
            ("::ffff:127.0.0.1", nil, nil),
            ("192.0.2.9", "Bearer \(token.value)", nil),
            ("192.0.2.9", "bearer \(token.value)", nil),
            ("192.0.2.9", "BEARER   \(token.value)", nil),
            ("2001:db8::9", "Bearer \(token.value)", nil),
            ("192.0.2.9", nil, .unauthorized),
            ("192.0.2.9", "", .unauthorized),
            ("192.0.2.9", "Bearer", .unauthorized),
            ("192.0.2.9", "Bearer \(token.value)x", .unauthorized),
            ("192.0.2.9", "Bearer \(token.value.dropLast())", .unauthorized),
            ("192.0.2.9", "Basic \(token.value)", .unauthorized),
            ("192.0.2.9", token.value, .unauthorized),
            ("::ffff:192.0.2.9", nil, .unauthorized),
            // A peer the server cannot name counts as another machine.
            (nil, nil, .unauthorized),
        ]
        for (peer, authorization, expected) in cases {
            let refusal = policy.refusal(for: request(host: "192.0.2.10:2198", authorization: authorization, peer: peer, local: "192.0.2.10"))
            XCTAssertEqual(refusal?.status, expected, "peer \(peer ?? "(unknown)"), Authorization: \(authorization ?? "(none)")")
            if let refusal {
                XCTAssertEqual(refusal.header, "Authorization")
                XCTAssertFalse(refusal.message.contains(token.value), "a refusal must not hand out the token")
            }
        }
        // Without a token (loopback only) nobody is asked for one.
        XCTAssertNil(ControlAccessPolicy(listenHost: "127.0.0.1").refusal(for: request(host: "localhost", peer: "192.0.2.9")))
    }

    func testStateChangesMustBeJSONEvenWithoutABody() {
        let cases: [(method: String, contentType: String?, refused: Bool)] = [
            ("GET", nil, false),
            ("HEAD", nil, false),
            ("GET", "text/plain", false),
            ("POST", "application/json", false),
            ("POST", "application/json; charset=utf-8", false),
            ("POST", " Application/JSON ;charset=UTF-8", false),
            ("PUT", "application/json", false),
            ("DELETE", "application/json", false),
            ("POST", nil, true),
            ("POST", "", true),
            ("POST", "text/plain", true),
            ("POST", "text/plain; charset=utf-8", true),
            ("POST", "application/x-www-form-urlencoded", true),
            ("POST", "multipart/form-data; boundary=x", true),
            ("POST", "application/jsonp", true),
            ("POST", "application/json-patch+json", true),
            ("PUT", nil, true),
            ("DELETE", nil, true),
            ("PATCH", "text/plain", true),
        ]
        for (method, contentType, refused) in cases {
            let refusal = ControlAccessPolicy.bodyRefusal(method: method, path: "/v1/reset", contentType: contentType)
            XCTAssertEqual(refusal != nil, refused, "\(method) with \(contentType ?? "no content type")")
            if let refusal {
                XCTAssertEqual(refusal.status, .unsupportedMediaType)
                XCTAssertEqual(refusal.header, "Content-Type")
                XCTAssertTrue(refusal.message.contains("\(method) /v1/reset must be sent with Content-Type: application/json"), refusal.message)
            }
        }
    }

    func testATokenNeverPrintsItselfAndUserTokensAreChecked() throws {
        let token = BearerToken.generate()
        XCTAssertEqual(token.value.count, 43)
        XCTAssertNotEqual(token, BearerToken.generate())
        XCTAssertNoThrow(try BearerToken(token.value))
        for printed in ["\(token)", String(reflecting: token), "\([token])", "\(Optional(token) as Any)"] {
            XCTAssertFalse(printed.contains(token.value), printed)
        }
        XCTAssertThrowsError(try BearerToken("short")) { XCTAssertEqual($0 as? BearerTokenError, .length(5)) }
        XCTAssertThrowsError(try BearerToken(String(repeating: "a", count: 257))) { XCTAssertEqual($0 as? BearerTokenError, .length(257)) }
        XCTAssertThrowsError(try BearerToken("has a space in it..")) { XCTAssertEqual($0 as? BearerTokenError, .characters) }
        XCTAssertThrowsError(try BearerToken("================")) { XCTAssertEqual($0 as? BearerTokenError, .characters) }
        XCTAssertNoThrow(try BearerToken("abcDEF0123456789-._~+/=="))
    }

    func testOriginsAndHostHeadersParse() {
        XCTAssertEqual(WebOrigin("http://Example.COM:8080")?.description, "http://example.com:8080")
        XCTAssertEqual(WebOrigin("https://example.com:443")?.description, "https://example.com")
        XCTAssertEqual(WebOrigin("http://[::1]:2198")?.description, "http://[0:0:0:0:0:0:0:1]:2198")
        for bad in ["null", "example.com", "ftp://example.com", "http://", "http://a b", "http://example.com/x", "http://example.com:0x50"] {
            XCTAssertNil(WebOrigin(bad), bad)
        }
        XCTAssertEqual(HostHeader("[::1]:2198")?.name, "[::1]")
        XCTAssertEqual(HostHeader("[::1]:2198")?.port, 2198)
        XCTAssertEqual(HostHeader("localhost")?.name, "localhost")
        XCTAssertNil(HostHeader("localhost")?.port)
    }
}
