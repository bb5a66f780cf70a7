import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest

/// The control API over real HTTP, driven by curl.
final class ControlAPITests: XCTestCase {
    private var server: MockAPNsServer!
    private var ports: BoundPorts!

    override func setUp() async throws {
        (server, ports) = try await TestServer.start { $0.controlPort = 0 }
    }

    override func tearDown() async throws {
        try await server?.shutdown()
    }

    /// One request with curl; the body is JSON text.
    private func call(_ method: String, _ path: String, body: String? = nil) throws -> ControlClient.Reply {
        try ControlClient(port: ports.control ?? 0).call(method, path, body: body)
    }

    private func push(token: String = Fixtures.token) throws {
        _ = try CurlClient(port: ports.http2).send(path: "/3/device/\(token)", headers: [("apns-topic", "com.example.app")])
    }

    func testHealthPortsAndTheOpenAPIDocument() throws {
        XCTAssertNotNil(ports.control)
        XCTAssertEqual(try call("GET", "/v1/health").json["status"] as? String, "ok")
        let reported = try call("GET", "/v1/ports").json
        XCTAssertEqual(reported["http2"] as? Int, ports.http2)
        XCTAssertEqual(reported["control"] as? Int, ports.control)
        let openapi = try call("GET", "/openapi.json")
        XCTAssertEqual(openapi.status, 200)
        XCTAssertEqual(openapi.json["openapi"] as? String, "3.0.3")
        let paths = try XCTUnwrap(openapi.json["paths"] as? [String: Any])
        XCTAssertNotNil(paths["/v1/notifications/wait"])
    }

    func testNotificationsAreListedAndFiltered() throws {
        let other = String(repeating: "0f", count: 32)
        try push()
        try push(token: other)
        let all = try call("GET", "/v1/notifications")
        XCTAssertEqual(all.json["count"] as? Int, 2)
        let mine = try call("GET", "/v1/notifications?token=\(other.uppercased())&status=200&protocol=http2")
        let records = try XCTUnwrap(mine.json["notifications"] as? [[String: Any]])
        XCTAssertEqual(records.map { $0["deviceToken"] as? String }, [other])
        let first = try XCTUnwrap((all.json["notifications"] as? [[String: Any]])?.first?["seq"] as? Int)
        let after = try call("GET", "/v1/notifications?after=\(first)&limit=5")
        XCTAssertEqual(after.json["count"] as? Int, 1)
        XCTAssertEqual(try call("GET", "/v1/notifications?reason=BadDeviceToken").json["count"] as? Int, 0)
    }

    func testBadParametersAreRefusedWithTheParameterNamed() throws {
        let cases: [(String, String, String?, String)] = [
            ("GET", "/v1/notifications?limit=0", nil, "limit"),
            ("GET", "/v1/notifications?status=abc", nil, "status"),
            ("GET", "/v1/notifications?protocol=spdy", nil, "protocol"),
            ("GET", "/v1/notifications?reason=Nope", nil, "reason"),
            ("GET", "/v1/notifications?tokn=aa", nil, "tokn"),
            ("GET", "/v1/notifications/wait?timeout=5", nil, "count"),
            ("GET", "/v1/notifications/wait?count=1&timeout=-1", nil, "timeout"),
            ("GET", "/v1/events?type=frames", nil, "type"),
            ("POST", "/v1/registry/not-hex/unregister", nil, "token"),
            ("POST", "/v1/registry/\(Fixtures.token)/unregister", #"{"since":"yesterday"}"#, "$.since"),
            ("POST", "/v1/registry/\(Fixtures.token)/unregister", #"{"sinse":1}"#, "$.sinse"),
            ("PUT", "/v1/registry/\(Fixtures.token)/topics", #"{}"#, "$.topics"),
            ("PUT", "/v1/clock", #"{"time":"tomorrow"}"#, "$.time"),
            ("POST", "/v1/clock/advance", #"{"milliseconds":1"#, "$"),
            ("POST", "/v1/feedback", #"{"deviceToken":"xyz"}"#, "$.deviceToken"),
            ("PUT", "/v1/scenario", #"{"rules":"#, "body"),
        ]
        for (method, path, body, parameter) in cases {
            let reply = try call(method, path, body: body)
            XCTAssertEqual(reply.status, 400, "\(method) \(path)")
            XCTAssertEqual(reply.json["parameter"] as? String, parameter, "\(method) \(path): \(reply.json)")
            XCTAssertFalse((reply.json["error"] as? String ?? "").isEmpty, "\(method) \(path)")
        }
    }

    func testLongPollAnswersWhenTheLastNotificationArrives() async throws {
        let control = try XCTUnwrap(ports.control)
        let started = Date()
        async let reply = Task.detached {
            try ProcessRunner.run("curl", ["-sS", "http://127.0.0.1:\(control)/v1/notifications/wait?count=2&timeout=60000&token=\(Fixtures.token)"], timeout: 90)
        }.value
        try await waitUntil("the long-poll to park") { server.journal.waitingReaders > 0 }
        try push()
        try push()
        let result = try await reply
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json["count"] as? Int, 2)
        XCTAssertEqual(json["complete"] as? Bool, true)
        XCTAssertLessThan(Date().timeIntervalSince(started), 30, "answered by the arrival, not the 60 s timeout")
    }

    func testLongPollTimesOutWithWhatItHas() throws {
        let reply = try call("GET", "/v1/notifications/wait?count=1&timeout=200")
        XCTAssertEqual(reply.status, 408, "a wait that ran out is not a success")
        XCTAssertEqual(reply.json["complete"] as? Bool, false)
        XCTAssertEqual(reply.json["count"] as? Int, 0)
        XCTAssertEqual((reply.json["nearMisses"] as? [Any])?.count, 0, "nothing was recorded, so nothing almost matched")
    }

    /// A wait that runs out answers 408 with what matched and the near misses, ranked, each
    /// with the conditions it failed: expected and actual.
    func testALongPollThatTimesOutNamesItsNearMisses() throws {
        let other = String(repeating: "0f", count: 32)
        try push(token: other)
        try push()
        let reply = try call("GET", "/v1/notifications/wait?count=1&timeout=100&token=\(Fixtures.token)&status=410&pushType=alert&priority=5")
        XCTAssertEqual(reply.status, 408, reply.text)
        XCTAssertEqual(reply.json["complete"] as? Bool, false)
        let misses = try XCTUnwrap(reply.json["nearMisses"] as? [[String: Any]])
        XCTAssertEqual(misses.count, 2)
        let closest = try XCTUnwrap(misses.first)
        XCTAssertEqual((closest["notification"] as? [String: Any])?["deviceToken"] as? String, Fixtures.token)
        let differences = try XCTUnwrap(closest["differences"] as? [[String: String]])
        XCTAssertEqual(differences, [
            ["condition": "pushType", "expected": "alert", "actual": "none"],
            ["condition": "priority", "expected": "5", "actual": "none"],
            ["condition": "status", "expected": "410", "actual": "200"],
        ])
        XCTAssertEqual((misses.last?["differences"] as? [[String: String]])?.first?["condition"], "token")
        XCTAssertTrue((reply.json["error"] as? String ?? "").contains("status: expected 410, got 200"), reply.text)
    }

    func testEventsWaitForTheNextEventWhenAFollowerIsUpToDate() async throws {
        let control = try XCTUnwrap(ports.control)
        let last = try XCTUnwrap(try call("GET", "/v1/journal").json["lastSequence"] as? Int)
        let started = Date()
        async let reply = Task.detached {
            try ProcessRunner.run("curl", ["-sS", "http://127.0.0.1:\(control)/v1/events?after=\(last)&type=notification&wait=60000"], timeout: 90)
        }.value
        try await waitUntil("the long-poll to park") { server.journal.waitingReaders > 0 }
        try push()
        let output = try await reply.stdout
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        XCTAssertEqual((json["events"] as? [[String: Any]])?.count, 1)
        XCTAssertLessThan(Date().timeIntervalSince(started), 30)
    }

    /// A protocol filter looks each event's connection up in the journal; a long-poll with one
    /// once stopped the process (the lookup ran under the journal's own lock).
    func testEventsLongPollWithAProtocolFilterWhileConnectionsAreOpen() async throws {
        let control = try XCTUnwrap(ports.control)
        try push()
        let quiet = try call("GET", "/v1/events?protocol=legacy&wait=300")
        XCTAssertEqual(quiet.status, 200)
        XCTAssertEqual((quiet.json["events"] as? [[String: Any]])?.count, 0)

        let last = try XCTUnwrap(try call("GET", "/v1/journal").json["lastSequence"] as? Int)
        async let reply = Task.detached {
            try ProcessRunner.run("curl", ["-sS", "http://127.0.0.1:\(control)/v1/events?after=\(last)&protocol=http2&wait=5000"], timeout: 30)
        }.value
        try await waitUntil("the long-poll to park") { server.journal.waitingReaders > 0 }
        try push()
        let output = try await reply.stdout
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let events = try XCTUnwrap(json["events"] as? [[String: Any]])
        XCTAssertFalse(events.isEmpty)
        XCTAssertEqual(try call("GET", "/v1/health").status, 200, "the server is still there")
    }

    func testEventsFilterAndClear() throws {
        try push()
        let frames = try call("GET", "/v1/events?type=http2Frame&protocol=http2")
        let events = try XCTUnwrap(frames.json["events"] as? [[String: Any]])
        XCTAssertFalse(events.isEmpty)
        XCTAssertTrue(events.allSatisfy { $0["type"] as? String == "http2Frame" })
        XCTAssertEqual(try call("DELETE", "/v1/journal").json["cleared"] as? Bool, true)
        XCTAssertEqual(try call("GET", "/v1/journal").json["count"] as? Int, 0)
    }

    func testRegistryChangesDecideTheNextPush() throws {
        let path = "/v1/registry/\(Fixtures.token)"
        XCTAssertEqual(try call("POST", path + "/unregister", body: #"{"since":1700000000000}"#).status, 200)
        var response = try CurlClient(port: ports.http2).send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")])
        XCTAssertEqual(response.status, 410)
        XCTAssertTrue(response.body.contains("1700000000000"), response.body)

        XCTAssertEqual(try call("POST", path + "/reactivate").status, 200)
        XCTAssertEqual(try call("PUT", path + "/topics", body: #"{"topics":["com.example.other"]}"#).status, 200)
        response = try CurlClient(port: ports.http2).send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")])
        XCTAssertEqual(response.status, 400)

        XCTAssertEqual(try call("DELETE", path).status, 200)
        XCTAssertEqual(try call("POST", path + "/expire").status, 200)
        response = try CurlClient(port: ports.http2).send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")])
        XCTAssertEqual(response.status, 410)
        XCTAssertTrue(response.body.contains("ExpiredToken"), response.body)
    }

    func testFeedbackEntriesCanBeAddedAndListed() throws {
        let token = String(repeating: "ab", count: 32)
        let reply = try call("POST", "/v1/feedback", body: #"{"deviceToken":"\#(token)","timestamp":1700000000000}"#)
        XCTAssertEqual(reply.status, 200)
        let entries = try XCTUnwrap(try call("GET", "/v1/feedback").json["feedback"] as? [[String: Any]])
        XCTAssertEqual(entries.first?["deviceToken"] as? String, token)
        XCTAssertEqual(entries.first?["timestamp"] as? Int, 1_700_000_000_000)
    }

    /// A feedback tuple carries 32-bit seconds; a time beyond them is refused with the field
    /// and the range named, instead of being queued and silently skipped at send time.
    func testFeedbackTimeBeyondThirtyTwoBitsIsRefused() throws {
        let token = String(repeating: "cd", count: 32)
        for timestamp in ["4294967296000", "-1", "9223372036854775807"] {
            let reply = try call("POST", "/v1/feedback", body: #"{"deviceToken":"\#(token)","timestamp":\#(timestamp)}"#)
            XCTAssertEqual(reply.status, 400, timestamp)
            XCTAssertEqual(reply.json["parameter"] as? String, "$.timestamp", "\(reply.json)")
            XCTAssertTrue((reply.json["error"] as? String)?.contains("4294967295999") == true, "\(reply.json)")
        }
        XCTAssertEqual((try call("GET", "/v1/feedback").json["feedback"] as? [Any])?.count, 0)
        let last = try call("POST", "/v1/feedback", body: #"{"deviceToken":"\#(token)","timestamp":4294967295999}"#)
        XCTAssertEqual(last.status, 200)
    }

    func testClockCanBeSetAdvancedAndResumed() throws {
        var reply = try call("PUT", "/v1/clock", body: #"{"time":"2026-01-01T00:00:00Z"}"#)
        XCTAssertEqual(reply.json["millisecondsSince1970"] as? Int, 1_767_225_600_000)
        XCTAssertEqual(reply.json["fixed"] as? Bool, true)
        reply = try call("POST", "/v1/clock/advance", body: #"{"milliseconds":3600000}"#)
        XCTAssertEqual(reply.json["millisecondsSince1970"] as? Int, 1_767_229_200_000)
        XCTAssertEqual(server.clock.millisecondsSince1970, 1_767_229_200_000)
        reply = try call("POST", "/v1/clock/resume")
        XCTAssertEqual(reply.json["fixed"] as? Bool, false)
    }

    func testScenarioCanBeReadAndReplaced() throws {
        XCTAssertEqual(try call("GET", "/v1/scenario").json["name"] as? String, "none")
        let reply = try call("PUT", "/v1/scenario", body: #"{"name":"from-control","rules":[]}"#)
        XCTAssertEqual(reply.status, 200, "\(reply.json)")
        XCTAssertEqual(reply.json["name"] as? String, "from-control")
        XCTAssertEqual(server.currentScenario.name, "from-control")
    }

    // MARK: Rules added on top of the scenario

    /// `POST /v1/scenario/rules` answers 201 with the id and the rule as stored; the rule
    /// answers pushes before the scenario's own rules, is listed with its firings, outlives a
    /// replaced scenario, and `DELETE` by its id takes it away (then 404).
    func testARuleIsAddedOnTopListedKeptAcrossAScenarioAndRemovedByItsID() throws {
        let scenario = #"{"name":"base","rules":[{"name":"everyone 500","action":{"type":"reject","reason":"InternalServerError"}}]}"#
        XCTAssertEqual(try call("PUT", "/v1/scenario", body: scenario).status, 200)
        let added = try call("POST", "/v1/scenario/rules", body: #"{"match":{"tokens":["\#(Fixtures.token.uppercased())"]},"action":{"type":"reject","reason":"Unregistered","timestamp":1700000000000}}"#)
        XCTAssertEqual(added.status, 201, added.text)
        let id = try XCTUnwrap(added.json["id"] as? Int)
        let stored = try XCTUnwrap(added.json["rule"] as? [String: Any])
        XCTAssertEqual(stored["name"] as? String, "added[\(id)]")
        XCTAssertEqual(stored["stage"] as? String, "afterValidation", "the decoder's defaults are filled in")
        XCTAssertEqual((stored["match"] as? [String: Any])?["tokens"] as? [String], [Fixtures.token.lowercased()])

        let gone = try CurlClient(port: ports.http2).send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")])
        XCTAssertEqual(gone.status, 410, "the added rule is tried before the scenario's")
        XCTAssertTrue(gone.body.contains("1700000000000"), gone.body)
        let other = try CurlClient(port: ports.http2).send(path: "/3/device/\(String(repeating: "0f", count: 32))", headers: [("apns-topic", "com.example.app")])
        XCTAssertEqual(other.status, 500, "a push it does not match falls to the scenario")

        XCTAssertEqual(try call("PUT", "/v1/scenario", body: #"{"name":"replaced"}"#).status, 200)
        let listed = try XCTUnwrap(try call("GET", "/v1/scenario/rules").json["rules"] as? [[String: Any]])
        XCTAssertEqual(listed.map { $0["id"] as? Int }, [id], "a replaced scenario keeps the added rules")
        XCTAssertEqual(listed.first?["fired"] as? Int, 1)
        XCTAssertEqual(try CurlClient(port: ports.http2).send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")]).status, 410)

        let removed = try call("DELETE", "/v1/scenario/rules/\(id)")
        XCTAssertEqual(removed.status, 200, removed.text)
        XCTAssertEqual(removed.json["removed"] as? Bool, true)
        XCTAssertEqual(try CurlClient(port: ports.http2).send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")]).status, 200)
        let again = try call("DELETE", "/v1/scenario/rules/\(id)")
        XCTAssertEqual(again.status, 404)
        XCTAssertEqual(again.json["parameter"] as? String, "id")
        XCTAssertEqual(try call("DELETE", "/v1/scenario/rules/first").status, 400)
        XCTAssertEqual(try call("DELETE", "/v1/scenario/rules/0").status, 400)
        // A whole number past any id given names no rule: not found, not malformed.
        XCTAssertEqual(try call("DELETE", "/v1/scenario/rules/771258593636241448632320").status, 404)
    }

    /// A rule the scenario decoder refuses is answered 400 with its JSON path and what was
    /// expected, and nothing is added.
    func testABrokenRuleNamesItsJSONPathAndAddsNothing() throws {
        let cases: [(body: String, parameter: String, says: String)] = [
            (#"{"action":{"type":"reject","reason":"Gone"}}"#, "$.action.reason", "expected"),
            (#"{"match":{"priorities":[11]},"action":{"type":"stall"}}"#, "$.match.priorities[0]", "priority from 0 to 10"),
            (#"{"match":{}}"#, "$", "needs an \"action\""),
            (#"{"action":{"type":"stall"},"color":"red"}"#, "$.color", "unknown key"),
            (#"not json"#, "$", "expected"),
        ]
        for (body, parameter, says) in cases {
            let reply = try call("POST", "/v1/scenario/rules", body: body)
            XCTAssertEqual(reply.status, 400, body)
            XCTAssertEqual(reply.json["parameter"] as? String, parameter, "\(body): \(reply.text)")
            XCTAssertTrue((reply.json["error"] as? String ?? "").contains(says), "\(body): \(reply.text)")
        }
        XCTAssertEqual((try call("GET", "/v1/scenario/rules").json["rules"] as? [Any])?.count, 0)
    }

    func testAResetRemovesTheAddedRules() throws {
        XCTAssertEqual(try call("POST", "/v1/scenario/rules", body: #"{"action":{"type":"stall"}}"#).status, 201)
        let reset = try call("POST", "/v1/reset", body: "{}")
        XCTAssertEqual(((reset.json["cleared"] as? [String: Any])?["scenario"] as? [String: Any])?["addedRules"] as? Int, 1)
        XCTAssertEqual((try call("GET", "/v1/scenario/rules").json["rules"] as? [Any])?.count, 0)
    }

    func testLegacyShutdownAnswers() throws {
        XCTAssertEqual(try call("POST", "/v1/legacy/shutdown").json["shutDown"] as? Bool, true)
    }

    func testNonLoopbackHostMustBeAskedFor() async throws {
        var configuration = MockAPNsConfiguration()
        configuration.controlPort = 0
        configuration.controlHost = "0.0.0.0"
        XCTAssertThrowsError(try configuration.control.checkHost())
        configuration.control.allowsNonLoopbackHost = true
        XCTAssertNoThrow(try configuration.control.checkHost())
    }
}
