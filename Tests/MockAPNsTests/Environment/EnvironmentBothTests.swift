import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest
import MockAPNsLegacy

/// `environment: .both` over real sockets: a sandbox and a production listener for each
/// protocol, one device registry in which each token belongs to one environment, and the
/// answer a provider that mixes them up gets: `400 BadDeviceToken` (legacy status 8).
final class EnvironmentBothTests: XCTestCase {
    private let token = Fixtures.token
    private let otherToken = String(repeating: "0f", count: 32)

    private var server: MockAPNsServer!
    private var sandbox: BoundPorts!
    private var production: BoundPorts!

    override func setUp() async throws {
        let (server, ports) = try await TestServer.start {
            $0.environments = [.sandbox, .production]
            $0.broadcast.managePort = 0
            $0.controlPort = 0
        }
        self.server = server
        sandbox = try XCTUnwrap(ports.ports(of: .sandbox))
        production = try XCTUnwrap(ports.ports(of: .production))
        XCTAssertEqual(ports.http2, sandbox.http2, "the ports at the top are the sandbox's")
    }

    override func tearDown() async throws {
        try await server?.shutdown()
    }

    private func jwt(_ keyID: String) throws -> String {
        let pem = try String(contentsOfFile: Fixtures.certificateDirectory + "/AuthKey_\(keyID).p8", encoding: .utf8)
        return try ProviderTokenSigner(keyID: keyID, teamID: "TEAM00000A", privateKeyPEM: pem).token(issuedAt: Int64(Date().timeIntervalSince1970))
    }

    /// A token-authenticated push with the key that serves both environments.
    private func push(_ port: Int, token: String) throws -> CurlResponse {
        try CurlClient(port: port, certificate: nil).send(
            path: "/3/device/\(token)", headers: [("authorization", "bearer \(try jwt("BOTHENV001"))"), ("apns-topic", "com.example.app")])
    }

    func testEveryProtocolListensTwiceAndThePortsFileSaysWhere() throws {
        let ports = try XCTUnwrap(server.ports)
        let all = [sandbox.http2, production.http2, sandbox.gateway, production.gateway, sandbox.feedback, production.feedback,
                   sandbox.channelManagement, production.channelManagement].compactMap { $0 }
        XCTAssertEqual(all.count, 8)
        XCTAssertEqual(Set(all).count, 8, "eight distinct listeners")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(ports.json.utf8)) as? [String: Any])
        let environments = try XCTUnwrap(json["environments"] as? [String: [String: Int]])
        XCTAssertEqual(environments["production"]?["http2"], production.http2)
        XCTAssertEqual(environments["production"]?["gateway"], production.gateway)
        XCTAssertEqual(environments["sandbox"]?["feedback"], sandbox.feedback)
        XCTAssertEqual(environments["production"]?["channelManagement"], production.channelManagement)
        XCTAssertTrue(ports.summary(host: "127.0.0.1").contains("production: http2=127.0.0.1:\(production.http2)"))
        // The control API reports the same.
        let control = try ProcessRunner.run("curl", ["-sS", "http://127.0.0.1:\(try XCTUnwrap(ports.control))/v1/ports"])
        XCTAssertEqual(control.stdout, ports.json)
    }

    /// The first push binds a token to the environment it reached; a push to the other one is
    /// `BadDeviceToken`, journaled with the environment the token belongs to.
    func testATokenBelongsToTheEnvironmentOfItsFirstPush() async throws {
        XCTAssertEqual(try push(production.http2, token: token).status, 200)
        XCTAssertEqual(server.registry.environment(of: token), .production)
        let mixedUp = try push(sandbox.http2, token: token)
        XCTAssertEqual(mixedUp.status, 400)
        XCTAssertEqual(mixedUp.body, #"{"reason":"BadDeviceToken"}"#)
        XCTAssertEqual(try push(production.http2, token: token).status, 200, "still good where it belongs")
        XCTAssertEqual(try push(sandbox.http2, token: otherToken).status, 200, "another token binds to the sandbox")

        let records = try await server.waitForNotifications(count: 4, timeout: .seconds(10))
        XCTAssertEqual(records.map(\.environment), [.production, .sandbox, .production, .sandbox], "each record says where it was sent")
        XCTAssertEqual(records.map(\.reason), [nil, .badDeviceToken, nil, nil])
        let diagnoses = server.journal.events(matching: JournalEventFilter(kinds: ["diagnosis"])).compactMap { event -> String? in
            guard case .diagnosis(.registryTokenInOtherEnvironment, let message, _) = event.kind else { return nil }
            return message
        }
        XCTAssertEqual(diagnoses.count, 1)
        XCTAssertTrue(diagnoses.first?.contains("belongs to the production environment") ?? false, "\(diagnoses)")
        XCTAssertTrue(diagnoses.first?.contains("reached the sandbox listener") ?? false, "\(diagnoses)")
    }

    /// Credentials keep their own environment rules on each listener.
    func testCredentialsKeepTheirEnvironments() throws {
        let sandboxCertificate = CurlClient(port: production.http2, certificate: "sandbox")
        let refused = try sandboxCertificate.send(path: "/3/device/\(token)", headers: [("apns-topic", "com.example.app")])
        XCTAssertEqual(refused.status, 403)
        XCTAssertEqual(refused.body, #"{"reason":"BadCertificateEnvironment"}"#)
        XCTAssertEqual(try CurlClient(port: sandbox.http2, certificate: "sandbox")
            .send(path: "/3/device/\(token)", headers: [("apns-topic", "com.example.app")]).status, 200)
        let sandboxKey = try CurlClient(port: production.http2, certificate: nil).send(
            path: "/3/device/\(otherToken)", headers: [("authorization", "bearer \(try jwt("SANDBOX001"))"), ("apns-topic", "com.example.app")])
        XCTAssertEqual(sandboxKey.status, 403, sandboxKey.body)
        XCTAssertEqual(sandboxKey.body, #"{"reason":"BadEnvironmentKeyIdInToken"}"#)
        XCTAssertNil(server.registry.environment(of: otherToken), "a refused push binds nothing")
    }

    /// The control API and scenarios set a token's environment; the legacy gateway answers a
    /// token of the other environment with status 8, and the feedback service of each
    /// environment hands out only its tokens.
    func testTheLegacyGatewayAndFeedbackServeEachEnvironment() async throws {
        let bound = Legacy.hex(Legacy.token(0x42))
        let control = try XCTUnwrap(server.ports?.control)
        let put = try ProcessRunner.run("curl", ["-sS", "-X", "PUT", "-H", "content-type: application/json", "--data-binary",
                                                 #"{"environment":"production"}"#,
                                                 "http://127.0.0.1:\(control)/v1/registry/\(bound)/environment"])
        XCTAssertTrue(put.stdout.contains(#""environment":"production""#), put.stdout)
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(sandbox.gateway), certificate: "universal",
                                                   send: Legacy.enhanced(identifier: 9, token: Legacy.token(0x42)))
        XCTAssertEqual(outcome.received, [8, 8, 0, 0, 0, 9], "status 8, invalid token, for identifier 9")
        let accepted = try LegacyTLSClient.exchange(port: try XCTUnwrap(production.gateway), certificate: "universal",
                                                    send: Legacy.enhanced(identifier: 10, token: Legacy.token(0x42)) + Legacy.enhanced(identifier: 11, token: Legacy.token(0x43)))
        XCTAssertEqual(accepted.received, [], "nothing is sent back for accepted notifications")
        XCTAssertEqual(server.registry.environment(of: Legacy.hex(Legacy.token(0x43))), .production, "bound by its first push")

        server.registry.markUnregistered(bound, since: 1_600_000_000_000)
        let sandboxFeedback = try LegacyTLSClient.exchange(port: try XCTUnwrap(sandbox.feedback), certificate: "universal", send: [])
        XCTAssertEqual(sandboxFeedback.received, [])
        let productionFeedback = try LegacyTLSClient.exchange(port: try XCTUnwrap(production.feedback), certificate: "universal", send: [])
        XCTAssertEqual(try FeedbackTupleDecoder.decodeAll(productionFeedback.received).map(\.token), [Legacy.token(0x42)])

        let legacyRecords = try await server.waitForNotifications(count: 3, matching: NotificationFilter(transport: .legacy), timeout: .seconds(10))
        XCTAssertEqual(legacyRecords.map(\.environment), [.sandbox, .production, .production])
    }

    /// A scenario can say which environment a token belongs to.
    func testAScenarioBindsTokens() throws {
        try server.replaceScenario(jsonText: #"""
        {"name": "environments", "registry": {"environments": [{"token": "\#(token)", "environment": "sandbox"}]}}
        """#)
        XCTAssertEqual(server.registry.environment(of: token), .sandbox)
        XCTAssertEqual(try push(production.http2, token: token).body, #"{"reason":"BadDeviceToken"}"#)
        XCTAssertEqual(try push(sandbox.http2, token: token).status, 200)
    }

    /// Channels cannot be shared across environments ("Sending channel management requests to APNs").
    func testChannelsBelongToTheEnvironmentTheyWereCreatedIn() throws {
        let manage = CurlClient(port: try XCTUnwrap(production.channelManagement), certificate: "universal")
        let created = try manage.send(path: "/1/apps/com.example.app/channels", body: #"{"message-storage-policy": 0, "push-type": "LiveActivity"}"#)
        XCTAssertEqual(created.status, 201, created.body)
        let channel = try XCTUnwrap(created.header("apns-channel-id"))
        XCTAssertEqual(server.channels.all.map(\.environment), [.production])
        let payload = #"{"aps":{"timestamp":1685952000,"event":"update","content-state":{}}}"#
        let headers = [("apns-channel-id", channel), ("apns-push-type", "liveactivity"), ("apns-expiration", "0"), ("apns-priority", "10")]
        XCTAssertEqual(try CurlClient(port: production.http2).send(path: "/4/broadcasts/apps/com.example.app", headers: headers, body: payload).status, 200)
        let elsewhere = try CurlClient(port: sandbox.http2).send(path: "/4/broadcasts/apps/com.example.app", headers: headers, body: payload)
        XCTAssertEqual(elsewhere.body, #"{"reason":"ChannelNotRegistered"}"#)
    }
}
