import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest
import MockAPNsBroadcast

/// Broadcast push over real TLS on 127.0.0.1, driven by the real `curl --http2`: the channel
/// management listener and broadcasts on the provider API, with the journal and the scenario.
final class BroadcastWireTests: XCTestCase {
    static let bundle = "com.example.app"
    static let channelsPath = "/1/apps/\(bundle)/channels"
    static let broadcastPath = "/4/broadcasts/apps/\(bundle)"
    static let createBody = #"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#
    static let payload = #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{"score":"2-1"}}}"#
    static let lowerUUIDPattern = #"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"#

    static func start(_ adjust: (inout MockAPNsConfiguration) -> Void = { _ in }) async throws -> (MockAPNsServer, BoundPorts, Int) {
        let (server, ports) = try await TestServer.start {
            $0.broadcast.managePort = 0
            adjust(&$0)
        }
        guard let manage = ports.channelManagement else {
            try await server.shutdown()
            throw XCTSkip("the management listener did not report its port")
        }
        return (server, ports, manage)
    }

    func broadcastHeaders(_ channel: String) -> [(String, String)] {
        [("apns-channel-id", channel), ("apns-push-type", "liveactivity"), ("apns-priority", "10")]
    }

    /// The issue's promise: a channel created through the management API receives a broadcast
    /// on the provider port, and both appear in the journal.
    func testChannelCreatedThroughManagementReceivesABroadcastAndBothAreJournaled() async throws {
        let (server, ports, managePort) = try await Self.start()
        let manage = CurlClient(port: managePort)
        let provider = CurlClient(port: ports.http2)
        let requestID = "0309f412-aa57-46a8-9ac6-b5aeca8c4594"

        let created = try manage.send(path: Self.channelsPath, headers: [("apns-request-id", requestID)], body: Self.createBody)
        XCTAssertEqual(created.httpVersion, "HTTP/2")
        XCTAssertEqual(created.status, 201, created.body)
        XCTAssertEqual(created.header("apns-request-id"), requestID)
        let channel = try XCTUnwrap(created.header("apns-channel-id"))
        XCTAssertTrue(ChannelID.isWellFormed(channel, maximumLength: 64), channel)
        XCTAssertEqual(created.body, "")

        let read = try manage.send(method: "GET", path: Self.channelsPath, headers: [("apns-channel-id", channel)], body: nil)
        XCTAssertEqual(read.status, 200)
        XCTAssertEqual(read.body, #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#)
        XCTAssertNotNil(read.header("apns-request-id")?.range(of: Self.lowerUUIDPattern, options: .regularExpression))

        let all = try manage.send(method: "GET", path: "/1/apps/\(Self.bundle)/all-channels", body: nil)
        XCTAssertEqual(all.status, 200)
        XCTAssertEqual(all.body, #"{"channels":["\#(channel)"]}"#)

        let apnsID = "E77A3D12-BC9F-4410-A127-43F212597A9C"
        let sent = try provider.send(path: Self.broadcastPath, headers: broadcastHeaders(channel) + [("apns-id", apnsID)], body: Self.payload)
        XCTAssertEqual(sent.status, 200, sent.body)
        XCTAssertEqual(sent.header("apns-id"), apnsID)
        XCTAssertNotNil(sent.header("apns-request-id")?.range(of: Self.lowerUUIDPattern, options: .regularExpression))
        XCTAssertNotNil(sent.header("apns-unique-id")?.range(of: Self.lowerUUIDPattern, options: .regularExpression))
        XCTAssertEqual(sent.body, "")

        let operations = server.channelOperations(channel: channel)
        XCTAssertEqual(operations.map(\.operation), [.create, .read])
        XCTAssertEqual(operations.first?.outcome.requestID, requestID)
        XCTAssertEqual(operations.first?.authentication.kind, "certificate")
        let broadcasts = server.broadcasts(channel: channel)
        XCTAssertEqual(broadcasts.count, 1)
        XCTAssertEqual(broadcasts.first?.accepted, true)
        XCTAssertEqual(broadcasts.first?.bundleID, Self.bundle)
        XCTAssertEqual(broadcasts.first?.payloadText, Self.payload)
        XCTAssertEqual(broadcasts.first?.requestID, sent.header("apns-request-id"))
        // The events of both listeners are in the one journal, each on its own connection.
        let events = server.journal.events(matching: JournalEventFilter(channelID: channel))
        XCTAssertEqual(events.map(\.kind.name), ["channelOperation", "channelOperation", "broadcast"])
        let managementConnection = try XCTUnwrap(events.first?.connectionID)
        XCTAssertEqual(server.journal.transport(ofConnection: managementConnection), .channelManagement)
        XCTAssertEqual(events.last?.connectionID.flatMap(server.journal.transport(ofConnection:)), .http2)
        XCTAssertTrue(JournalJSON.encode(events[2]).contains(#""channelId":"\#(channel)""#))

        let deleted = try manage.send(method: "DELETE", path: Self.channelsPath, headers: [("apns-channel-id", channel)], body: nil)
        XCTAssertEqual(deleted.status, 204)
        let late = try provider.send(path: Self.broadcastPath, headers: broadcastHeaders(channel), body: Self.payload)
        XCTAssertEqual(late.status, 400)
        XCTAssertEqual(late.body, #"{"reason":"ChannelNotRegistered"}"#)
        XCTAssertEqual(late.header("content-type"), "application/json")
        XCTAssertNotNil(late.header("apns-request-id"))
        XCTAssertEqual(server.broadcasts(channel: channel).map(\.reason), [nil, .channelNotRegistered])
        try await server.shutdown()
    }

    func testManagementRefusalsOverTheWire() async throws {
        let (server, _, managePort) = try await Self.start { $0.broadcast.options.channelLimit = 1 }
        let manage = CurlClient(port: managePort)
        let cases: [(name: String, method: String, path: String, headers: [(String, String)], body: String?, status: Int, reason: String)] = [
            ("no channel id", "GET", Self.channelsPath, [], nil, 400, "MissingChannelId"),
            ("bad channel id", "DELETE", Self.channelsPath, [("apns-channel-id", "not base64")], nil, 400, "BadChannelId"),
            ("unknown channel", "GET", Self.channelsPath, [("apns-channel-id", "c29tZUNoYW5uZWw=")], nil, 400, "ChannelNotRegistered"),
            ("no push type", "POST", Self.channelsPath, [], #"{"message-storage-policy":0}"#, 400, "MissingPushType"),
            ("wrong push type", "POST", Self.channelsPath, [], #"{"message-storage-policy":0,"push-type":"alert"}"#, 400, "InvalidPushType"),
            ("bad storage policy", "POST", Self.channelsPath, [], #"{"message-storage-policy":9,"push-type":"LiveActivity"}"#,
             400, "BadRequestParams"),
            ("another app's bundle id", "GET", "/1/apps/com.example.other/all-channels", [], nil, 403, "TopicMismatch"),
            ("unknown path", "GET", "/1/apps/\(Self.bundle)/channel", [], nil, 404, "BadPath"),
            ("wrong method", "PUT", Self.channelsPath, [], "{}", 405, "MethodNotAllowed"),
        ]
        for item in cases {
            let response = try manage.send(method: item.method, path: item.path, headers: item.headers, body: item.body)
            XCTAssertEqual(response.status, item.status, item.name)
            XCTAssertEqual(response.body, #"{"reason":"\#(item.reason)"}"#, item.name)
            XCTAssertNotNil(response.header("apns-request-id"), item.name)
            XCTAssertNil(response.header("apns-id"), "\(item.name): the management API answers no apns-id")
        }
        XCTAssertEqual(try manage.send(path: Self.channelsPath, body: Self.createBody).status, 201)
        let full = try manage.send(path: Self.channelsPath, body: Self.createBody)
        XCTAssertEqual(full.body, #"{"reason":"CannotCreateChannelConfig"}"#)
        XCTAssertEqual(server.channelOperations().count, cases.count + 2, "every request is journaled")
        try await server.shutdown()
    }

    func testManagementAuthenticatesLikeTheProviderAPI() async throws {
        let (server, _, managePort) = try await Self.start()
        let manage = CurlClient(port: managePort, certificate: nil)
        func jwt(_ keyID: String) throws -> String {
            let pem = try String(contentsOfFile: Fixtures.certificateDirectory + "/AuthKey_\(keyID).p8", encoding: .utf8)
            return try ProviderTokenSigner(keyID: keyID, teamID: "TEAM00000A", privateKeyPEM: pem).token(issuedAt: Int64(Date().timeIntervalSince1970))
        }
        let anonymous = try manage.send(path: Self.channelsPath, body: Self.createBody)
        XCTAssertEqual(anonymous.status, 403)
        XCTAssertEqual(anonymous.body, #"{"reason":"MissingProviderToken"}"#)
        let production = try manage.send(path: Self.channelsPath, headers: [("authorization", "bearer \(try jwt("PRODUCT001"))")], body: Self.createBody)
        XCTAssertEqual(production.status, 403, production.body)
        let token = try manage.send(path: Self.channelsPath, headers: [("authorization", "bearer \(try jwt("SANDBOX001"))")], body: Self.createBody)
        XCTAssertEqual(token.status, 201, token.body)
        let productionCertificate = try CurlClient(port: managePort, certificate: "production").send(path: Self.channelsPath, body: Self.createBody)
        XCTAssertEqual(productionCertificate.body, #"{"reason":"BadCertificateEnvironment"}"#)
        XCTAssertEqual(server.channels.all.count, 1)
        try await server.shutdown()
    }

    func testBroadcastRefusalsAndSeededChannels() async throws {
        let seeded = BroadcastChannel(id: "dHN0LXNyY2gtY2hubA==", bundleID: Self.bundle, environment: .sandbox, storagePolicy: .noMessageStored)
        let (server, ports) = try await TestServer.start { $0.broadcast.channels = [seeded] }
        XCTAssertNil(ports.channelManagement, "an embedded server runs no management listener unless asked")
        let provider = CurlClient(port: ports.http2)
        let cases: [(name: String, headers: [(String, String)], body: String, reason: String?)] = [
            ("seeded channel", broadcastHeaders(seeded.id) + [("apns-expiration", "0")], Self.payload, nil),
            ("expiration on a No Messages Stored channel", broadcastHeaders(seeded.id) + [("apns-expiration", "1700003600")],
             Self.payload, "BadExpirationDate"),
            ("no channel id", [("apns-push-type", "liveactivity")], Self.payload, "MissingChannelId"),
            ("no push type", [("apns-channel-id", seeded.id)], Self.payload, "MissingPushType"),
            ("priority 7", [("apns-channel-id", seeded.id), ("apns-push-type", "liveactivity"), ("apns-priority", "7")],
             Self.payload, "BadPriority"),
            ("topic with the Live Activity suffix", broadcastHeaders(seeded.id) + [("apns-topic", Self.bundle + ".push-type.liveactivity")],
             Self.payload, "TopicDisallowed"),
            ("empty payload", broadcastHeaders(seeded.id), "", "PayloadEmpty"),
        ]
        for item in cases {
            let response = try provider.send(path: Self.broadcastPath, headers: item.headers, body: item.body)
            if let reason = item.reason {
                XCTAssertEqual(response.body, #"{"reason":"\#(reason)"}"#, item.name)
                XCTAssertEqual(response.status, 400, item.name)
            } else {
                XCTAssertEqual(response.status, 200, "\(item.name): \(response.body)")
            }
            XCTAssertNotNil(response.header("apns-request-id"), item.name)
            XCTAssertNotNil(response.header("apns-id"), item.name)
        }
        // Device pushes on the same connection path are unaffected.
        let device = try provider.send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", Self.bundle), ("apns-push-type", "alert")])
        XCTAssertEqual(device.status, 200)
        XCTAssertNil(device.header("apns-request-id"))
        XCTAssertEqual(server.broadcasts(channel: seeded.id).count, cases.count - 1, "the broadcast without a channel id is journaled without one")
        XCTAssertEqual(server.broadcasts().count, cases.count)
        server.channels.reset()
        XCTAssertEqual(try provider.send(path: Self.broadcastPath, headers: broadcastHeaders(seeded.id), body: Self.payload).body,
                       #"{"reason":"ChannelNotRegistered"}"#)
        server.resetChannels()
        XCTAssertEqual(server.channels.all, [seeded], "a reset keeps the configured channels")
        try await server.shutdown()
    }

    func testScenarioRulesMatchChannelsAndOperations() async throws {
        let (server, ports, managePort) = try await Self.start()
        let scenario = """
        {"name": "channels", "rules": [
          {"name": "first create fails", "match": {"channelOperations": ["create"]}, "times": 1,
           "action": {"type": "reject", "reason": "InternalServerError"}},
          {"name": "no deletes", "stage": "beforeValidation", "match": {"channelOperations": ["delete"]},
           "action": {"type": "reject", "reason": "InternalServerError"}},
          {"name": "busy channel", "match": {"channels": ["c29tZUNoYW5uZWw="]}, "action": {"type": "reject", "reason": "TooManyRequests"}}
        ]}
        """
        try server.replaceScenario(jsonText: scenario)
        server.channels.insert(BroadcastChannel(id: "c29tZUNoYW5uZWw=", bundleID: Self.bundle, environment: .sandbox, storagePolicy: .mostRecentMessageStored))
        let manage = CurlClient(port: managePort)
        // An after-validation rule refuses what the core accepted, and the core's change is
        // not made: no channel appears.
        let refused = try manage.send(path: Self.channelsPath, body: Self.createBody)
        XCTAssertEqual(refused.status, 500)
        XCTAssertEqual(refused.body, #"{"reason":"InternalServerError"}"#)
        XCTAssertNil(refused.header("apns-channel-id"))
        XCTAssertEqual(server.channels.channels(bundleID: Self.bundle, environment: .sandbox).count, 1, "only the inserted channel")
        let created = try manage.send(path: Self.channelsPath, body: Self.createBody)
        XCTAssertEqual(created.status, 201, "the rule fired once")
        let channel = try XCTUnwrap(created.header("apns-channel-id"))
        let delete = try manage.send(method: "DELETE", path: Self.channelsPath, headers: [("apns-channel-id", channel)], body: nil)
        XCTAssertEqual(delete.status, 500)
        XCTAssertEqual(delete.body, #"{"reason":"InternalServerError"}"#)
        XCTAssertNotNil(delete.header("apns-request-id"))
        XCTAssertNil(delete.header("apns-id"))
        // A before-validation rule answers without the core: the channel was not deleted.
        let provider = CurlClient(port: ports.http2)
        XCTAssertEqual(try provider.send(path: Self.broadcastPath, headers: broadcastHeaders(channel), body: Self.payload).status, 200)
        let busy = try provider.send(path: Self.broadcastPath, headers: broadcastHeaders("c29tZUNoYW5uZWw="), body: Self.payload)
        XCTAssertEqual(busy.status, 429)
        XCTAssertEqual(busy.body, #"{"reason":"TooManyRequests"}"#)
        XCTAssertNotNil(busy.header("apns-request-id"))
        try await server.shutdown()
    }
}
