import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest

/// `POST /v1/reset`, `GET /v1/scenario`'s firing counts, unknown paths and `GET /metrics`,
/// over real HTTP on a server that real curl pushes to.
final class ResetAndMetricsTests: XCTestCase {
    private var server: MockAPNsServer!
    private var ports: BoundPorts!
    private let pinned: Int64 = 1_767_225_600_000

    /// A scenario answering the first two requests 503, then staying in state "healthy".
    private let flaky = #"""
    {"name": "flaky", "seed": 7, "initialState": "failing",
     "registry": {"unregistered": [{"token": "0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f", "since": 1767225600000}]},
     "rules": [{"name": "unavailable", "requiresState": "failing", "times": 2,
                "action": {"type": "reject", "reason": "ServiceUnavailable"}},
               {"name": "recover", "requiresState": "failing", "setsState": "healthy", "delay": {"milliseconds": 1}}]}
    """#

    override func setUp() async throws {
        (server, ports) = try await TestServer.start { configuration in
            configuration.controlPort = 0
            configuration.clockStart = self.pinned
        }
    }

    override func tearDown() async throws {
        try await server?.shutdown()
    }

    private func call(_ method: String, _ path: String, body: String? = nil) throws -> ControlClient.Reply {
        try ControlClient(port: ports.control ?? 0).call(method, path, body: body)
    }

    private func push(_ token: String = Fixtures.token) throws -> Int {
        try CurlClient(port: ports.http2).send(path: "/3/device/\(token)", headers: [("apns-topic", "com.example.app")]).status
    }

    func testScenarioShowsFiringCountsAndState() throws {
        XCTAssertEqual(try call("PUT", "/v1/scenario", body: flaky).status, 200)
        XCTAssertEqual(try [push(), push(), push()], [503, 503, 200])
        let scenario = try call("GET", "/v1/scenario").json
        XCTAssertEqual(scenario["state"] as? String, "healthy")
        XCTAssertEqual(scenario["requests"] as? Int, 3)
        let firings = try XCTUnwrap(scenario["firings"] as? [[String: Any]])
        XCTAssertEqual(firings.map { $0["rule"] as? String }, ["unavailable", "recover"])
        XCTAssertEqual(firings.map { $0["fired"] as? Int }, [2, 1])
        XCTAssertEqual(firings.first?["times"] as? Int, 2)
    }

    func testResetClearsEverythingAndSaysWhat() throws {
        XCTAssertEqual(try call("PUT", "/v1/scenario", body: flaky).status, 200)
        XCTAssertEqual(try [push(), push(), push()], [503, 503, 200])
        _ = try call("POST", "/v1/registry/\(Fixtures.token)/unregister", body: #"{"since": 1767225600000}"#)
        XCTAssertEqual(try push(), 410)
        _ = try call("POST", "/v1/clock/advance", body: #"{"milliseconds": 60000}"#)
        XCTAssertEqual((try call("GET", "/v1/feedback").json["feedback"] as? [Any])?.count, 2)
        XCTAssertEqual(try call("POST", "/v1/channels", body: #"{"bundleId": "com.example.app"}"#).status, 201)

        let reset = try call("POST", "/v1/reset")
        XCTAssertEqual(reset.status, 200, reset.text)
        let cleared = try XCTUnwrap(reset.json["cleared"] as? [String: Any])
        XCTAssertGreaterThan(cleared["journalEvents"] as? Int ?? 0, 4)
        XCTAssertEqual(cleared["registryTokens"] as? Int, 2)
        XCTAssertEqual(cleared["feedbackEntries"] as? Int, 2)
        XCTAssertEqual(cleared["broadcastChannels"] as? Int, 1)
        let scenario = try XCTUnwrap(cleared["scenario"] as? [String: Any])
        XCTAssertEqual(scenario["name"] as? String, "flaky")
        XCTAssertEqual(scenario["requests"] as? Int, 4)
        XCTAssertEqual(scenario["firings"] as? Int, 3)
        XCTAssertEqual(scenario["state"] as? String, "healthy")
        XCTAssertEqual(reset.json["seed"] as? String, "7", "a string: 64 bits are past what JavaScript holds exactly")
        XCTAssertEqual((reset.json["clock"] as? [String: Any])?["millisecondsSince1970"] as? Int, Int(pinned))

        // Back to the start: empty journal, the scenario's own registry entry and feedback
        // tuple only, the scenario from its first rule, the clock where it was pinned.
        XCTAssertEqual(try call("GET", "/v1/notifications").json["count"] as? Int, 0)
        XCTAssertEqual((try call("GET", "/v1/channels").json["channels"] as? [Any])?.count, 0, "no channel is configured")
        let feedback = try XCTUnwrap(try call("GET", "/v1/feedback").json["feedback"] as? [[String: Any]])
        XCTAssertEqual(feedback.map { $0["deviceToken"] as? String }, [String(repeating: "0f", count: 32)])
        XCTAssertEqual(try call("GET", "/v1/clock").json["millisecondsSince1970"] as? Int, Int(pinned))
        let restarted = try call("GET", "/v1/scenario").json
        XCTAssertEqual(restarted["state"] as? String, "failing")
        XCTAssertEqual((restarted["firings"] as? [[String: Any]])?.map { $0["fired"] as? Int }, [0, 0])
        XCTAssertEqual(try [push(), push(), push()], [503, 503, 200], "the scenario plays again from the start")
        XCTAssertEqual(try push(String(repeating: "0f", count: 32)), 410, "the scenario's registry entry is back")
    }

    func testTheEmbeddingAPIResetsTheSame() async throws {
        try server.replaceScenario(jsonText: flaky)
        XCTAssertEqual(try push(), 503)
        server.clock.advance(milliseconds: 5_000)
        let reset = server.reset()
        XCTAssertEqual(reset.scenarioFirings, 1)
        XCTAssertEqual(reset.scenarioState, "failing")
        XCTAssertEqual(reset.seed, 7)
        XCTAssertEqual(server.clock.millisecondsSince1970, pinned)
        XCTAssertEqual(server.scenarioEngine.firingCounts, [0, 0])
        XCTAssertEqual(server.notifications().count, 0)
    }

    func testUnknownPathsAnswer404WithJSON() throws {
        for (method, path) in [("GET", "/v1/nope"), ("POST", "/v2/reset"), ("GET", "/dashboard/nope.js")] {
            let reply = try call(method, path)
            XCTAssertEqual(reply.status, 404, "\(method) \(path)")
            XCTAssertEqual(reply.json["parameter"] as? String, "path", reply.text)
            XCTAssertTrue((reply.json["error"] as? String)?.contains(path) == true, reply.text)
        }
    }

    func testMetricsCountNotificationsConnectionsAndLatency() throws {
        XCTAssertEqual(try push(), 200)
        XCTAssertEqual(try push(), 200)
        XCTAssertEqual(try push("0123"), 400)
        let reply = try call("GET", "/metrics")
        XCTAssertEqual(reply.status, 200)
        let samples = Self.samples(reply.text)
        XCTAssertEqual(samples[#"mockapns_notifications_total{protocol="http2",status="200",reason=""}"#], 2, reply.text)
        XCTAssertEqual(samples[#"mockapns_notifications_total{protocol="http2",status="400",reason="BadDeviceToken"}"#], 1, reply.text)
        XCTAssertEqual(samples[#"mockapns_connections_total{listener="http2",port="\#(ports.http2)"}"#], 3, reply.text)
        XCTAssertEqual(samples[#"mockapns_request_duration_seconds_count{protocol="http2"}"#], 3, reply.text)
        XCTAssertGreaterThan(samples["mockapns_journal_events_total"] ?? 0, 3, reply.text)
        XCTAssertTrue(reply.text.contains("# TYPE mockapns_request_duration_seconds histogram"), reply.text)
    }

    /// `name{labels} value` lines by their name and labels.
    private static func samples(_ text: String) -> [String: Double] {
        var found: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            found[String(line[..<space])] = value
        }
        return found
    }
}
