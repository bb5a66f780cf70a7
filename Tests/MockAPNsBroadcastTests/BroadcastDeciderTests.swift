import MockAPNsWire
import XCTest
@testable import MockAPNsCore
@testable import MockAPNsBroadcast

/// Broadcast sends (`POST /4/broadcasts/apps/<bundleID>`): every status and reason,
/// table-driven, and the ids of an accepted broadcast.
final class BroadcastDeciderTests: XCTestCase {
    static let bundle = "com.example.app"
    static let stored = BroadcastChannel(id: "c29tZUNoYW5uZWw=", bundleID: bundle, environment: .sandbox, storagePolicy: .mostRecentMessageStored)
    static let unstored = BroadcastChannel(id: "dHN0LXNyY2gtY2hubA==", bundleID: bundle, environment: .sandbox, storagePolicy: .noMessageStored)
    static let teamKey = AuthenticationResult.providerToken(teamID: "TEAM123456", keyID: "KEY1234567", allowedTopics: nil)
    static let payload = #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{"score":"1-0"}}}"#

    /// A well-formed broadcast to `stored`, with headers changed by `edit`.
    static func request(payload: String = payload, _ edit: (inout [String: String?]) -> Void = { _ in }) -> ProviderRequest {
        var fields: [String: String?] = [
            ":method": "POST", ":path": "/4/broadcasts/apps/\(bundle)", "apns-channel-id": stored.id,
            "apns-push-type": "liveactivity", "apns-priority": "10",
        ]
        edit(&fields)
        let order = [":method", ":path", "apns-channel-id", "apns-push-type", "apns-priority", "apns-expiration", "apns-topic",
                     "apns-id", "apns-request-id", "apns-collapse-id"]
        var headers: [HTTPHeader] = []
        for name in order { if let value = fields[name] ?? nil { headers.append(HTTPHeader(name: name, value: value)) } }
        return ProviderRequest(headers: headers, body: Array(payload.utf8))
    }

    private struct Row {
        var name: String
        var request: ProviderRequest
        var authentication: AuthenticationResult = BroadcastDeciderTests.teamKey
        var environment: APNsEnvironment = .sandbox
        var options = BroadcastOptions.default
        var reason: Reason?
    }

    /// Row names start with where the expected answer comes from: "documented" (Apple's
    /// "Sending broadcast push notification requests to APNs" and "Handling error responses
    /// from Apple Push Notification service") or "choice" (MockAPNs' own, docs/broadcast-protocol.md).
    private static let rows: [Row] = [
        Row(name: "documented: accepted", request: request()),
        Row(name: "documented: priority 5", request: request { $0["apns-priority"] = "5" }),
        Row(name: "documented: priority 1 (Low)", request: request { $0["apns-priority"] = "1" }),
        Row(name: "documented: push type as the header table spells it", request: request { $0["apns-push-type"] = "Liveactivity" }),
        Row(name: "choice: push type in any letter case", request: request { $0["apns-push-type"] = "LiveActivity" }),
        Row(name: "choice: push type spelled exactly, when asked", request: request { $0["apns-push-type"] = "LIVEACTIVITY" },
            options: BroadcastOptions(pushTypeCaseSensitive: true), reason: .invalidPushType),
        Row(name: "documented: expiration 0 on a No Messages Stored channel", request: request {
            $0["apns-channel-id"] = unstored.id; $0["apns-expiration"] = "0"
        }),
        Row(name: "documented: certificate naming the Live Activity topic", request: request(),
            authentication: .certificate(topics: ["\(bundle).push-type.liveactivity"], defaultTopic: nil, environments: [.sandbox])),
        Row(name: "documented: certificate sample (apns-request-id, no apns-id)", request: request {
            $0["apns-request-id"] = "eabeae54-14a8-11e5-b60b-1697f925ec7b"; $0["apns-expiration"] = "0"
        }, authentication: .certificate(topics: [bundle], defaultTopic: bundle, environments: [.sandbox])),
        Row(name: "documented: TopicDisallowed for a topic with a push-type suffix",
            request: request { $0["apns-topic"] = "\(bundle).push-type.liveactivity" }, reason: .topicDisallowed),
        Row(name: "documented: TopicDisallowed for a bundle id with a push-type suffix",
            request: request { $0[":path"] = "/4/broadcasts/apps/\(bundle).push-type.liveactivity" }, reason: .topicDisallowed),
        Row(name: "choice: the bare bundle id as apns-topic", request: request { $0["apns-topic"] = bundle }),
        Row(name: "choice: another app's topic is accepted (and diagnosed)", request: request { $0["apns-topic"] = "com.other.app" }),
        Row(name: "choice: another app's topic refused when asked", request: request { $0["apns-topic"] = "com.other.app" },
            options: BroadcastOptions(topicForOtherApp: .reject(.badTopic)), reason: .badTopic),
        Row(name: "choice: DuplicateHeaders", request: ProviderRequest(
            headers: request().head.fields + [HTTPHeader(name: "apns-push-type", value: "liveactivity")], body: Array(payload.utf8)),
            reason: .duplicateHeaders),
        Row(name: "documented: BadMessageId for apns-id", request: request { $0["apns-id"] = "123" }, reason: .badMessageId),
        Row(name: "documented: BadMessageId for apns-request-id (must be a UUID)", request: request { $0["apns-request-id"] = "123" },
            reason: .badMessageId),
        Row(name: "choice: MethodNotAllowed for GET (Apple lists 404 and 405)", request: request { $0[":method"] = "GET" },
            reason: .methodNotAllowed),
        Row(name: "choice: BadPath for a wrong method when asked", request: request { $0[":method"] = "GET" },
            options: BroadcastOptions(wrongMethodReason: .badPath), reason: .badPath),
        Row(name: "documented: BadPath, singular broadcast", request: request { $0[":path"] = "/4/broadcast/apps/\(bundle)" }, reason: .badPath),
        Row(name: "documented: BadPath, no bundle id", request: request { $0[":path"] = "/4/broadcasts/apps/" }, reason: .badPath),
        Row(name: "documented: BadPath, extra segment", request: request { $0[":path"] = "/4/broadcasts/apps/\(bundle)/x" }, reason: .badPath),
        Row(name: "documented: BadExpirationDate, not a number", request: request { $0["apns-expiration"] = "soon" }, reason: .badExpirationDate),
        Row(name: "documented: BadPriority 7", request: request { $0["apns-priority"] = "7" }, reason: .badPriority),
        Row(name: "choice: priority 1 refused when asked", request: request { $0["apns-priority"] = "1" },
            options: BroadcastOptions(allowedPriorities: [.powerAware, .immediate]), reason: .badPriority),
        Row(name: "choice: no apns-priority or apns-expiration is accepted (and diagnosed)", request: request {
            $0["apns-priority"] = .some(nil)
        }),
        Row(name: "choice: no apns-expiration refused when asked", request: request(),
            options: BroadcastOptions(refusesMissingRequiredHeaders: true), reason: .badExpirationDate),
        Row(name: "choice: no apns-priority refused when asked", request: request { $0["apns-expiration"] = "0"; $0["apns-priority"] = .some(nil) },
            options: BroadcastOptions(refusesMissingRequiredHeaders: true), reason: .badPriority),
        Row(name: "documented: MissingPushType", request: request { $0["apns-push-type"] = .some(nil) }, reason: .missingPushType),
        Row(name: "documented: InvalidPushType alert", request: request { $0["apns-push-type"] = "alert" }, reason: .invalidPushType),
        Row(name: "documented: BadTopic (empty)", request: request { $0["apns-topic"] = "" }, reason: .badTopic),
        Row(name: "choice: BadCollapseId", request: request { $0["apns-collapse-id"] = String(repeating: "c", count: 65) }, reason: .badCollapseId),
        Row(name: "documented: MissingChannelId", request: request { $0["apns-channel-id"] = .some(nil) }, reason: .missingChannelId),
        Row(name: "documented: BadChannelId", request: request { $0["apns-channel-id"] = "%%%" }, reason: .badChannelId),
        Row(name: "documented: MissingProviderToken", request: request(), authentication: .unauthenticated, reason: .missingProviderToken),
        Row(name: "documented: authentication before the channel id", request: request { $0["apns-channel-id"] = .some(nil) },
            authentication: .unauthenticated, reason: .missingProviderToken),
        Row(name: "documented: authentication before the headers", request: request { $0["apns-push-type"] = "alert"; $0["apns-id"] = "x" },
            authentication: .rejected(.expiredProviderToken), reason: .expiredProviderToken),
        Row(name: "documented: InvalidProviderToken", request: request(), authentication: .rejected(.invalidProviderToken), reason: .invalidProviderToken),
        Row(name: "documented: BadCertificateEnvironment", request: request(),
            authentication: .certificate(topics: [bundle], defaultTopic: bundle, environments: [.production]),
            reason: .badCertificateEnvironment),
        Row(name: "documented: TopicMismatch (403) for a key of another app", request: request(),
            authentication: .providerToken(teamID: "TEAM123456", keyID: "KEY1234567", allowedTopics: ["com.other.app"]),
            reason: .topicMismatch),
        Row(name: "documented: TopicMismatch (403) when the token verifier found the key does not cover the bundle",
            request: request(), authentication: .rejected(.topicDisallowed), reason: .topicMismatch),
        Row(name: "documented: TopicMismatch (403) for a certificate of another app", request: request(),
            authentication: .certificate(topics: ["com.other.app"], defaultTopic: "com.other.app", environments: [.sandbox]),
            reason: .topicMismatch),
        Row(name: "documented: FeatureNotEnabled", request: request(), options: BroadcastOptions(disabledBundleIDs: [bundle]), reason: .featureNotEnabled),
        Row(name: "documented: ChannelNotRegistered, unknown", request: request { $0["apns-channel-id"] = "bm9wZQ==" }, reason: .channelNotRegistered),
        Row(name: "documented: ChannelNotRegistered, other environment", request: request(), environment: .production, reason: .channelNotRegistered),
        Row(name: "documented: BadExpirationDate, nonzero on a No Messages Stored channel", request: request {
            $0["apns-channel-id"] = unstored.id; $0["apns-expiration"] = "1700003600"
        }, reason: .badExpirationDate),
        Row(name: "documented: PayloadEmpty", request: request(payload: ""), reason: .payloadEmpty),
        Row(name: "documented: 5,120 bytes fit", request: request(payload: "{\"a\":\"" + String(repeating: "x", count: 5120 - 8) + "\"}")),
        Row(name: "documented: PayloadTooLarge past 5,120 bytes",
            request: request(payload: "{\"a\":\"" + String(repeating: "x", count: 5120 - 7) + "\"}"), reason: .payloadTooLarge),
        Row(name: "choice: PayloadTooLarge, smaller limit", request: request(), options: BroadcastOptions(payloadLimit: 16), reason: .payloadTooLarge),
        Row(name: "documented: BadRequestPayload, not JSON", request: request(payload: "{\"aps\":"), reason: .badRequestPayload),
        Row(name: "documented: BadRequestPayload, not an object", request: request(payload: "[1]"), reason: .badRequestPayload),
        Row(name: "choice: unparseable accepted when asked", request: request(payload: "nope"), options: BroadcastOptions(unparseableBody: .accept)),
    ]

    func testEveryStatusAndReason() {
        for row in Self.rows {
            let registry = ChannelRegistry()
            registry.insert(Self.stored)
            registry.insert(Self.unstored)
            let decider = BroadcastDecider(options: row.options, registry: registry)
            let requestID = decider.responseRequestID(for: row.request.head)
            let record = decider.decide(row.request, requestID: requestID,
                                        context: DecisionContext(environment: row.environment, authentication: row.authentication))
            XCTAssertEqual(record.reason, row.reason, row.name)
            XCTAssertEqual(record.status, row.reason?.httpStatus ?? 200, row.name)
            XCTAssertEqual(record.requestID, requestID, row.name)
        }
    }

    func testTopicMismatchIs403AndTheDocumentedReasonsHaveTheirStatus() {
        XCTAssertEqual(Reason.topicMismatch.httpStatus, 403)
        XCTAssertEqual(Reason.badRequestPayload.httpStatus, 400)
        XCTAssertEqual(Reason.badRequestParams.httpStatus, 400)
        XCTAssertEqual(Reason.channelNotRegistered.httpStatus, 400)
    }

    /// What the answer does not say is journaled beside it.
    func testDiagnosesSayWhatTheAnswerDoesNot() {
        let registry = ChannelRegistry()
        registry.insert(Self.stored)
        let decider = BroadcastDecider(registry: registry, clock: ServerClock(fixedAt: 1_700_000_000_000))
        let context = DecisionContext(environment: .sandbox, authentication: Self.teamKey)
        func codes(_ request: ProviderRequest) -> [DiagnosisCode] {
            decider.decide(request, requestID: "r", context: context).diagnoses.map(\.code)
        }
        XCTAssertEqual(codes(Self.request { $0["apns-expiration"] = "0" }), [])
        XCTAssertEqual(codes(Self.request()), [.broadcastMissingRequiredHeader])
        XCTAssertEqual(codes(Self.request { $0["apns-expiration"] = "0"; $0["apns-topic"] = "com.other.app" }), [.broadcastTopicForOtherApp])
        let start = #"{"aps":{"timestamp":1700000000,"event":"start","content-state":{}}}"#
        XCTAssertEqual(codes(Self.request(payload: start) { $0["apns-expiration"] = "0" }), [.payloadBroadcastStart])
        let noEvent = #"{"aps":{"content-state":{}}}"#
        XCTAssertEqual(codes(Self.request(payload: noEvent) { $0["apns-expiration"] = "0" }),
                       [.payloadLiveActivityWithoutEvent, .payloadLiveActivityWithoutTimestamp])
        let message = decider.decide(Self.request(), requestID: "r", context: context).diagnoses.first?.message ?? ""
        XCTAssertTrue(message.contains("apns-expiration"), message)
        XCTAssertFalse(message.contains("apns-priority and"), message)
    }

    /// With `validation.payloadRules: "refuse"`, a broadcast that starts a Live Activity is refused.
    func testPayloadRulesRefuseWhenAsked() {
        let registry = ChannelRegistry()
        registry.insert(Self.stored)
        let decider = BroadcastDecider(validation: ValidationOptions(payloadRules: .refuse), registry: registry)
        let start = #"{"aps":{"timestamp":1700000000,"event":"start","content-state":{}}}"#
        let record = decider.decide(Self.request(payload: start), requestID: "r",
                                    context: DecisionContext(environment: .sandbox, authentication: Self.teamKey))
        XCTAssertEqual(record.reason, .invalidPushType)
    }

    /// The broadcast page lists apns-unique-id among the success headers without naming an
    /// environment, so both environments send one.
    func testAcceptedBroadcastEchoesIdsAndGetsAUniqueIDInBothEnvironments() {
        let registry = ChannelRegistry()
        registry.insert(Self.stored)
        var productionChannel = Self.stored
        productionChannel.environment = .production
        registry.insert(productionChannel)
        let decider = BroadcastDecider(registry: registry)
        let apnsID = "8F0C5AB2-4D1E-4C8A-9B7E-2F3A4B5C6D7E"
        let requestID = "0309f412-aa57-46a8-9ac6-b5aeca8c4594"
        let request = Self.request { $0["apns-id"] = apnsID; $0["apns-request-id"] = requestID }
        XCTAssertEqual(decider.responseRequestID(for: request.head), requestID)

        let sandbox = decider.decide(request, requestID: requestID, context: DecisionContext(environment: .sandbox, authentication: Self.teamKey))
        guard case .accepted(let echoed, let uniqueID) = sandbox.verdict else { return XCTFail("\(sandbox.verdict)") }
        XCTAssertEqual(echoed.text, apnsID)
        XCTAssertTrue(uniqueID.map { UUIDSyntax.isCanonical($0.text, allowsUppercase: false) } ?? false)
        XCTAssertEqual(sandbox.bundleID, Self.bundle)
        XCTAssertEqual(sandbox.channelID, Self.stored.id)
        XCTAssertEqual(sandbox.storagePolicy, .mostRecentMessageStored)
        XCTAssertEqual(sandbox.payloadText, Self.payload)

        let production = decider.decide(request, requestID: requestID, context: DecisionContext(environment: .production, authentication: Self.teamKey))
        guard case .accepted(let productionID, let productionUniqueID) = production.verdict else { return XCTFail("\(production.verdict)") }
        XCTAssertEqual(productionID.text, apnsID)
        XCTAssertTrue(productionUniqueID.map { UUIDSyntax.isCanonical($0.text, allowsUppercase: false) } ?? false)
        XCTAssertNotEqual(productionUniqueID, uniqueID)

        let generated = decider.decide(Self.request(), requestID: requestID, context: DecisionContext(environment: .sandbox, authentication: Self.teamKey))
        XCTAssertTrue(UUIDSyntax.isCanonical(generated.verdict.apnsID.text, allowsUppercase: true), generated.verdict.apnsID.text)
    }

    func testRoutesOnlyBroadcastPaths() {
        XCTAssertTrue(BroadcastDecider.isBroadcastPath("/4/broadcasts/apps/com.example.app"))
        XCTAssertFalse(BroadcastDecider.isBroadcastPath("/3/device/abcd"))
        XCTAssertFalse(BroadcastDecider.isBroadcastPath("/4/broadcast/apps/com.example.app"))
    }
}
