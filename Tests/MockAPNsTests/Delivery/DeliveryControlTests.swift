import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest

/// The delivery model on a running server: devices taken offline and brought back through the
/// control API, real pushes over HTTP/2 (curl) and the legacy gateway, the clock moved, and
/// each notification's delivery log read back through `GET /v1/delivery/{id}`.
final class DeliveryControlTests: XCTestCase {
    private struct Reply {
        var status: Int
        var json: [String: Any]
    }

    private static let start: Int64 = 1_767_225_600_000
    private let token = Fixtures.token
    private var server: MockAPNsServer!
    private var ports: BoundPorts!

    override func setUp() async throws {
        (server, ports) = try await TestServer.start { configuration in
            configuration.controlPort = 0
            configuration.clockStart = Self.start
        }
    }

    override func tearDown() async throws {
        try await server?.shutdown()
    }

    private func call(_ method: String, _ path: String, body: String? = nil) throws -> Reply {
        var arguments = ["-sS", "-X", method, "-w", "\n%{http_code}", "http://127.0.0.1:\(ports.control ?? 0)\(path)"]
        // Every state change is sent as JSON, a bodiless one included (the control port's rule).
        if method != "GET" { arguments += ["-H", "content-type: application/json"] }
        if let body { arguments += ["--data-binary", body] }
        let result = try ProcessRunner.run("curl", arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.last ?? "") ?? -1
        let json = (try? JSONSerialization.jsonObject(with: Data(lines.dropLast().joined(separator: "\n").utf8))) as? [String: Any] ?? [:]
        return Reply(status: status, json: json)
    }

    /// One push with curl; returns the answer's headers. Waits until the journal holds it, as
    /// the record is written just after the answer.
    @discardableResult
    private func push(_ headers: [(String, String)] = [], body: String = #"{"aps":{"alert":"hello"}}"#) async throws -> CurlResponse {
        let before = server.journal.statistics.lastSequence
        let response = try CurlClient(port: ports.http2).send(
            path: "/3/device/\(token)", headers: [("apns-topic", "com.example.app")] + headers, body: body)
        XCTAssertEqual(response.status, 200)
        let recorded = try await server.journal.waitForNotifications(count: 1, matching: NotificationFilter(afterSequence: before), timeout: .seconds(10))
        XCTAssertEqual(recorded.count, 1, "the push was recorded")
        return response
    }

    private func timeline(_ id: String) throws -> [[String: Any]] {
        let reply = try call("GET", "/v1/delivery/\(id)")
        XCTAssertEqual(reply.status, 200, "\(reply.json)")
        return try XCTUnwrap(reply.json["notifications"] as? [[String: Any]])
    }

    private func steps(_ notification: [String: Any]?) -> [String] {
        ((notification?["timeline"] as? [[String: Any]]) ?? []).compactMap { $0["step"] as? String }
    }

    private func consoleWords(_ notification: [String: Any]?) -> [String] {
        ((notification?["timeline"] as? [[String: Any]]) ?? []).compactMap { $0["console"] as? String }
    }

    func testOfflineThreePushesThenOnlineDeliversOnlyTheLastAndTheLogSaysSo() async throws {
        let offline = try call("PUT", "/v1/devices/\(token.uppercased())", body: #"{"online": false}"#)
        XCTAssertEqual(offline.status, 200)
        XCTAssertEqual(offline.json["online"] as? Bool, false)
        XCTAssertEqual(offline.json["deviceToken"] as? String, token)

        var answers: [CurlResponse] = []
        for index in 1...3 {
            answers.append(try await push(body: #"{"aps":{"alert":"update \#(index)"}}"#))
        }
        let device = try call("GET", "/v1/devices/\(token)").json
        XCTAssertEqual(device["online"] as? Bool, false)
        let stored = try XCTUnwrap(device["stored"] as? [[String: Any]])
        XCTAssertEqual(stored.count, 1, "one notification per app and device")
        XCTAssertEqual(stored.first?["apnsId"] as? String, answers[2].header("apns-id"))
        XCTAssertEqual(stored.first?["bundleId"] as? String, "com.example.app")
        XCTAssertEqual((try call("GET", "/v1/devices").json["devices"] as? [[String: Any]])?.count, 1)

        let online = try call("PUT", "/v1/devices/\(token)", body: #"{"online": true}"#).json
        XCTAssertEqual(online["online"] as? Bool, true)
        XCTAssertEqual((online["stored"] as? [Any])?.count, 0)
        XCTAssertEqual((try call("GET", "/v1/devices").json["devices"] as? [Any])?.count, 0, "an online device with nothing waiting is not listed")

        // The sandbox answer's apns-unique-id is what Apple's console takes.
        let first = try timeline(try XCTUnwrap(answers[0].header("apns-unique-id"))).first
        XCTAssertEqual(steps(first), ["accepted", "stored", "superseded"])
        XCTAssertEqual(consoleWords(first), ["Received by APNs", "Stored - Device Offline", "Discarded - Replaced in Storage by a Newer Notification"])
        let second = try timeline(try XCTUnwrap(answers[1].header("apns-id"))).first
        XCTAssertEqual(steps(second), ["accepted", "stored", "superseded"])
        XCTAssertEqual((second?["timeline"] as? [[String: Any]])?.last?["replacedBy"] as? Int, (try timeline(try XCTUnwrap(answers[2].header("apns-id"))).first?["notification"] as? Int))
        let last = try timeline(try XCTUnwrap(answers[2].header("apns-unique-id"))).first
        XCTAssertEqual(steps(last), ["accepted", "stored", "delivered"])
        XCTAssertEqual(consoleWords(last).last, "Delivered to Device (From Storage)")
        XCTAssertEqual(last?["state"] as? String, "delivered")

        // The same steps are journal events of their own kind.
        let events = try XCTUnwrap(try call("GET", "/v1/events?type=delivery").json["events"] as? [[String: Any]])
        XCTAssertEqual(events.compactMap { ($0["delivery"] as? [String: Any])?["step"] as? String },
                       ["offline", "stored", "superseded", "stored", "superseded", "stored", "online", "delivered"])
    }

    func testExpirationZeroWhileOfflineIsDiscardedAndExpiryFollowsTheClock() async throws {
        XCTAssertEqual(try call("PUT", "/v1/devices/\(token)", body: #"{"online": false}"#).status, 200)
        let discarded = try await push([("apns-expiration", "0")])
        let expiring = try await push([("apns-expiration", String(Self.start / 1000 + 60))])
        XCTAssertEqual(try timeline(try XCTUnwrap(discarded.header("apns-id"))).first?["state"] as? String, "discarded")
        XCTAssertEqual(steps(try timeline(try XCTUnwrap(expiring.header("apns-id"))).first), ["accepted", "stored"])

        // Fifty-nine seconds on, still stored; a minute and a second on, expired at its second.
        XCTAssertEqual(try call("POST", "/v1/clock/advance", body: #"{"milliseconds": 59000}"#).status, 200)
        XCTAssertEqual(steps(try timeline(try XCTUnwrap(expiring.header("apns-id"))).first), ["accepted", "stored"])
        XCTAssertEqual(try call("POST", "/v1/clock/advance", body: #"{"milliseconds": 2000}"#).status, 200)
        let expired = try XCTUnwrap(try timeline(try XCTUnwrap(expiring.header("apns-id"))).first?["timeline"] as? [[String: Any]])
        XCTAssertEqual(expired.last?["step"] as? String, "expired")
        XCTAssertEqual(expired.last?["console"] as? String, "Discarded - Expired")
        XCTAssertEqual(expired.last?["at"] as? Int64, Self.start + 60_000)

        // Back online, nothing is left to deliver.
        XCTAssertEqual((try call("PUT", "/v1/devices/\(token)", body: #"{"online": true}"#).json["stored"] as? [Any])?.count, 0)
        XCTAssertEqual(try timeline(try XCTUnwrap(discarded.header("apns-id"))).first?["state"] as? String, "discarded")
    }

    func testALegacyNotificationIsFoundByItsJournalSequence() async throws {
        XCTAssertEqual(try call("PUT", "/v1/devices/\(Legacy.hex(Legacy.token(7)))", body: #"{"online": false}"#).status, 200)
        let before = server.journal.statistics.lastSequence
        _ = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: Legacy.frame(identifier: 9, token: Legacy.token(7)), timeout: 1)
        let recorded = try await server.journal.waitForNotifications(count: 1, matching: NotificationFilter(afterSequence: before), timeout: .seconds(10))
        let sequence = try XCTUnwrap(recorded.first?.sequence)
        let found = try timeline(String(sequence)).first
        XCTAssertEqual(found?["transport"] as? String, "legacy")
        XCTAssertEqual(found?["identifier"] as? Int, 9)
        // The frame's expiry is 0: one attempt, and the device is offline.
        XCTAssertEqual(steps(found), ["accepted", "discarded"])
    }

    func testMistakesAreNamed() async throws {
        let unknown = try call("GET", "/v1/delivery/no-such-id")
        XCTAssertEqual(unknown.status, 404)
        XCTAssertTrue((unknown.json["error"] as? String)?.contains("no-such-id") ?? false, "\(unknown.json)")
        let cases: [(String, String, String?, String)] = [
            ("PUT", "/v1/devices/\(token)", #"{"online": "no"}"#, "$.online"),
            ("PUT", "/v1/devices/\(token)", #"{"offline": true}"#, "$.offline"),
            ("PUT", "/v1/devices/\(token)", #"{}"#, "$.online"),
            ("PUT", "/v1/devices/\(token)", nil, "body"),
            ("PUT", "/v1/devices/not-hex", #"{"online": false}"#, "token"),
            ("GET", "/v1/devices?token=1", nil, "token"),
        ]
        for (method, path, body, parameter) in cases {
            let reply = try call(method, path, body: body)
            XCTAssertEqual(reply.status, 400, "\(method) \(path) \(body ?? "")")
            XCTAssertEqual(reply.json["parameter"] as? String, parameter, "\(method) \(path) \(body ?? ""): \(reply.json)")
        }
        // A refused notification is in the log, with nothing after its refusal.
        let refused = try CurlClient(port: ports.http2).send(
            path: "/3/device/\(token)", headers: [("apns-topic", "com.example.app"), ("apns-priority", "7")])
        XCTAssertEqual(refused.status, 400)
        _ = try await server.journal.waitForNotifications(count: 1, matching: NotificationFilter(accepted: false), timeout: .seconds(10))
        let log = try timeline(try XCTUnwrap(refused.header("apns-id"))).first
        XCTAssertEqual(log?["state"] as? String, "refused")
        XCTAssertEqual(log?["reason"] as? String, "BadPriority")
        XCTAssertEqual(steps(log), [])
    }

    func testAScenarioRuleTakesTheDeviceOfflineAndBringsItBack() async throws {
        let scenario = try String(contentsOfFile: Fixtures.root + "/scenarios/phone-goes-offline.json", encoding: .utf8)
        XCTAssertEqual(try call("PUT", "/v1/scenario", body: scenario).status, 200)
        var ids: [String] = []
        for _ in 1...6 {
            let answer = try await push()
            ids.append(try XCTUnwrap(answer.header("apns-id")))
        }
        await server.catchUpDelivery()
        var states: [String] = []
        for id in ids {
            states.append(try timeline(id).first?["state"] as? String ?? "?")
        }
        XCTAssertEqual(states, ["delivered", "delivered", "superseded", "superseded", "delivered", "delivered"])
        XCTAssertEqual(consoleWords(try timeline(ids[4]).first).last, "Delivered to Device (From Storage)")
        XCTAssertEqual(consoleWords(try timeline(ids[5]).first).last, "Delivered to Device")
        let last = try XCTUnwrap(try timeline(ids[5]).first?["timeline"] as? [[String: Any]]).last
        XCTAssertEqual(last?["derived"] as? Bool, true, "a delivery on arrival is derived from the notification's record")
        let recorded = try XCTUnwrap(try call("GET", "/v1/events?type=delivery").json["events"] as? [[String: Any]])
            .compactMap { $0["delivery"] as? [String: Any] }
        // Four on arrival (the first two and the last two) are not events; the stored ones are.
        XCTAssertEqual(recorded.compactMap { $0["step"] as? String },
                       ["offline", "stored", "superseded", "stored", "superseded", "stored", "online", "delivered"])
        XCTAssertEqual(recorded.last?["cause"] as? String, "fromStorage")
        let rules = recorded.filter { $0["rule"] != nil }
        XCTAssertEqual(rules.compactMap { $0["step"] as? String }, ["offline", "online"])
        XCTAssertEqual(rules.compactMap { $0["rule"] as? String }, ["the phone goes dark", "the phone is back"])
    }

    func testTheSwiftAPIAndAReset() async throws {
        var state = try await server.setDevice(token, online: false)
        XCTAssertFalse(state.online)
        let answer = try await push([("apns-expiration", String(Self.start / 1000 + 10))])
        state = try await server.device(token)
        XCTAssertEqual(state.stored.map(\.notification.apnsID?.text), [answer.header("apns-id")])
        XCTAssertEqual(state.stored.first?.expiresAtMilliseconds, Self.start + 10_000)

        server.clock.advance(milliseconds: 10_000)
        await server.catchUpDelivery()
        let log = try await server.deliveryLog(try XCTUnwrap(answer.header("apns-unique-id")))
        XCTAssertEqual(log.first?.entries.map(\.step), ["accepted", "stored", "expired"])
        XCTAssertEqual(log.first?.entries.last?.atMilliseconds, Self.start + 10_000)

        _ = try await push()
        let devices = try await server.devices()
        XCTAssertEqual(devices.map(\.deviceToken), [token])
        server.reset()
        let afterReset = try await server.devices()
        XCTAssertTrue(afterReset.isEmpty, "a reset brings every device back online with nothing stored")
        let fresh = try await server.device(token)
        XCTAssertTrue(fresh.online)
    }
}
