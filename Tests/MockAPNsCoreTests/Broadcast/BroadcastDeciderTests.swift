import XCTest
@testable import MockAPNsCore

/// Broadcast sends (`POST /4/broadcasts/apps/<bundleID>`): every status and reason,
/// table-driven, and the ids of an accepted broadcast.
final class BroadcastDeciderTests: XCTestCase {
    static let bundle = "com.example.app"
    static let stored = BroadcastChannel(id: "c29tZUNoYW5uZWw=", bundleID: bundle, environment: .sandbox, storagePolicy: .mostRecentMessageStored)
    static let unstored = BroadcastChannel(id: "dHN0LXNyY2gtY2hubA==", bundleID: bundle, environment: .sandbox, storagePolicy: .noMessageStored)
    static let teamKey = AuthenticationResult.providerToken(teamID: "TEAM123456", keyID: "KEY1234567", allowedTopics: nil)
    static let payload = #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{"score":"1-0"}}}"#

    /// A well-formed broadcast to `stored`, with headers changed by `edit`.
    static func request(payload: String = payload, _ edit: (inout [String: String?]) -> Void = { _ in }) -> HTTP2PushRequest {
        var fields: [String: String?] = [
            ":method": "POST", ":path": "/4/broadcasts/apps/\(bundle)", "apns-channel-id": stored.id,
            "apns-push-type": "liveactivity", "apns-priority": "10",
        ]
        edit(&fields)
        let order = [":method", ":path", "apns-channel-id", "apns-push-type", "apns-priority", "apns-expiration", "apns-topic",
                     "apns-id", "apns-request-id", "apns-collapse-id"]
        var headers: [HTTPHeader] = []
        for name in order { if let value = fields[name] ?? nil { headers.append(HTTPHeader(name: name, value: value)) } }
        return HTTP2PushRequest(headers: headers, body: Array(payload.utf8))
    }

    private struct Row {
        var name: String
        var request: HTTP2PushRequest
        var authentication: AuthenticationResult = BroadcastDeciderTests.teamKey
        var environment: APNsEnvironment = .sandbox
        var options = BroadcastOptions.default
        var reason: Reason?
    }

    private static let rows: [Row] = [
        Row(name: "accepted", request: request()),
        Row(name: "accepted: priority 5, topic with suffix, expiration", request: request {
            $0["apns-priority"] = "5"; $0["apns-topic"] = "\(bundle).push-type.liveactivity"; $0["apns-expiration"] = "1700003600"
        }),
        Row(name: "accepted: expiration 0 on a No Messages Stored channel", request: request {
            $0["apns-channel-id"] = unstored.id; $0["apns-expiration"] = "0"
        }),
        Row(name: "accepted: certificate naming the Live Activity topic", request: request(),
            authentication: .certificate(topics: ["\(bundle).push-type.liveactivity"], defaultTopic: nil, environments: [.sandbox])),
        Row(name: "DuplicateHeaders", request: HTTP2PushRequest(
            headers: request().headers + [HTTPHeader(name: "apns-push-type", value: "liveactivity")], body: Array(payload.utf8)),
            reason: .duplicateHeaders),
        Row(name: "BadMessageId: apns-id", request: request { $0["apns-id"] = "123" }, reason: .badMessageId),
        Row(name: "BadMessageId: apns-request-id", request: request { $0["apns-request-id"] = "123" }, reason: .badMessageId),
        Row(name: "MethodNotAllowed", request: request { $0[":method"] = "GET" }, reason: .methodNotAllowed),
        Row(name: "BadPath: singular broadcast", request: request { $0[":path"] = "/4/broadcast/apps/\(bundle)" }, reason: .badPath),
        Row(name: "BadPath: no bundle id", request: request { $0[":path"] = "/4/broadcasts/apps/" }, reason: .badPath),
        Row(name: "BadPath: extra segment", request: request { $0[":path"] = "/4/broadcasts/apps/\(bundle)/x" }, reason: .badPath),
        Row(name: "BadExpirationDate: not a number", request: request { $0["apns-expiration"] = "soon" }, reason: .badExpirationDate),
        Row(name: "BadPriority: 1", request: request { $0["apns-priority"] = "1" }, reason: .badPriority),
        Row(name: "BadPriority: 7", request: request { $0["apns-priority"] = "7" }, reason: .badPriority),
        Row(name: "priority 1 allowed by option", request: request { $0["apns-priority"] = "1" },
            options: BroadcastOptions(allowedPriorities: [.powerFirst, .powerAware, .immediate])),
        Row(name: "MissingPushType", request: request { $0["apns-push-type"] = .some(nil) }, reason: .missingPushType),
        Row(name: "InvalidPushType: alert", request: request { $0["apns-push-type"] = "alert" }, reason: .invalidPushType),
        Row(name: "InvalidPushType: LiveActivity spelled as the management API does",
            request: request { $0["apns-push-type"] = "LiveActivity" }, reason: .invalidPushType),
        Row(name: "BadTopic", request: request { $0["apns-topic"] = "" }, reason: .badTopic),
        Row(name: "TopicDisallowed: topic without the suffix", request: request { $0["apns-topic"] = bundle }, reason: .topicDisallowed),
        Row(name: "TopicDisallowed: topic of another app", request: request { $0["apns-topic"] = "com.other.app.push-type.liveactivity" },
            reason: .topicDisallowed),
        Row(name: "BadCollapseId", request: request { $0["apns-collapse-id"] = String(repeating: "c", count: 65) }, reason: .badCollapseId),
        Row(name: "MissingChannelId", request: request { $0["apns-channel-id"] = .some(nil) }, reason: .missingChannelId),
        Row(name: "BadChannelId", request: request { $0["apns-channel-id"] = "%%%" }, reason: .badChannelId),
        Row(name: "MissingProviderToken", request: request(), authentication: .unauthenticated, reason: .missingProviderToken),
        Row(name: "InvalidProviderToken", request: request(), authentication: .rejected(.invalidProviderToken), reason: .invalidProviderToken),
        Row(name: "BadCertificateEnvironment", request: request(),
            authentication: .certificate(topics: [bundle], defaultTopic: bundle, environments: [.production]),
            reason: .badCertificateEnvironment),
        Row(name: "TopicDisallowed: key for another app", request: request(),
            authentication: .providerToken(teamID: "TEAM123456", keyID: "KEY1234567", allowedTopics: ["com.other.app"]),
            reason: .topicDisallowed),
        Row(name: "FeatureNotEnabled", request: request(), options: BroadcastOptions(disabledBundleIDs: [bundle]), reason: .featureNotEnabled),
        Row(name: "ChannelNotRegistered: unknown", request: request { $0["apns-channel-id"] = "bm9wZQ==" }, reason: .channelNotRegistered),
        Row(name: "ChannelNotRegistered: production", request: request(), environment: .production, reason: .channelNotRegistered),
        Row(name: "BadExpirationDate: expiration on a No Messages Stored channel", request: request {
            $0["apns-channel-id"] = unstored.id; $0["apns-expiration"] = "1700003600"
        }, reason: .badExpirationDate),
        Row(name: "PayloadEmpty", request: request(payload: ""), reason: .payloadEmpty),
        Row(name: "PayloadTooLarge", request: request(payload: "{\"a\":\"" + String(repeating: "x", count: 5120) + "\"}"), reason: .payloadTooLarge),
        Row(name: "PayloadTooLarge: smaller limit", request: request(), options: BroadcastOptions(payloadLimit: 16), reason: .payloadTooLarge),
    ]

    func testEveryStatusAndReason() {
        for row in Self.rows {
            let registry = ChannelRegistry()
            registry.insert(Self.stored)
            registry.insert(Self.unstored)
            let decider = BroadcastDecider(options: row.options, registry: registry)
            let requestID = decider.responseRequestID(for: row.request.headers)
            let record = decider.decide(row.request, requestID: requestID,
                                        context: DecisionContext(environment: row.environment, authentication: row.authentication))
            XCTAssertEqual(record.reason, row.reason, row.name)
            XCTAssertEqual(record.status, row.reason?.httpStatus ?? 200, row.name)
            XCTAssertEqual(record.requestID, requestID, row.name)
        }
    }

    func testAcceptedBroadcastEchoesIdsAndGetsAUniqueIDOnTheSandboxOnly() {
        let registry = ChannelRegistry()
        registry.insert(Self.stored)
        var productionChannel = Self.stored
        productionChannel.environment = .production
        registry.insert(productionChannel)
        let decider = BroadcastDecider(registry: registry)
        let apnsID = "8F0C5AB2-4D1E-4C8A-9B7E-2F3A4B5C6D7E"
        let requestID = "0309f412-aa57-46a8-9ac6-b5aeca8c4594"
        let request = Self.request { $0["apns-id"] = apnsID; $0["apns-request-id"] = requestID }
        XCTAssertEqual(decider.responseRequestID(for: request.headers), requestID)

        let sandbox = decider.decide(request, requestID: requestID, context: DecisionContext(environment: .sandbox, authentication: Self.teamKey))
        guard case .accepted(let echoed, let uniqueID) = sandbox.verdict else { return XCTFail("\(sandbox.verdict)") }
        XCTAssertEqual(echoed, apnsID)
        XCTAssertTrue(uniqueID.map { UUIDSyntax.isCanonical($0, allowsUppercase: false) } ?? false)
        XCTAssertEqual(sandbox.bundleID, Self.bundle)
        XCTAssertEqual(sandbox.channelID, Self.stored.id)
        XCTAssertEqual(sandbox.storagePolicy, .mostRecentMessageStored)
        XCTAssertEqual(sandbox.payloadText, Self.payload)

        let production = decider.decide(request, requestID: requestID, context: DecisionContext(environment: .production, authentication: Self.teamKey))
        XCTAssertEqual(production.verdict, .accepted(apnsID: apnsID, uniqueID: nil))

        let generated = decider.decide(Self.request(), requestID: requestID, context: DecisionContext(environment: .sandbox, authentication: Self.teamKey))
        XCTAssertTrue(UUIDSyntax.isCanonical(generated.verdict.apnsID, allowsUppercase: true), generated.verdict.apnsID)
    }

    func testRoutesOnlyBroadcastPaths() {
        XCTAssertTrue(BroadcastDecider.isBroadcastPath("/4/broadcasts/apps/com.example.app"))
        XCTAssertFalse(BroadcastDecider.isBroadcastPath("/3/device/abcd"))
        XCTAssertFalse(BroadcastDecider.isBroadcastPath("/4/broadcast/apps/com.example.app"))
    }
}
