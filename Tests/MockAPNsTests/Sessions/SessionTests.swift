import Foundation
import MockAPNsCore
import MockAPNsJournal
@testable import MockAPNs
import MockAPNsTestSupport
import NIOCore
import XCTest

/// Sessions over real sockets: credentials the server issued, each decided by its own scenario
/// against its own registry, each control token seeing its own records alone.
final class SessionTests: XCTestCase {
    private var server: MockAPNsServer!
    private var ports: BoundPorts!
    private var folder: URL!

    override func setUp() async throws {
        (server, ports) = try await TestServer.start { $0.controlPort = 0 }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("mockapns-sessions-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() async throws {
        try await server?.shutdown()
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    private var control: ControlClient { ControlClient(port: ports.control ?? 0) }

    private func call(_ method: String, _ path: String, token: String? = nil, body: String? = nil) throws -> ControlClient.Reply {
        try control.call(method, path, body: body, headers: token.map { ["Authorization: Bearer \($0)"] } ?? [])
    }

    /// What `POST /v1/sessions` gave.
    private struct Issued {
        var id: String
        var teamID: String
        var keyID: String
        var providerKey: String
        var controlToken: String
        var certificate: String?
        var certificateKey: String?
    }

    private func createSession(_ body: String) throws -> Issued {
        let reply = try call("POST", "/v1/sessions", body: body)
        XCTAssertEqual(reply.status, 201, reply.text)
        let json = reply.json
        return Issued(
            id: try XCTUnwrap(json["id"] as? String), teamID: try XCTUnwrap(json["teamId"] as? String),
            keyID: try XCTUnwrap(json["keyId"] as? String), providerKey: try XCTUnwrap(json["providerKey"] as? String),
            controlToken: try XCTUnwrap(json["controlToken"] as? String),
            certificate: json["certificate"] as? String, certificateKey: json["certificateKey"] as? String
        )
    }

    /// One push with a provider token signed by `keyPEM`.
    private func push(token device: String, keyID: String, teamID: String, keyPEM: String) throws -> CurlResponse {
        let jwt = try ProviderTokenSigner(keyID: keyID, teamID: teamID, privateKeyPEM: keyPEM)
            .token(issuedAt: Int64(Date().timeIntervalSince1970))
        var client = CurlClient(port: ports.http2)
        client.certificate = nil
        return try client.send(
            path: "/3/device/\(device)", headers: [("apns-topic", "com.example.app"), ("authorization", "bearer \(jwt)")]
        )
    }

    /// curl presenting `session`'s client certificate, written to `<folder>/<id>/client-session.pem`
    /// (and `-key.pem`), where the legacy client finds it too.
    private func certificateClient(_ session: MockAPNsSession, port: Int) throws -> CurlClient {
        let directory = folder.appendingPathComponent(session.id)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let stem = directory.appendingPathComponent("client-session").path
        try XCTUnwrap(session.certificatePEM, session.certificateUnavailable ?? "").write(toFile: stem + ".pem", atomically: true, encoding: .utf8)
        try XCTUnwrap(session.certificateKeyPEM).write(toFile: stem + "-key.pem", atomically: true, encoding: .utf8)
        var client = CurlClient(port: port)
        client.certificate = nil
        client.extraArguments = ["--cert", stem + ".pem", "--key", stem + "-key.pem"]
        return client
    }

    private func notifications(_ reply: ControlClient.Reply) -> [[String: Any]] {
        reply.json["notifications"] as? [[String: Any]] ?? []
    }

    private func session(of notification: [String: Any]) -> String? {
        (notification["authentication"] as? [String: Any])?["session"] as? String
    }

    func testEachSessionIsDecidedByItsOwnScenarioAndSeesOnlyItsOwnRecords() async throws {
        let refusing = try createSession(#"{"scenario":{"name":"refusing","rules":[{"action":{"type":"reject","reason":"Unregistered"}}]}}"#)
        let calm = try createSession(#"{"scenario":{"name":"calm"}}"#)
        XCTAssertNotEqual(refusing.teamID, calm.teamID)
        let defaultKey = try String(contentsOfFile: Fixtures.certificateDirectory + "/AuthKey_SANDBOX001.p8", encoding: .utf8)

        // One device, three sets of credentials, three answers: each scenario decides its own.
        XCTAssertEqual(try push(token: Fixtures.token, keyID: refusing.keyID, teamID: refusing.teamID, keyPEM: refusing.providerKey).status, 410)
        XCTAssertEqual(try push(token: Fixtures.token, keyID: calm.keyID, teamID: calm.teamID, keyPEM: calm.providerKey).status, 200)
        XCTAssertEqual(try push(token: Fixtures.token, keyID: "SANDBOX001", teamID: "TEAM00000A", keyPEM: defaultKey).status, 200)

        // Each session's token sees its own notification; the server's view sees all three.
        let refusingSeen = notifications(try call("GET", "/v1/notifications", token: refusing.controlToken))
        XCTAssertEqual(refusingSeen.map { $0["status"] as? Int }, [410])
        XCTAssertEqual(refusingSeen.map(session(of:)), [refusing.id])
        let calmSeen = notifications(try call("GET", "/v1/notifications", token: calm.controlToken))
        XCTAssertEqual(calmSeen.map { $0["status"] as? Int }, [200])
        XCTAssertEqual(calmSeen.map(session(of:)), [calm.id])
        let all = notifications(try call("GET", "/v1/notifications"))
        XCTAssertEqual(all.map(session(of:)), [refusing.id, calm.id, nil])

        // The metrics count each session's notifications under its id.
        let metrics = await server.metricsText().split(separator: "\n").filter { $0.hasPrefix("mockapns_session_notifications_total{") }
        XCTAssertEqual(metrics.filter { $0.contains("session=\"\(refusing.id)\"") && $0.contains("status=\"410\"") && $0.hasSuffix(" 1") }.count, 1, "\(metrics)")
        XCTAssertEqual(metrics.filter { $0.contains("session=\"\(calm.id)\"") && $0.contains("status=\"200\"") && $0.hasSuffix(" 1") }.count, 1, "\(metrics)")
        XCTAssertEqual(metrics.count, 2, "the default session's notifications are not counted again")

        // The dashboard's live stream, opened with a session's token, carries its records alone.
        let stream = try ProcessRunner.run("curl", [
            "-sS", "--max-time", "1", "-H", "Authorization: Bearer \(calm.controlToken)",
            "http://127.0.0.1:\(ports.control ?? 0)/v1/events/stream?after=0",
        ])
        let streamed = stream.stdout.split(separator: "\n").filter { $0.hasPrefix("data:") && $0.contains("\"type\":") }
        XCTAssertEqual(streamed.count, 1, stream.stdout)
        XCTAssertTrue(streamed.allSatisfy { $0.contains(calm.id) && !$0.contains(refusing.id) }, stream.stdout)

        // A wait that cannot be met names only the session's own records as near misses.
        let wait = try call("GET", "/v1/notifications/wait?count=2&timeout=200&status=200", token: refusing.controlToken)
        XCTAssertEqual(wait.status, 408)
        let misses = (wait.json["nearMisses"] as? [[String: Any]] ?? []).compactMap { $0["notification"] as? [String: Any] }
        XCTAssertEqual(misses.map(session(of:)), [refusing.id])

        // A session's scenario change and clear touch only it.
        XCTAssertEqual(try call("PUT", "/v1/scenario", token: refusing.controlToken, body: #"{"name":"calmed"}"#).status, 200)
        XCTAssertEqual(try call("GET", "/v1/scenario", token: calm.controlToken).json["name"] as? String, "calm")
        XCTAssertEqual(try call("GET", "/v1/scenario").json["name"] as? String, server.currentScenario.name)
        XCTAssertEqual(try push(token: Fixtures.token, keyID: refusing.keyID, teamID: refusing.teamID, keyPEM: refusing.providerKey).status, 200)
        XCTAssertEqual(try call("DELETE", "/v1/journal", token: refusing.controlToken).status, 200)
        XCTAssertEqual(notifications(try call("GET", "/v1/notifications", token: refusing.controlToken)).count, 0)
        XCTAssertEqual(notifications(try call("GET", "/v1/notifications", token: calm.controlToken)).count, 1)
        XCTAssertEqual(notifications(try call("GET", "/v1/notifications")).count, 4)

        // The token lists its own session alone; the server's lists both.
        let listed = try call("GET", "/v1/sessions", token: calm.controlToken).json["sessions"] as? [[String: Any]] ?? []
        XCTAssertEqual(listed.compactMap { $0["id"] as? String }, [calm.id])
        XCTAssertNil(listed.first?["controlToken"], "a listing carries no secret")
        let everyone = try call("GET", "/v1/sessions").json["sessions"] as? [[String: Any]] ?? []
        XCTAssertEqual(Set(everyone.compactMap { $0["id"] as? String }), [refusing.id, calm.id])
    }

    func testASessionTokenReachesOnlyItsSessionAndEndsWithIt() throws {
        let first = try createSession("{}")
        let second = try createSession(#"{"idleSeconds":0}"#)
        // What belongs to the whole server is refused to a session's token.
        for (method, path, body) in [
            ("POST", "/v1/clock/advance", #"{"milliseconds":1000}"#), ("GET", "/metrics", nil), ("POST", "/v1/sessions", "{}"),
            ("GET", "/v1/devices", nil), ("POST", "/v1/legacy/shutdown", "{}"),
            ("GET", "/v1/journal/capture.pcapng", nil),
        ] {
            let reply = try call(method, path, token: first.controlToken, body: body)
            XCTAssertEqual(reply.status, 403, "\(method) \(path): \(reply.text)")
        }
        // What cannot be a session is refused with the member at fault, and makes none.
        for (body, words) in [
            (#"{"topics":[]}"#, "at least one topic"), (#"{"topics":["com.example app"]}"#, "is not a topic"),
            (#"{"idleSeconds":86401}"#, "idleSeconds"), (#"{"scenario":{"rules":[]}}"#, "name"), (#"{"owner":"me"}"#, "owner"),
        ] {
            let refused = try call("POST", "/v1/sessions", body: body)
            XCTAssertEqual(refused.status, 400, body)
            XCTAssertTrue(refused.text.contains(words), "\(body): \(refused.text)")
        }
        XCTAssertEqual(Set(server.sessionIDs), [first.id, second.id])
        // A bearer token that is no one's is refused, from loopback too.
        XCTAssertEqual(try call("GET", "/v1/notifications", token: "not-a-token-of-anyone-here").status, 401)
        // One session cannot see or end another.
        XCTAssertEqual(try call("GET", "/v1/sessions/\(second.id)", token: first.controlToken).status, 404)
        XCTAssertEqual(try call("DELETE", "/v1/sessions/\(second.id)", token: first.controlToken).status, 404)
        XCTAssertEqual(try call("GET", "/v1/sessions/\(second.id)").status, 200)

        // Ended: the token opens nothing, the key signs for no one.
        XCTAssertEqual(try call("DELETE", "/v1/sessions/\(first.id)", token: first.controlToken).status, 200)
        XCTAssertEqual(try call("GET", "/v1/notifications", token: first.controlToken).status, 401)
        let refused = try push(token: Fixtures.token, keyID: first.keyID, teamID: first.teamID, keyPEM: first.providerKey)
        XCTAssertEqual(refused.status, 403)
        XCTAssertTrue(refused.body.contains("InvalidProviderToken"), refused.body)
        XCTAssertEqual(server.sessionIDs, [second.id])
    }

    func testAnIdleSessionEndsAndOneWithoutATimeoutStays() throws {
        let idle = try server.createSession(idleTimeout: .seconds(30))
        // Printed or dumped, a session shows no secret.
        var dumped = ""
        dump(idle, to: &dumped)
        for text in ["\(idle)", String(reflecting: idle), dumped] {
            XCTAssertTrue(text.contains(idle.id), text)
            for secret in [idle.controlToken, idle.providerKeyPEM, idle.certificateKeyPEM ?? "-"] { XCTAssertFalse(text.contains(secret), text) }
        }
        let kept = try server.createSession(idleTimeout: nil)
        server.endIdleSessions(at: NIODeadline.now() + TimeAmount.seconds(10))
        XCTAssertEqual(Set(server.sessionIDs), [idle.id, kept.id], "not idle yet")
        server.endIdleSessions(at: NIODeadline.now() + TimeAmount.seconds(31))
        XCTAssertEqual(server.sessionIDs, [kept.id])
        XCTAssertFalse(server.tokenVerifier.keys.contains { $0.keyID == idle.keyID }, "an ended session's key is forgotten")
        XCTAssertTrue(server.tokenVerifier.keys.contains { $0.keyID == kept.keyID })
    }

    func testASessionCertificateBringsItsConnectionsIntoTheSessionOnHTTP2AndTheLegacyGateway() async throws {
        let session = try server.createSession(
            topics: ["com.example.app"], scenario: Scenario(name: "refusing", rules: [.reject(.badDeviceToken)])
        )
        let answered = try certificateClient(session, port: ports.http2).send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")])
        XCTAssertEqual(answered.status, 400, "the session's scenario decides")
        XCTAssertTrue(answered.body.contains("BadDeviceToken"), answered.body)
        // The server's own certificate stays in the default session, with the server's scenario.
        XCTAssertEqual(try CurlClient(port: ports.http2).send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")]).status, 200)

        let gateway = try XCTUnwrap(ports.gateway)
        let outcome = try LegacyTLSClient.exchange(
            port: gateway, certificate: "session", certificateDirectory: folder.appendingPathComponent(session.id).path,
            send: Legacy.enhanced(identifier: 7, token: Legacy.token(1))
        )
        XCTAssertEqual(outcome.handshake, "ok")
        XCTAssertEqual(outcome.data, "080800000007", "status 8 (invalid token) from the session's scenario, for notification 7")

        let records = try await server.waitForNotifications(count: 2, matching: NotificationFilter(session: session.id), timeout: .seconds(10))
        XCTAssertEqual(records.map(\.transport), [.http2, .legacy])
        XCTAssertEqual(records.map(\.reason), [.badDeviceToken, .badDeviceToken])
        XCTAssertEqual(server.notifications(matching: NotificationFilter(session: session.id)).count, 2)
        XCTAssertEqual(server.notifications().count, 3)
    }

    func testEachSessionHasItsOwnBroadcastChannels() async throws {
        // A server with the channel management listener, in place of setUp's (tearDown stops it).
        try await self.server.shutdown()
        let (server, ports) = try await TestServer.start { $0.broadcast.managePort = 0; $0.controlPort = 0 }
        (self.server, self.ports) = (server, ports)
        let first = try server.createSession(), second = try server.createSession()
        let manage = try XCTUnwrap(ports.channelManagement)
        // A channel made with the first session's certificate is the first session's alone.
        let made = try certificateClient(first, port: manage).send(
            path: "/1/apps/com.example.app/channels", body: #"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#)
        XCTAssertEqual(made.status, 201, made.body)
        let channel = try XCTUnwrap(made.header("apns-channel-id"))
        let headers = [("apns-channel-id", channel), ("apns-push-type", "liveactivity"), ("apns-priority", "10")]
        let payload = #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{"score":"2-1"}}}"#
        let path = "/4/broadcasts/apps/com.example.app"
        XCTAssertEqual(try certificateClient(first, port: ports.http2).send(path: path, headers: headers, body: payload).status, 200)
        let elsewhere = try certificateClient(second, port: ports.http2).send(path: path, headers: headers, body: payload)
        XCTAssertEqual(elsewhere.status, 400)
        XCTAssertEqual(elsewhere.body, #"{"reason":"ChannelNotRegistered"}"#)
        XCTAssertEqual(try CurlClient(port: ports.http2).send(path: path, headers: headers, body: payload).status, 400, "nor the server's")

        // The control API lists each session's channels to its token.
        let control = ControlClient(port: try XCTUnwrap(ports.control))
        let firstList = try control.call("GET", "/v1/channels", headers: ["Authorization: Bearer \(first.controlToken)"])
        XCTAssertEqual((firstList.json["channels"] as? [[String: Any]])?.compactMap { $0["id"] as? String }, [channel], firstList.text)
        let secondList = try control.call("GET", "/v1/channels", headers: ["Authorization: Bearer \(second.controlToken)"])
        XCTAssertEqual((secondList.json["channels"] as? [[String: Any]])?.count, 0, secondList.text)
    }
}
