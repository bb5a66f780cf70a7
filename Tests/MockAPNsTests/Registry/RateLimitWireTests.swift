import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest

/// Per-device rate windows over real sockets: the server-wide `registry.rateLimit`, a token's
/// own window through the control API and through a scenario rule, all counted on the server
/// clock, which the test moves through the control API instead of sleeping.
final class RateLimitWireTests: XCTestCase {
    private let token = Fixtures.token

    private func control(_ method: String, _ port: Int, _ path: String, _ body: String? = nil) throws -> [String: Any] {
        var arguments = ["-sS", "-X", method, "http://127.0.0.1:\(port)\(path)"]
        // The control API takes state changes only as JSON, a body or not.
        if method != "GET" { arguments += ["-H", "content-type: application/json"] }
        if let body { arguments += ["--data-binary", body] }
        let result = try ProcessRunner.run("curl", arguments)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
    }

    private func push(_ port: Int, _ token: String? = nil) throws -> CurlResponse {
        try CurlClient(port: port).send(path: "/3/device/\(token ?? self.token)", headers: [("apns-topic", "com.example.app")])
    }

    func testTheServerWideWindowCountsOnTheServerClock() async throws {
        let configuration = try MockAPNsConfiguration.parse(json: #"{"registry": {"rateLimit": {"pushes": 2, "perSeconds": 60}}}"#,
                                                            over: TestServer.configuration { $0.controlPort = 0 })
        XCTAssertEqual(configuration.rateLimit, RateWindow(pushes: 2, perMilliseconds: 60_000))
        let server = MockAPNsServer(configuration: configuration)
        let ports = try await server.start()
        let controlPort = try XCTUnwrap(ports.control)
        _ = try control("PUT", controlPort, "/v1/clock", #"{"time": "2030-01-01T00:00:00Z"}"#)
        XCTAssertEqual(try push(ports.http2).status, 200)
        XCTAssertEqual(try push(ports.http2).status, 200)
        let third = try push(ports.http2)
        XCTAssertEqual(third.status, 429)
        XCTAssertEqual(third.body, #"{"reason":"TooManyRequests"}"#)
        XCTAssertEqual(try push(ports.http2, String(repeating: "0e", count: 32)).status, 200, "another token has its own count")

        let diagnosis = try XCTUnwrap(server.journal.events(matching: JournalEventFilter(kinds: ["diagnosis"])).first { event in
            if case .diagnosis(.registryRateLimited, _, _) = event.kind { return true }
            return false
        })
        let json = JournalJSON.encode(diagnosis)
        XCTAssertTrue(json.contains(#""figures":{"pushes":2,"perMilliseconds":60000,"pushNumber":3,"windowStart":1893456000000,"millisecondsLeft":60000}"#), json)
        XCTAssertTrue(json.contains("registry.rateLimit"), json)

        _ = try control("POST", controlPort, "/v1/clock/advance", #"{"milliseconds": 59999}"#)
        XCTAssertEqual(try push(ports.http2).status, 429, "still the same window")
        _ = try control("POST", controlPort, "/v1/clock/advance", #"{"milliseconds": 1}"#)
        XCTAssertEqual(try push(ports.http2).status, 200, "a new window")
        try await server.shutdown()
    }

    func testATokensOwnWindowThroughTheControlAPI() async throws {
        let (server, ports) = try await TestServer.start { $0.controlPort = 0; $0.clockStart = 1_893_456_000_000 }
        let controlPort = try XCTUnwrap(ports.control)
        XCTAssertEqual(try control("GET", controlPort, "/v1/registry/\(token)/rate-limit")["scope"] as? String, "none")
        let set = try control("PUT", controlPort, "/v1/registry/\(token.uppercased())/rate-limit", #"{"pushes": 1, "perSeconds": 1.5}"#)
        XCTAssertEqual(set["scope"] as? String, "token")
        XCTAssertEqual((set["rateLimit"] as? [String: Any])?["perMilliseconds"] as? Int, 1500)
        XCTAssertEqual((set["rateLimit"] as? [String: Any])?["perSeconds"] as? Double, 1.5)
        XCTAssertEqual(try push(ports.http2).status, 200)
        XCTAssertEqual(try push(ports.http2).status, 429)
        _ = try control("POST", controlPort, "/v1/clock/advance", #"{"milliseconds": 1500}"#)
        XCTAssertEqual(try push(ports.http2).status, 200)
        XCTAssertEqual(try control("DELETE", controlPort, "/v1/registry/\(token)/rate-limit")["scope"] as? String, "none")
        XCTAssertEqual(try push(ports.http2).status, 200)
        XCTAssertEqual(try push(ports.http2).status, 200)

        // Mistakes name the JSON path and what was expected.
        let missing = try control("PUT", controlPort, "/v1/registry/\(token)/rate-limit", #"{"pushes": 1}"#)
        XCTAssertEqual(missing["parameter"] as? String, "$.perSeconds", "\(missing)")
        let negative = try control("PUT", controlPort, "/v1/registry/\(token)/rate-limit", #"{"pushes": -1, "perSeconds": 1}"#)
        XCTAssertEqual(negative["parameter"] as? String, "$.pushes", "\(negative)")
        let extra = try control("PUT", controlPort, "/v1/registry/\(token)/rate-limit", #"{"pushes": 1, "perSeconds": 1, "burst": 2}"#)
        XCTAssertTrue((extra["error"] as? String ?? "").contains("burst"), "\(extra)")
        let badToken = try control("PUT", controlPort, "/v1/registry/xyz/rate-limit", #"{"pushes": 1, "perSeconds": 1}"#)
        XCTAssertTrue((badToken["error"] as? String ?? "").contains("hex"), "\(badToken)")
        try await server.shutdown()
    }

    /// A `limitRate` scenario rule, and the legacy gateway: the window applies to every
    /// protocol, and a push over it is status 255 there (TooManyRequests has no binary status).
    func testAScenarioRuleSetsAWindowForEveryProtocol() async throws {
        let (server, ports) = try await TestServer.start { $0.clockStart = 1_893_456_000_000 }
        let legacyToken = Legacy.token(0x21)
        try server.replaceScenario(jsonText: #"""
        {"name": "rate", "rules": [{"name": "one a minute", "match": {"tokens": ["\#(token)", "\#(Legacy.hex(legacyToken))"]},
          "action": {"type": "limitRate", "pushes": 1, "perSeconds": 60}}]}
        """#)
        XCTAssertEqual(try push(ports.http2).status, 200)
        XCTAssertEqual(try push(ports.http2).status, 429)
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), certificate: "universal",
                                                   send: Legacy.enhanced(identifier: 1, token: legacyToken) + Legacy.enhanced(identifier: 2, token: legacyToken))
        XCTAssertEqual(outcome.received, [8, 255, 0, 0, 0, 2])
        let refused = try await server.waitForNotifications(count: 2, matching: NotificationFilter(reason: .tooManyRequests), timeout: .seconds(10))
        XCTAssertEqual(refused.map(\.transport), [.http2, .legacy])
        server.clock.advance(milliseconds: 60_000)
        XCTAssertEqual(try push(ports.http2).status, 200)
        try await server.shutdown()
    }
}
