import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest

/// Every request shape Apple documents for broadcast push, sent over real TLS with the real
/// `curl --http2`, and the status, reason and headers Apple documents for it:
///
/// - "Sending channel management requests to APNs" (CM): create, read, delete, read all;
/// - "Sending broadcast push notification requests to APNs" (BC): the header table, the
///   token and certificate samples, the 5 KB limit, the success headers;
/// - "Handling error responses from Apple Push Notification service" (ERR): the status and
///   reason table, and its sample error response.
///
/// (developer.apple.com/documentation/usernotifications/...) Where a row's answer is MockAPNs'
/// choice rather than Apple's text, its name says so.
final class BroadcastDocumentedShapesTests: XCTestCase {
    static let bundle = "com.example.app"
    static let channels = "/1/apps/\(bundle)/channels"
    static let allChannels = "/1/apps/\(bundle)/all-channels"
    static let broadcast = "/4/broadcasts/apps/\(bundle)"
    /// CM's create body, as its curl sample sends it.
    static let createBody = #"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#
    /// BC's sample payload.
    static let samplePayload = #"""
    {"aps":{"timestamp":1685952000,"event":"update","content-state":{"currentHealthLevel":0.0,"eventDescription":"Power Panda has been knocked down!"},"alert":{"title":{"loc-key":"%@ is knocked down!","loc-args":["Power Panda"]},"body":{"loc-key":"Use a potion to heal %@!","loc-args":["Power Panda"]},"sound":"HeroDown.mp4"}}}
    """#
    static let requestID = "2288cf3f-70d8-46a6-97d7-dd5d00867127"
    static let uuidPattern = #"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"#

    private var server: MockAPNsServer!
    private var provider: CurlClient!
    private var manage: CurlClient!

    override func setUp() async throws {
        let (server, ports) = try await TestServer.start {
            $0.broadcast.managePort = 0
        }
        self.server = server
        provider = CurlClient(port: ports.http2, certificate: nil)
        manage = CurlClient(port: try XCTUnwrap(ports.channelManagement), certificate: nil)
    }

    override func tearDown() async throws {
        try await server?.shutdown()
    }

    private func jwt(_ keyID: String = "SANDBOX001") throws -> String {
        let pem = try String(contentsOfFile: Fixtures.certificateDirectory + "/AuthKey_\(keyID).p8", encoding: .utf8)
        return try ProviderTokenSigner(keyID: keyID, teamID: "TEAM00000A", privateKeyPEM: pem).token(issuedAt: Int64(Date().timeIntervalSince1970))
    }

    private func bearer(_ keyID: String = "SANDBOX001") throws -> (String, String) {
        ("authorization", "bearer \(try jwt(keyID))")
    }

    /// A channel made through the management API (policy 1 unless told).
    private func createChannel(policy: Int = 1) throws -> String {
        let created = try manage.send(path: Self.channels, headers: [try bearer()],
                                      body: #"{"message-storage-policy": \#(policy), "push-type": "LiveActivity"}"#)
        XCTAssertEqual(created.status, 201, created.body)
        return try XCTUnwrap(created.header("apns-channel-id"))
    }

    // MARK: Channel management (CM)

    /// CM's four samples, each with its documented success status, headers and body.
    func testTheFourManagementSamples() throws {
        let created = try manage.send(path: Self.channels, headers: [try bearer(), ("apns-request-id", Self.requestID)], body: Self.createBody)
        XCTAssertEqual(created.httpVersion, "HTTP/2")
        XCTAssertEqual(created.status, 201)
        XCTAssertEqual(created.header("apns-request-id"), Self.requestID)
        let channel = try XCTUnwrap(created.header("apns-channel-id"), "a base64-encoded string that identifies the newly created channel")
        XCTAssertNotNil(Data(base64Encoded: channel))
        XCTAssertEqual(created.body, "", "the body of the response is empty")

        let read = try manage.send(method: "GET", path: Self.channels,
                                   headers: [try bearer(), ("apns-request-id", Self.requestID), ("apns-channel-id", channel)], body: nil)
        XCTAssertEqual(read.status, 200)
        XCTAssertEqual(read.header("apns-request-id"), Self.requestID)
        let fields = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(read.body.utf8)) as? [String: Any])
        XCTAssertEqual(fields["message-storage-policy"] as? Int, 1)
        XCTAssertEqual(fields["push-type"] as? String, "LiveActivity")

        let all = try manage.send(method: "GET", path: Self.allChannels, headers: [try bearer(), ("apns-request-id", Self.requestID)], body: nil)
        XCTAssertEqual(all.status, 200)
        let listed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(all.body.utf8)) as? [String: Any])
        XCTAssertEqual(listed["channels"] as? [String], [channel])

        let deleted = try manage.send(method: "DELETE", path: Self.channels,
                                      headers: [try bearer(), ("apns-request-id", Self.requestID), ("apns-channel-id", channel)], body: nil)
        XCTAssertEqual(deleted.status, 204)
        XCTAssertEqual(deleted.header("apns-request-id"), Self.requestID)
        XCTAssertEqual(deleted.body, "")

        // Without apns-request-id, "APNs creates a new UUID and returns it".
        let generated = try manage.send(method: "GET", path: Self.allChannels, headers: [try bearer()], body: nil)
        XCTAssertNotNil(generated.header("apns-request-id")?.range(of: Self.uuidPattern, options: .regularExpression))
        // Certificates work as on the provider API (mTLS: "Required, if mTLS authentication is omitted").
        let certificate = CurlClient(port: manage.port, certificate: "sandbox")
        XCTAssertEqual(try certificate.send(method: "GET", path: Self.allChannels, body: nil).status, 200)
    }

    /// ERR's table, as the management API answers it.
    func testManagementRefusals() throws {
        let channel = try createChannel()
        let auth = try bearer()
        let rows: [(name: String, method: String, path: String, headers: [(String, String)], body: String?, status: Int, reason: String)] = [
            ("MissingChannelId (ERR's sample response)", "GET", Self.channels, [auth], nil, 400, "MissingChannelId"),
            ("BadChannelId", "DELETE", Self.channels, [auth, ("apns-channel-id", "not base64")], nil, 400, "BadChannelId"),
            ("ChannelNotRegistered", "GET", Self.channels, [auth, ("apns-channel-id", "bm9uZQ==")], nil, 400, "ChannelNotRegistered"),
            ("BadRequestPayload: unparseable", "POST", Self.channels, [auth], #"{"message-storage-policy":1,"#, 400, "BadRequestPayload"),
            ("BadRequestParams: unrecognizable attribute", "POST", Self.channels, [auth],
             #"{"message-storage-policy":1,"push-type":"LiveActivity","ttl":5}"#, 400, "BadRequestParams"),
            ("MissingPushType", "POST", Self.channels, [auth], #"{"message-storage-policy":1}"#, 400, "MissingPushType"),
            ("InvalidPushType", "POST", Self.channels, [auth], #"{"message-storage-policy":1,"push-type":"alert"}"#, 400, "InvalidPushType"),
            ("choice: BadRequestParams for a storage policy other than 0 and 1", "POST", Self.channels, [auth],
             #"{"message-storage-policy":7,"push-type":"LiveActivity"}"#, 400, "BadRequestParams"),
            ("BadMessageId", "GET", Self.allChannels, [auth, ("apns-request-id", "nope")], nil, 400, "BadMessageId"),
            ("TopicDisallowed: a push-type suffix on the bundle id", "POST", "/1/apps/\(Self.bundle).push-type.liveactivity/channels",
             [auth], Self.createBody, 400, "TopicDisallowed"),
            ("TopicMismatch", "GET", "/1/apps/com.example.other/all-channels", [("authorization", "bearer \(try jwtTopicKey())")],
             nil, 403, "TopicMismatch"),
            ("MissingProviderToken", "GET", Self.allChannels, [], nil, 403, "MissingProviderToken"),
            ("MissingProviderToken before the channel id", "GET", Self.channels, [], nil, 403, "MissingProviderToken"),
            ("InvalidProviderToken", "GET", Self.allChannels, [("authorization", "bearer not.a.token")], nil, 403, "InvalidProviderToken"),
            ("BadPath", "GET", "/1/apps/\(Self.bundle)/channel", [auth], nil, 404, "BadPath"),
            ("choice: MethodNotAllowed for a method the path does not take", "PUT", Self.channels, [auth], "{}", 405, "MethodNotAllowed"),
        ]
        for row in rows {
            let response = try manage.send(method: row.method, path: row.path, headers: row.headers, body: row.body)
            XCTAssertEqual(response.status, row.status, row.name)
            XCTAssertEqual(response.body, #"{"reason":"\#(row.reason)"}"#, row.name)
            XCTAssertEqual(response.header("content-type"), "application/json", row.name)
            XCTAssertNotNil(response.header("apns-request-id")?.range(of: Self.uuidPattern, options: .regularExpression), row.name)
        }
        XCTAssertEqual(server.channels.channels(bundleID: Self.bundle + ".push-type.liveactivity", environment: .sandbox), [],
                       "a suffixed bundle id gets no channel")
        XCTAssertEqual(server.channels.all.map(\.id), [channel])
    }

    /// `TOPICSBX01` is a topic-specific key for com.example.app.
    private func jwtTopicKey() throws -> String { try jwt("TOPICSBX01") }

    func testABundleWithoutBroadcastAnswersFeatureNotEnabled() async throws {
        try await server.shutdown()
        let (disabled, ports) = try await TestServer.start {
            $0.broadcast.managePort = 0
            $0.broadcast.options.disabledBundleIDs = [Self.bundle]
        }
        server = disabled
        manage = CurlClient(port: try XCTUnwrap(ports.channelManagement), certificate: nil)
        let refused = try manage.send(path: Self.channels, headers: [try bearer()], body: Self.createBody)
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(refused.body, #"{"reason":"FeatureNotEnabled"}"#)
        let broadcast = try CurlClient(port: ports.http2, certificate: nil)
            .send(path: Self.broadcast, headers: [try bearer(), ("apns-push-type", "liveactivity"), ("apns-channel-id", "bm9uZQ==")],
                  body: Self.samplePayload)
        XCTAssertEqual(broadcast.body, #"{"reason":"FeatureNotEnabled"}"#)
    }

    func testTheChannelLimitAnswersCannotCreateChannelConfig() async throws {
        try await server.shutdown()
        let (limited, ports) = try await TestServer.start {
            $0.broadcast.managePort = 0
            $0.broadcast.options.channelLimit = 1
        }
        server = limited
        manage = CurlClient(port: try XCTUnwrap(ports.channelManagement), certificate: nil)
        _ = try createChannel()
        let full = try manage.send(path: Self.channels, headers: [try bearer()], body: Self.createBody)
        XCTAssertEqual(full.status, 400)
        XCTAssertEqual(full.body, #"{"reason":"CannotCreateChannelConfig"}"#)
    }

    // MARK: Broadcasts (BC)

    /// BC's two samples (token with apns-id; certificate with apns-request-id), with its
    /// payload; the success answer carries apns-request-id and apns-unique-id.
    func testTheTwoBroadcastSamples() throws {
        let channel = try createChannel(policy: 0)
        let sampleHeaders = [("apns-push-type", "liveactivity"), ("apns-expiration", "0"), ("apns-priority", "10"), ("apns-channel-id", channel)]
        let apnsID = "eabeae54-14a8-11e5-b60b-1697f925ec7b"
        let token = try provider.send(path: Self.broadcast, headers: [try bearer(), ("apns-id", apnsID)] + sampleHeaders, body: Self.samplePayload)
        XCTAssertEqual(token.status, 200, token.body)
        XCTAssertEqual(token.body, "", "if the request succeeded, the body of the response is empty")
        XCTAssertNotNil(token.header("apns-request-id")?.range(of: Self.uuidPattern, options: .regularExpression))
        XCTAssertNotNil(token.header("apns-unique-id")?.range(of: Self.uuidPattern, options: .regularExpression))

        let certificate = CurlClient(port: provider.port, certificate: "sandbox")
        let signed = try certificate.send(path: Self.broadcast, headers: [("apns-request-id", apnsID)] + sampleHeaders, body: Self.samplePayload)
        XCTAssertEqual(signed.status, 200, signed.body)
        XCTAssertEqual(signed.header("apns-request-id"), apnsID, "the request identifier specified in the corresponding request")
        XCTAssertNotNil(signed.header("apns-unique-id"))
        XCTAssertEqual(server.broadcasts(channel: channel).map(\.accepted), [true, true])
    }

    /// BC's header table: priorities 10, 5 and 1; `Liveactivity` as the table spells it; the
    /// 5,120-byte limit; expiration 0 and nonzero by storage policy.
    func testTheHeaderTable() throws {
        let stored = try createChannel(policy: 1)
        let unstored = try createChannel(policy: 0)
        let auth = try bearer()
        func send(_ channel: String, _ extra: [(String, String)], payload: String = BroadcastDocumentedShapesTests.samplePayload) throws -> CurlResponse {
            var headers: [(String, String)] = [auth, ("apns-channel-id", channel)]
            var present = Set(extra.map(\.0))
            for (name, value) in [("apns-push-type", "liveactivity"), ("apns-expiration", "0"), ("apns-priority", "10")] where !present.contains(name) {
                headers.append((name, value))
                present.insert(name)
            }
            return try provider.send(path: Self.broadcast, headers: headers + extra, body: payload)
        }
        let rows: [(name: String, channel: String, headers: [(String, String)], payload: String, status: Int, reason: String?)] = [
            ("priority 10", stored, [("apns-priority", "10")], Self.samplePayload, 200, nil),
            ("priority 5 (Medium)", stored, [("apns-priority", "5")], Self.samplePayload, 200, nil),
            ("priority 1 (Low)", stored, [("apns-priority", "1")], Self.samplePayload, 200, nil),
            ("BadPriority", stored, [("apns-priority", "7")], Self.samplePayload, 400, "BadPriority"),
            ("Liveactivity as the table spells it", stored, [("apns-push-type", "Liveactivity")], Self.samplePayload, 200, nil),
            ("InvalidPushType", stored, [("apns-push-type", "alert")], Self.samplePayload, 400, "InvalidPushType"),
            ("nonzero expiration on Most Recent Message Stored", stored, [("apns-expiration", "1900000000")], Self.samplePayload, 200, nil),
            ("BadExpirationDate: nonzero on No Message Stored", unstored, [("apns-expiration", "1900000000")], Self.samplePayload,
             400, "BadExpirationDate"),
            ("BadExpirationDate: not an epoch timestamp", stored, [("apns-expiration", "tomorrow")], Self.samplePayload, 400, "BadExpirationDate"),
            ("5,120 bytes", stored, [], Self.payload(size: 5120), 200, nil),
            ("PayloadTooLarge: 5,121 bytes", stored, [], Self.payload(size: 5121), 413, "PayloadTooLarge"),
            ("PayloadEmpty", stored, [], "", 400, "PayloadEmpty"),
            ("BadRequestPayload", stored, [], #"{"aps":"#, 400, "BadRequestPayload"),
            ("MissingChannelId", "", [], Self.samplePayload, 400, "MissingChannelId"),
            ("BadChannelId", "***", [], Self.samplePayload, 400, "BadChannelId"),
            ("ChannelNotRegistered", "bm9uZQ==", [], Self.samplePayload, 400, "ChannelNotRegistered"),
            ("TopicDisallowed: a push-type suffix in apns-topic", stored, [("apns-topic", Self.bundle + ".push-type.liveactivity")],
             Self.samplePayload, 400, "TopicDisallowed"),
            ("choice: the bare bundle id in apns-topic", stored, [("apns-topic", Self.bundle)], Self.samplePayload, 200, nil),
            ("BadMessageId: apns-request-id not a UUID", stored, [("apns-request-id", "x")], Self.samplePayload, 400, "BadMessageId"),
        ]
        for row in rows {
            let response: CurlResponse
            if row.channel.isEmpty {
                response = try provider.send(path: Self.broadcast, headers: [auth, ("apns-push-type", "liveactivity")] + row.headers,
                                             body: row.payload)
            } else {
                response = try send(row.channel, row.headers, payload: row.payload)
            }
            XCTAssertEqual(response.status, row.status, "\(row.name): \(response.body)")
            if let reason = row.reason {
                XCTAssertEqual(response.body, #"{"reason":"\#(reason)"}"#, row.name)
                XCTAssertEqual(response.header("content-type"), "application/json", row.name)
                XCTAssertNil(response.header("apns-unique-id"), row.name)
            } else {
                XCTAssertNotNil(response.header("apns-unique-id"), row.name)
            }
            XCTAssertNotNil(response.header("apns-request-id"), row.name)
        }
    }

    /// A payload of exactly `size` bytes: `{"aps":{...},"pad":"xxx"}`.
    static func payload(size: Int) -> String {
        let head = #"{"aps":{"timestamp":1685952000,"event":"update","content-state":{}},"pad":""#
        return head + String(repeating: "x", count: size - head.utf8.count - 2) + #""}"#
    }

    /// Authentication first ("If authentication succeeds, APNs then validates the channel
    /// ID"), then 403 TopicMismatch for a key of another app, 403 for the other environment.
    func testAuthenticationComesFirst() throws {
        let none = try provider.send(path: Self.broadcast, headers: [("apns-push-type", "alert")], body: "")
        XCTAssertEqual(none.status, 403)
        XCTAssertEqual(none.body, #"{"reason":"MissingProviderToken"}"#)
        let production = try provider.send(path: Self.broadcast, headers: [try bearer("PRODUCT001"), ("apns-push-type", "liveactivity")],
                                           body: Self.samplePayload)
        XCTAssertEqual(production.status, 403, production.body)
        let wrongEnvironmentCertificate = try CurlClient(port: provider.port, certificate: "production")
            .send(path: Self.broadcast, headers: [("apns-push-type", "liveactivity")], body: Self.samplePayload)
        XCTAssertEqual(wrongEnvironmentCertificate.body, #"{"reason":"BadCertificateEnvironment"}"#)
        let other = try provider.send(path: "/4/broadcasts/apps/com.example.other",
                                      headers: [("authorization", "bearer \(try jwtTopicKey())"), ("apns-push-type", "liveactivity")],
                                      body: Self.samplePayload)
        XCTAssertEqual(other.status, 403)
        XCTAssertEqual(other.body, #"{"reason":"TopicMismatch"}"#)
    }

    /// The rest of ERR's statuses, made by the server's own means: 429 and 500 by scenario
    /// rules, 503 Shutdown by shutting down, 404 and 405 by path and method.
    func testTheRemainingStatuses() async throws {
        let channel = try createChannel()
        try server.replaceScenario(jsonText: #"""
        {"name": "statuses", "rules": [
          {"name": "throttle", "match": {"channels": ["\#(channel)"]}, "times": 1, "action": {"type": "reject", "reason": "TooManyRequests"}},
          {"name": "fail", "match": {"channels": ["\#(channel)"]}, "times": 1, "action": {"type": "reject", "reason": "InternalServerError"}}
        ]}
        """#)
        let headers = [try bearer(), ("apns-channel-id", channel), ("apns-push-type", "liveactivity"), ("apns-expiration", "0"), ("apns-priority", "5")]
        let throttled = try provider.send(path: Self.broadcast, headers: headers, body: Self.samplePayload)
        XCTAssertEqual(throttled.status, 429)
        XCTAssertEqual(throttled.body, #"{"reason":"TooManyRequests"}"#)
        let failed = try provider.send(path: Self.broadcast, headers: headers, body: Self.samplePayload)
        XCTAssertEqual(failed.status, 500)
        XCTAssertEqual(failed.body, #"{"reason":"InternalServerError"}"#)
        XCTAssertEqual(try provider.send(path: Self.broadcast, headers: headers, body: Self.samplePayload).status, 200)
        let wrongPath = try provider.send(path: "/4/broadcast/apps/\(Self.bundle)", headers: headers, body: Self.samplePayload)
        XCTAssertEqual(wrongPath.status, 404)
        XCTAssertEqual(wrongPath.body, #"{"reason":"BadPath"}"#)
        let wrongMethod = try provider.send(method: "PUT", path: Self.broadcast, headers: headers, body: Self.samplePayload)
        XCTAssertEqual(wrongMethod.status, 405)
        XCTAssertEqual(wrongMethod.body, #"{"reason":"MethodNotAllowed"}"#)
    }

    /// Broadcasts are journaled with the diagnoses their answers do not carry.
    func testDiagnosesBesideTheAnswers() async throws {
        let channel = try createChannel()
        let start = #"{"aps":{"timestamp":1685952000,"event":"start","content-state":{}}}"#
        let response = try provider.send(path: Self.broadcast, headers: [try bearer(), ("apns-channel-id", channel), ("apns-push-type", "liveactivity")],
                                         body: start)
        XCTAssertEqual(response.status, 200, "Apple accepts it; the device does not start anything")
        let codes = await server.journal.waitForEvents(count: 2, timeout: .seconds(5)) { event in
            if case .diagnosis = event.kind { return true }
            return false
        }.compactMap { event -> DiagnosisCode? in
            if case .diagnosis(let code, _, _) = event.kind { return code }
            return nil
        }
        XCTAssertEqual(Set(codes), [.broadcastMissingRequiredHeader, .payloadBroadcastStart])
    }
}
