import MockAPNsWire
import XCTest
@testable import MockAPNsCore
@testable import MockAPNsBroadcast

/// The channel management API's answers: every status and reason, table-driven, and the
/// registry effects of create, read, read all and delete.
final class ChannelManagementDeciderTests: XCTestCase {
    static let bundle = "com.example.app"
    static let requestID = "0309f412-aa57-46a8-9ac6-b5aeca8c4594"
    static let teamKey = AuthenticationResult.providerToken(teamID: "TEAM123456", keyID: "KEY1234567", allowedTopics: nil)

    /// A request to the management API.
    static func request(
        _ method: String?, _ path: String?, channel: String? = nil, requestID: String? = nil, body: String = ""
    ) -> ProviderRequest {
        var headers: [HTTPHeader] = []
        if let method { headers.append(HTTPHeader(name: ":method", value: method)) }
        if let path { headers.append(HTTPHeader(name: ":path", value: path)) }
        if let channel { headers.append(HTTPHeader(name: "apns-channel-id", value: channel)) }
        if let requestID { headers.append(HTTPHeader(name: "apns-request-id", value: requestID)) }
        return ProviderRequest(headers: headers, body: Array(body.utf8))
    }

    static let channelsPath = "/1/apps/\(bundle)/channels"
    static let createBody = #"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#

    private struct Row {
        var name: String
        var request: ProviderRequest
        var authentication: AuthenticationResult = ChannelManagementDeciderTests.teamKey
        var environment: APNsEnvironment = .sandbox
        var options = BroadcastOptions.default
        var status: Int
        var reason: Reason?
    }

    /// A channel that exists in every row's registry.
    static let existing = BroadcastChannel(id: "c29tZUNoYW5uZWw=", bundleID: bundle, environment: .sandbox, storagePolicy: .noMessageStored)

    private static let rows: [Row] = [
        Row(name: "create", request: request("POST", channelsPath, body: createBody), status: 201),
        Row(name: "create, policy 0, lowercase push type (node-apn)",
            request: request("POST", channelsPath, body: #"{"message-storage-policy": 0, "push-type": "liveactivity"}"#), status: 201),
        Row(name: "create, policy as a string (node-apn)",
            request: request("POST", channelsPath, body: #"{"message-storage-policy": "1", "push-type": "LiveActivity"}"#), status: 201),
        Row(name: "read", request: request("GET", channelsPath, channel: existing.id), status: 200),
        Row(name: "read all", request: request("GET", "/1/apps/\(bundle)/all-channels"), status: 200),
        Row(name: "delete", request: request("DELETE", channelsPath, channel: existing.id), status: 204),
        Row(name: "BadMessageId: apns-request-id not a UUID",
            request: request("GET", "/1/apps/\(bundle)/all-channels", requestID: "not-a-uuid"), status: 400, reason: .badMessageId),
        Row(name: "BadPath: unknown resource", request: request("GET", "/1/apps/\(bundle)/nothing"), status: 404, reason: .badPath),
        Row(name: "BadPath: no bundle id", request: request("GET", "/1/apps//channels"), status: 404, reason: .badPath),
        Row(name: "BadPath: device path", request: request("POST", "/3/device/abcd"), status: 404, reason: .badPath),
        Row(name: "BadPath: no path", request: request("GET", nil), status: 404, reason: .badPath),
        Row(name: "MethodNotAllowed: PUT channels", request: request("PUT", channelsPath), status: 405, reason: .methodNotAllowed),
        Row(name: "MethodNotAllowed: POST all-channels", request: request("POST", "/1/apps/\(bundle)/all-channels"),
            status: 405, reason: .methodNotAllowed),
        Row(name: "MissingProviderToken", request: request("GET", "/1/apps/\(bundle)/all-channels"),
            authentication: .unauthenticated, status: 403, reason: .missingProviderToken),
        Row(name: "ExpiredProviderToken", request: request("GET", "/1/apps/\(bundle)/all-channels"),
            authentication: .rejected(.expiredProviderToken), status: 403, reason: .expiredProviderToken),
        Row(name: "BadCertificateEnvironment", request: request("GET", "/1/apps/\(bundle)/all-channels"),
            authentication: .certificate(topics: [bundle], defaultTopic: bundle, environments: [.production]),
            status: 403, reason: .badCertificateEnvironment),
        Row(name: "TopicMismatch: certificate for another app", request: request("GET", "/1/apps/\(bundle)/all-channels"),
            authentication: .certificate(topics: ["com.other.app"], defaultTopic: "com.other.app", environments: [.sandbox]),
            status: 403, reason: .topicMismatch),
        Row(name: "TopicMismatch: topic-specific key for another app", request: request("GET", "/1/apps/\(bundle)/all-channels"),
            authentication: .providerToken(teamID: "TEAM123456", keyID: "KEY1234567", allowedTopics: ["com.other.app"]),
            status: 403, reason: .topicMismatch),
        Row(name: "configured reason for an uncovered bundle", request: request("GET", "/1/apps/\(bundle)/all-channels"),
            authentication: .providerToken(teamID: "TEAM123456", keyID: "KEY1234567", allowedTopics: ["com.other.app"]),
            options: BroadcastOptions(bundleNotCoveredReason: .topicDisallowed), status: 400, reason: .topicDisallowed),
        Row(name: "FeatureNotEnabled", request: request("POST", channelsPath, body: createBody),
            options: BroadcastOptions(disabledBundleIDs: [bundle]), status: 400, reason: .featureNotEnabled),
        Row(name: "MissingChannelId: read", request: request("GET", channelsPath), status: 400, reason: .missingChannelId),
        Row(name: "MissingChannelId: delete", request: request("DELETE", channelsPath), status: 400, reason: .missingChannelId),
        Row(name: "BadChannelId: not base64", request: request("GET", channelsPath, channel: "not base64!"), status: 400, reason: .badChannelId),
        Row(name: "BadChannelId: bad padding", request: request("GET", channelsPath, channel: "c29=tZUN"), status: 400, reason: .badChannelId),
        Row(name: "BadChannelId: too long", request: request("GET", channelsPath, channel: String(repeating: "QUFB", count: 17)),
            status: 400, reason: .badChannelId),
        Row(name: "ChannelNotRegistered: unknown id", request: request("GET", channelsPath, channel: "dHN0LXNyY2gtY2hubA=="),
            status: 400, reason: .channelNotRegistered),
        Row(name: "ChannelNotRegistered: other environment", request: request("DELETE", channelsPath, channel: existing.id),
            environment: .production, status: 400, reason: .channelNotRegistered),
        Row(name: "ChannelNotRegistered: other bundle id", request: request("GET", "/1/apps/com.other.app/channels", channel: existing.id),
            status: 400, reason: .channelNotRegistered),
        Row(name: "MissingPushType", request: request("POST", channelsPath, body: #"{"message-storage-policy": 1}"#),
            status: 400, reason: .missingPushType),
        Row(name: "BadRequestPayload: no body (documented: unparseable)", request: request("POST", channelsPath),
            status: 400, reason: .badRequestPayload),
        Row(name: "BadRequestPayload: not JSON", request: request("POST", channelsPath, body: "push-type=LiveActivity"),
            status: 400, reason: .badRequestPayload),
        Row(name: "BadRequestPayload: an array", request: request("POST", channelsPath, body: "[]"), status: 400, reason: .badRequestPayload),
        Row(name: "choice: MissingPushType for an unparseable body when BadRequestPayload is off", request: request("POST", channelsPath),
            options: BroadcastOptions(unparseableBody: .accept), status: 400, reason: .missingPushType),
        Row(name: "BadRequestParams: an unrecognizable attribute (documented)", request: request("POST", channelsPath,
            body: #"{"message-storage-policy": 1, "push-type": "LiveActivity", "name": "final"}"#), status: 400, reason: .badRequestParams),
        Row(name: "choice: an unknown attribute ignored when asked", request: request("POST", channelsPath,
            body: #"{"message-storage-policy": 1, "push-type": "LiveActivity", "name": "final"}"#),
            options: BroadcastOptions(unknownBodyAttribute: .accept), status: 201),
        Row(name: "TopicDisallowed: bundle id with a push-type suffix creates nothing (documented)",
            request: request("POST", "/1/apps/\(bundle).push-type.liveactivity/channels", body: createBody), status: 400, reason: .topicDisallowed),
        Row(name: "TopicDisallowed: read all with a suffixed bundle id",
            request: request("GET", "/1/apps/\(bundle).push-type.widgets/all-channels"), status: 400, reason: .topicDisallowed),
        Row(name: "choice: a bundle id ending in .voip is a bundle id", request: request("GET", "/1/apps/\(bundle).voip/all-channels"), status: 200),
        Row(name: "documented: authentication before the channel id", request: request("GET", channelsPath),
            authentication: .unauthenticated, status: 403, reason: .missingProviderToken),
        Row(name: "documented: authentication before the request id", request: request("GET", channelsPath, requestID: "bad"),
            authentication: .rejected(.invalidProviderToken), status: 403, reason: .invalidProviderToken),
        Row(name: "choice: BadPath for a wrong method when asked", request: request("PUT", channelsPath),
            options: BroadcastOptions(wrongMethodReason: .badPath), status: 404, reason: .badPath),
        Row(name: "InvalidPushType", request: request("POST", channelsPath, body: #"{"message-storage-policy": 1, "push-type": "alert"}"#),
            status: 400, reason: .invalidPushType),
        Row(name: "InvalidPushType: case-sensitive option", request: request("POST", channelsPath,
            body: #"{"message-storage-policy": 1, "push-type": "liveactivity"}"#),
            options: BroadcastOptions(pushTypeCaseSensitive: true), status: 400, reason: .invalidPushType),
        Row(name: "choice: BadRequestParams for storage policy 2", request: request("POST", channelsPath,
            body: #"{"message-storage-policy": 2, "push-type": "LiveActivity"}"#), status: 400, reason: .badRequestParams),
        Row(name: "choice: BadRequestParams for no storage policy", request: request("POST", channelsPath, body: #"{"push-type": "LiveActivity"}"#),
            status: 400, reason: .badRequestParams),
        Row(name: "choice: BadMessageStoragePolicy when configured", request: request("POST", channelsPath,
            body: #"{"message-storage-policy": 2, "push-type": "LiveActivity"}"#),
            options: BroadcastOptions(badStoragePolicyReason: .badMessageStoragePolicy), status: 400, reason: .badMessageStoragePolicy),
        Row(name: "choice: storage policy string refused by option", request: request("POST", channelsPath,
            body: #"{"message-storage-policy": "1", "push-type": "LiveActivity"}"#),
            options: BroadcastOptions(acceptsStoragePolicyStrings: false), status: 400, reason: .badRequestParams),
        Row(name: "CannotCreateChannelConfig", request: request("POST", channelsPath, body: createBody),
            options: BroadcastOptions(channelLimit: 1), status: 400, reason: .cannotCreateChannelConfig),
    ]

    func testEveryStatusAndReason() {
        for row in Self.rows {
            let registry = ChannelRegistry()
            registry.insert(Self.existing)
            let decider = ChannelManagementDecider(options: row.options, registry: registry, clock: ServerClock(fixedAt: 1_000))
            let requestID = decider.responseRequestID(for: row.request.head)
            let outcome = decider.decide(row.request, requestID: requestID,
                                         context: DecisionContext(environment: row.environment, authentication: row.authentication))
            XCTAssertEqual(outcome.answer.status, row.status, row.name)
            XCTAssertEqual(outcome.reason, row.reason, row.name)
            XCTAssertEqual(outcome.answer.headers.first { $0.name == "apns-request-id" }?.value, requestID, row.name)
            if let reason = row.reason {
                XCTAssertEqual(outcome.answer.body.map { String(decoding: $0, as: UTF8.self) }, #"{"reason":"\#(reason.rawValue)"}"#, row.name)
                XCTAssertEqual(outcome.answer.headers.first?.name, "content-type", row.name)
            }
        }
    }

    private func decider(_ registry: ChannelRegistry, options: BroadcastOptions = .default) -> ChannelManagementDecider {
        ChannelManagementDecider(options: options, registry: registry, clock: ServerClock(fixedAt: 5_000))
    }

    private func decide(_ decider: ChannelManagementDecider, _ request: ProviderRequest,
                        environment: APNsEnvironment = .sandbox) -> ChannelManagementOutcome {
        decider.decide(request, requestID: decider.responseRequestID(for: request.head),
                       context: DecisionContext(environment: environment, authentication: Self.teamKey))
    }

    func testCreateReadReadAllDeleteLifecycle() throws {
        let registry = ChannelRegistry()
        let decider = decider(registry)
        let created = decide(decider, Self.request("POST", Self.channelsPath, requestID: Self.requestID, body: Self.createBody))
        XCTAssertEqual(created.answer.status, 201)
        XCTAssertNil(created.answer.body)
        let id = try XCTUnwrap(created.answer.headers.first { $0.name == "apns-channel-id" }?.value)
        XCTAssertEqual(created.channelID, id)
        XCTAssertEqual(created.operation, .create)
        XCTAssertEqual(created.requestID, Self.requestID, "a request's apns-request-id is echoed")
        XCTAssertTrue(ChannelID.isWellFormed(id, maximumLength: 64), id)
        XCTAssertEqual(registry.channel(id: id, bundleID: Self.bundle, environment: .sandbox)?.createdAtMilliseconds, 5_000)

        let read = decide(decider, Self.request("GET", Self.channelsPath, channel: id))
        XCTAssertEqual(read.answer.status, 200)
        XCTAssertEqual(read.answer.body.map { String(decoding: $0, as: UTF8.self) },
                       #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#)

        let second = decide(decider, Self.request("POST", Self.channelsPath, body: #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#))
        let secondID = try XCTUnwrap(second.channelID)
        XCTAssertNotEqual(secondID, id)
        let all = decide(decider, Self.request("GET", "/1/apps/\(Self.bundle)/all-channels"))
        XCTAssertEqual(all.answer.body.map { String(decoding: $0, as: UTF8.self) }, #"{"channels":["\#(id)","\#(secondID)"]}"#)
        XCTAssertEqual(all.answer.headers.first?.value, "application/json")

        XCTAssertEqual(decide(decider, Self.request("DELETE", Self.channelsPath, channel: id)).answer.status, 204)
        XCTAssertEqual(decide(decider, Self.request("GET", Self.channelsPath, channel: id)).reason, .channelNotRegistered)
        XCTAssertEqual(decide(decider, Self.request("DELETE", Self.channelsPath, channel: id)).reason, .channelNotRegistered)
        XCTAssertEqual(registry.channels(bundleID: Self.bundle, environment: .sandbox).map(\.id), [secondID])
        // Channels of one environment are unknown in the other.
        XCTAssertEqual(decide(decider, Self.request("GET", "/1/apps/\(Self.bundle)/all-channels"), environment: .production)
            .answer.body.map { String(decoding: $0, as: UTF8.self) }, #"{"channels":[]}"#)
    }

    func testGeneratedRequestIDIsALowercaseUUIDWhenNoneOrAMalformedOneIsSent() {
        let decider = decider(ChannelRegistry())
        for headers in [[HTTPHeader](), [HTTPHeader(name: "apns-request-id", value: "nope")]] {
            let id = decider.responseRequestID(for: RequestHead(headers))
            XCTAssertTrue(UUIDSyntax.isCanonical(id, allowsUppercase: false), id)
        }
        XCTAssertEqual(decider.responseRequestID(for: RequestHead([HTTPHeader(name: "apns-request-id", value: Self.requestID.uppercased())])),
                       Self.requestID.uppercased())
    }

    func testJudgeChangesNothingUntilApplied() throws {
        let registry = ChannelRegistry()
        registry.insert(Self.existing)
        let decider = decider(registry)
        let context = DecisionContext(environment: .sandbox, authentication: Self.teamKey)
        let create = decider.judge(Self.request("POST", Self.channelsPath, body: Self.createBody), requestID: "r", context: context)
        let id = try XCTUnwrap(create.channelID)
        XCTAssertEqual(create.effect, .create(BroadcastChannel(id: id, bundleID: Self.bundle, environment: .sandbox,
                                                               storagePolicy: .mostRecentMessageStored, createdAtMilliseconds: 5_000)))
        let delete = decider.judge(Self.request("DELETE", Self.channelsPath, channel: Self.existing.id), requestID: "r", context: context)
        XCTAssertEqual(delete.effect, .delete(id: Self.existing.id, bundleID: Self.bundle, environment: .sandbox))
        XCTAssertEqual(registry.all, [Self.existing], "judging changes nothing")
        decider.apply(create)
        decider.apply(delete)
        XCTAssertEqual(registry.all.map(\.id), [id])
        let refused = decider.judge(Self.request("GET", Self.channelsPath), requestID: "r", context: context)
        XCTAssertNil(refused.effect)
    }

    func testChannelLimitCountsPerBundleAndEnvironment() {
        let registry = ChannelRegistry()
        let decider = decider(registry, options: BroadcastOptions(channelLimit: 2))
        for _ in 0..<2 { XCTAssertEqual(decide(decider, Self.request("POST", Self.channelsPath, body: Self.createBody)).answer.status, 201) }
        XCTAssertEqual(decide(decider, Self.request("POST", Self.channelsPath, body: Self.createBody)).reason, .cannotCreateChannelConfig)
        XCTAssertEqual(decide(decider, Self.request("POST", "/1/apps/com.other.app/channels", body: Self.createBody)).answer.status, 201)
        XCTAssertEqual(decide(decider, Self.request("POST", Self.channelsPath, body: Self.createBody), environment: .production)
            .answer.status, 201)
    }
}
