import MockAPNsWire
import XCTest
@testable import MockAPNsCore

/// The whole path a provider sees: raw request -> decision -> response bytes.
final class PushDeciderTests: XCTestCase {
    typealias Fixture = PushRequestFixture

    private static let now: Int64 = 1_700_000_000_123
    private static let unregisteredAt: Int64 = 1_699_999_000_456
    private static let certificate = AuthenticationResult.certificate(
        topics: ["com.example.app", "com.example.app.voip", "com.example.app.complication"],
        defaultTopic: "com.example.app",
        environments: [.sandbox]
    )
    private static let teamKey = AuthenticationResult.providerToken(
        teamID: "TEAM123456", keyID: "KEY1234567", allowedTopics: nil
    )
    private static let topicKey = AuthenticationResult.providerToken(
        teamID: "TEAM123456", keyID: "KEY7654321", allowedTopics: ["com.example.app"]
    )


    // MARK: - Every reason, with its exact response

    private struct Row: Sendable {
        var name: String
        var fixture: Fixture
        var authentication: AuthenticationResult = PushDeciderTests.teamKey
        var registry: @Sendable (DeviceRegistry) -> Void = { _ in }
        var status: Int
        var body: String
    }

    private static let rows: [Row] = [
        Row(name: "BadCollapseId", fixture: Fixture().setting("apns-collapse-id", String(repeating: "x", count: 65)),
            status: 400, body: #"{"reason":"BadCollapseId"}"#),
        Row(name: "BadDeviceToken (malformed)", fixture: Fixture().token("1234"),
            status: 400, body: #"{"reason":"BadDeviceToken"}"#),
        Row(name: "BadDeviceToken (production token on sandbox)", fixture: Fixture(),
            registry: { $0.bind(Fixture.token, to: .production) },
            status: 400, body: #"{"reason":"BadDeviceToken"}"#),
        Row(name: "BadExpirationDate", fixture: Fixture().setting("apns-expiration", "soon"),
            status: 400, body: #"{"reason":"BadExpirationDate"}"#),
        Row(name: "BadPriority", fixture: Fixture().setting("apns-priority", "3"),
            status: 400, body: #"{"reason":"BadPriority"}"#),
        Row(name: "BadPriority (background at 10)", fixture: Fixture().setting("apns-push-type", "background"),
            status: 400, body: #"{"reason":"BadPriority"}"#),
        Row(name: "BadTopic", fixture: Fixture().setting("apns-topic", ""),
            status: 400, body: #"{"reason":"BadTopic"}"#),
        Row(name: "DeviceTokenNotForTopic", fixture: Fixture(),
            registry: { $0.bind(Fixture.token, toTopics: ["com.example.other"]) },
            status: 400, body: #"{"reason":"DeviceTokenNotForTopic"}"#),
        Row(name: "DeviceTokenNotForTopic (alert token to the .voip topic)",
            fixture: Fixture().setting("apns-topic", "com.example.app.voip").setting("apns-push-type", "voip"),
            registry: { $0.bind(Fixture.token, toTopics: ["com.example.app"]) },
            status: 400, body: #"{"reason":"DeviceTokenNotForTopic"}"#),
        Row(name: "DuplicateHeaders", fixture: Fixture().adding("apns-priority", "10"),
            status: 400, body: #"{"reason":"DuplicateHeaders"}"#),
        Row(name: "InvalidPushType", fixture: Fixture().setting("apns-push-type", "sms"),
            status: 400, body: #"{"reason":"InvalidPushType"}"#),
        Row(name: "InvalidPushType (alert to .voip)", fixture: Fixture().setting("apns-topic", "com.example.app.voip"),
            status: 400, body: #"{"reason":"InvalidPushType"}"#),
        Row(name: "MissingDeviceToken", fixture: Fixture().setting(":path", "/3/device/"),
            status: 400, body: #"{"reason":"MissingDeviceToken"}"#),
        Row(name: "MissingTopic (provider token)", fixture: Fixture().removing("apns-topic"),
            status: 400, body: #"{"reason":"MissingTopic"}"#),
        Row(name: "MissingTopic (multi-topic certificate)", fixture: Fixture().removing("apns-topic"),
            authentication: PushDeciderTests.certificate,
            status: 400, body: #"{"reason":"MissingTopic"}"#),
        Row(name: "PayloadEmpty", fixture: Fixture().body([]),
            status: 400, body: #"{"reason":"PayloadEmpty"}"#),
        Row(name: "TopicDisallowed (topic outside the certificate)", fixture: Fixture().setting("apns-topic", "com.example.other"),
            authentication: PushDeciderTests.certificate,
            status: 400, body: #"{"reason":"TopicDisallowed"}"#),
        Row(name: "TopicDisallowed (topic outside the key)", fixture: Fixture().setting("apns-topic", "com.example.other"),
            authentication: PushDeciderTests.topicKey,
            status: 400, body: #"{"reason":"TopicDisallowed"}"#),
        Row(name: "TopicDisallowed (voip without .voip)", fixture: Fixture().setting("apns-push-type", "voip"),
            status: 400, body: #"{"reason":"TopicDisallowed"}"#),
        Row(name: "TopicDisallowed (VoIP token to the bare bundle)", fixture: Fixture(),
            registry: { $0.bind(Fixture.token, toTopics: ["com.example.app.voip"]) },
            status: 400, body: #"{"reason":"TopicDisallowed"}"#),
        Row(name: "TopicDisallowed (location with a certificate)",
            fixture: Fixture().setting("apns-push-type", "location").setting("apns-topic", "com.example.app.location-query"),
            authentication: PushDeciderTests.certificate,
            status: 400, body: #"{"reason":"TopicDisallowed"}"#),
        Row(name: "TopicDisallowed (liveactivity with a certificate)",
            fixture: Fixture().setting("apns-push-type", "liveactivity").setting("apns-topic", "com.example.app.push-type.liveactivity"),
            authentication: .certificate(topics: ["com.example.app", "com.example.app.push-type.liveactivity"],
                                         defaultTopic: "com.example.app", environments: [.sandbox]),
            status: 400, body: #"{"reason":"TopicDisallowed"}"#),
        Row(name: "TopicDisallowed (a Live Activity topic without push type, with a certificate)",
            fixture: Fixture().removing("apns-push-type").setting("apns-topic", "com.example.app.push-type.liveactivity"),
            authentication: .certificate(topics: ["com.example.app", "com.example.app.push-type.liveactivity"],
                                         defaultTopic: "com.example.app", environments: [.sandbox]),
            status: 400, body: #"{"reason":"TopicDisallowed"}"#),
        Row(name: "MissingProviderToken", fixture: Fixture(), authentication: .unauthenticated,
            status: 403, body: #"{"reason":"MissingProviderToken"}"#),
        Row(name: "InvalidProviderToken (from the authentication layer)", fixture: Fixture(),
            authentication: .rejected(.invalidProviderToken),
            status: 403, body: #"{"reason":"InvalidProviderToken"}"#),
        Row(name: "BadCertificateEnvironment", fixture: Fixture(),
            authentication: .certificate(topics: [], defaultTopic: Fixture.topic, environments: [.production]),
            status: 403, body: #"{"reason":"BadCertificateEnvironment"}"#),
        Row(name: "BadPath", fixture: Fixture().setting(":path", "/3/devices/\(Fixture.token)"),
            status: 404, body: #"{"reason":"BadPath"}"#),
        Row(name: "MethodNotAllowed", fixture: Fixture().setting(":method", "GET"),
            status: 405, body: #"{"reason":"MethodNotAllowed"}"#),
        Row(name: "ExpiredToken", fixture: Fixture(),
            registry: { $0.markExpired(Fixture.token, since: PushDeciderTests.unregisteredAt) },
            status: 410, body: #"{"reason":"ExpiredToken","timestamp":1699999000456}"#),
        Row(name: "Unregistered", fixture: Fixture(),
            registry: { $0.markUnregistered(Fixture.token, since: PushDeciderTests.unregisteredAt) },
            status: 410, body: #"{"reason":"Unregistered","timestamp":1699999000456}"#),
        Row(name: "Unregistered (for this topic)", fixture: Fixture(),
            registry: { $0.markUnregistered(Fixture.token.uppercased(), since: 42, topic: Fixture.topic) },
            status: 410, body: #"{"reason":"Unregistered","timestamp":42}"#),
        Row(name: "TooManyRequests", fixture: Fixture(),
            registry: { $0.limitPushes(Fixture.token, to: 0, perMilliseconds: 1_000) },
            status: 429, body: #"{"reason":"TooManyRequests"}"#),
        Row(name: "PayloadTooLarge", fixture: Fixture().body(PushDeciderTests.payload(size: 4097)),
            status: 413, body: #"{"reason":"PayloadTooLarge"}"#),
        Row(name: "PayloadTooLarge (voip)",
            fixture: Fixture().setting("apns-push-type", "voip").setting("apns-topic", "com.example.app.voip")
                .body(PushDeciderTests.payload(size: 5121)),
            status: 413, body: #"{"reason":"PayloadTooLarge"}"#),
    ]

    func testEveryReasonGetsItsStatusAndExactBody() {
        for row in Self.rows {
            let registry = DeviceRegistry()
            row.registry(registry)
            let decider = PushDecider(registry: registry, clock: ServerClock(fixedAt: Self.now))
            let context = DecisionContext(environment: .sandbox, authentication: row.authentication)

            let response = HTTP2ResponseRenderer.render(decider.decide(http2: row.fixture.request, context: context))

            XCTAssertEqual(response.status, row.status, row.name)
            XCTAssertEqual(response.body, Array(row.body.utf8), row.name)
            XCTAssertEqual(response.fields, [
                HTTPHeader(name: "content-type", value: "application/json"),
                HTTPHeader(name: "apns-id", value: Fixture.apnsID),
            ], row.name)
        }
    }

    func testEveryReasonReachableWithoutAuthenticationIsCovered() {
        let covered = Set(Self.rows.map(\.body))
        let expected: [Reason] = [
            .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority,
            .badTopic, .deviceTokenNotForTopic, .duplicateHeaders, .invalidPushType,
            .missingDeviceToken, .missingTopic, .payloadEmpty, .topicDisallowed, .badPath,
            .methodNotAllowed, .expiredToken, .unregistered, .payloadTooLarge, .tooManyRequests,
        ]
        for reason in expected where reason != .badMessageId {
            XCTAssertTrue(covered.contains { $0.hasPrefix(#"{"reason":"\#(reason.rawValue)""#) }, reason.rawValue)
        }
    }

    /// A malformed apns-id cannot be echoed: the response carries a generated one.
    func testBadMessageIdGetsAGeneratedAPNsID() {
        let response = HTTP2ResponseRenderer.render(decide(Fixture().setting("apns-id", "not-a-uuid")))
        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(response.body, Array(#"{"reason":"BadMessageId"}"#.utf8))
        XCTAssertEqual(response.fields.first, HTTPHeader(name: "content-type", value: "application/json"))
        XCTAssertEqual(response.fields.count, 2)
        XCTAssertEqual(response.fields.last?.name, "apns-id")
        XCTAssertCanonicalUUID(response.fields.last?.value, uppercase: true)
    }

    // MARK: - Success

    func testSuccessEchoesTheAPNsIDByteForByte() {
        for apnsID in [Fixture.apnsID, Fixture.apnsID.uppercased(), "AbCdEf01-2345-6789-aBcD-ef0123456789"] {
            let response = HTTP2ResponseRenderer.render(decide(Fixture().setting("apns-id", apnsID), environment: .production))
            XCTAssertEqual(response, ProviderAnswer(
                status: 200, headers: [HTTPHeader(name: "apns-id", value: apnsID)], body: nil
            ))
        }
    }

    func testSuccessInSandboxAddsALowercaseUniqueID() {
        let response = HTTP2ResponseRenderer.render(decide(Fixture()))
        XCTAssertEqual(response.status, 200)
        XCTAssertNil(response.body)
        XCTAssertEqual(response.fields.map(\.name), ["apns-id", "apns-unique-id"])
        XCTAssertEqual(response.fields[0].value, Fixture.apnsID)
        XCTAssertCanonicalUUID(response.fields[1].value, uppercase: false)
    }

    func testUniqueIDIsFreshForEveryPush() {
        let first = decide(Fixture())
        let second = decide(Fixture())
        guard case .accepted(_, let firstID?) = first, case .accepted(_, let secondID?) = second else {
            return XCTFail("expected two accepted pushes with unique ids")
        }
        XCTAssertNotEqual(firstID, secondID)
    }

    func testAbsentAPNsIDIsGeneratedInTheConfiguredCase() {
        for letterCase in [UUIDLetterCase.uppercase, .lowercase] {
            let decider = PushDecider(options: ValidationOptions(generatedAPNsIDCase: letterCase))
            let verdict = decider.decide(http2: Fixture().removing("apns-id").request, context: context(.production))
            guard case .accepted(let apnsID, nil) = verdict else {
                return XCTFail("expected an accepted production push, got \(verdict)")
            }
            XCTAssertCanonicalUUID(apnsID.text, uppercase: letterCase == .uppercase)
        }
    }

    func testCertificateWithOneTopicLendsItsSubjectTopic() {
        let single = AuthenticationResult.certificate(topics: [], defaultTopic: Fixture.topic, environments: [.sandbox, .production])
        let registry = DeviceRegistry()
        registry.bind(Fixture.token, toTopics: [Fixture.topic])
        let decider = PushDecider(registry: registry)
        let verdict = decider.decide(
            http2: Fixture().removing("apns-topic").request, context: context(.production, single)
        )
        XCTAssertEqual(verdict, .accepted(apnsID: .text(Fixture.apnsID), uniqueID: nil))
    }

    func testCertificateSubjectTopicStillPairsWithThePushType() {
        let single = AuthenticationResult.certificate(topics: [], defaultTopic: Fixture.topic, environments: [.sandbox])
        let verdict = PushDecider().decide(
            http2: Fixture().removing("apns-topic").setting("apns-push-type", "voip").request,
            context: context(.sandbox, single)
        )
        XCTAssertEqual(verdict.reason, .topicDisallowed)
    }

    func testTopicSpecificKeyAllowsTheSuffixedTopicsOfItsBundle() {
        let verdict = decide(
            Fixture().setting("apns-topic", "com.example.app.voip").setting("apns-push-type", "voip"),
            environment: .production, authentication: Self.topicKey
        )
        XCTAssertEqual(verdict, .accepted(apnsID: .text(Fixture.apnsID), uniqueID: nil))
    }

    func testNoAuthenticationRequiredAcceptsAnyTopicOrNone() {
        let verdict = decide(Fixture().removing("apns-topic"), environment: .production, authentication: .notRequired)
        XCTAssertEqual(verdict, .accepted(apnsID: .text(Fixture.apnsID), uniqueID: nil))
    }

    // MARK: - Order across the steps

    func testTheDocumentedOrderDecidesAcrossSteps() {
        let unregistered: (DeviceRegistry) -> Void = { $0.markUnregistered(Fixture.token, since: 7) }
        let rows: [(String, Fixture, AuthenticationResult, (DeviceRegistry) -> Void, Reason)] = [
            ("header rules before authentication", Fixture().setting("apns-priority", "2"), .unauthenticated, { _ in }, .badPriority),
            ("token syntax before authentication", Fixture().token("xyz"), .rejected(.invalidProviderToken), { _ in }, .badDeviceToken),
            ("authentication before topic", Fixture().removing("apns-topic"), .unauthenticated, { _ in }, .missingProviderToken),
            ("authentication before registry", Fixture(), .rejected(.expiredProviderToken), unregistered, .expiredProviderToken),
            ("authentication before payload", Fixture().body([]), .unauthenticated, { _ in }, .missingProviderToken),
            ("topic before registry", Fixture().removing("apns-topic"), Self.teamKey, unregistered, .missingTopic),
            ("registry before payload", Fixture().body([]), Self.teamKey, unregistered, .unregistered),
            ("environment before unregistration", Fixture(), Self.teamKey, {
                $0.bind(Fixture.token, to: .production); $0.markUnregistered(Fixture.token, since: 7)
            }, .badDeviceToken),
            ("topic binding before expiry", Fixture(), Self.teamKey, {
                $0.bind(Fixture.token, toTopics: ["com.example.other"]); $0.markExpired(Fixture.token, since: 7)
            }, .deviceTokenNotForTopic),
            ("expiry before unregistration", Fixture(), Self.teamKey, {
                $0.markExpired(Fixture.token, since: 7); $0.markUnregistered(Fixture.token, since: 8)
            }, .expiredToken),
            ("empty before non-object", Fixture().body([]), Self.teamKey, { _ in }, .payloadEmpty),
        ]
        for (name, fixture, authentication, setUp, reason) in rows {
            let registry = DeviceRegistry()
            setUp(registry)
            let verdict = PushDecider(registry: registry).decide(
                http2: fixture.request, context: context(.sandbox, authentication)
            )
            XCTAssertEqual(verdict.reason, reason, name)
        }
    }

    func testPushBudgetFollowsTheServerClock() {
        let registry = DeviceRegistry()
        registry.limitPushes(Fixture.token, to: 1, perMilliseconds: 60_000)
        let clock = ServerClock(fixedAt: Self.now)
        let decider = PushDecider(registry: registry, clock: clock)
        let request = Fixture().request
        XCTAssertNil(decider.decide(http2: request, context: context(.sandbox)).reason)
        XCTAssertEqual(decider.decide(http2: request, context: context(.sandbox)).reason, .tooManyRequests)
        clock.advance(milliseconds: 60_000)
        XCTAssertNil(decider.decide(http2: request, context: context(.sandbox)).reason)
    }

    // MARK: - Options

    func testNonObjectPayloadPolicy() {
        let bodies = ["[1,2]", "\"text\"", "42", "null", "not json", "{\"aps\":"]
        for body in bodies {
            XCTAssertNil(decide(Fixture().body(body)).reason, "accepted by default: \(body)")
            let strict = PushDecider(options: ValidationOptions(nonObjectPayload: .reject(.badTopic)))
            let verdict = strict.decide(http2: Fixture().body(body).request, context: context(.sandbox))
            XCTAssertEqual(verdict.reason, .badTopic, body)
        }
    }

    func testPayloadLimitsAreConfigurable() {
        let decider = PushDecider(options: ValidationOptions(payloadLimit: 100))
        XCTAssertNil(decider.decide(http2: Fixture().body(Self.payload(size: 100)).request, context: context(.sandbox)).reason)
        XCTAssertEqual(
            decider.decide(http2: Fixture().body(Self.payload(size: 101)).request, context: context(.sandbox)).reason,
            .payloadTooLarge
        )
    }

    func testTopicNotAllowedReasonIsConfigurable() {
        let decider = PushDecider(options: ValidationOptions(topicNotAllowedReason: .badTopic))
        let verdict = decider.decide(
            http2: Fixture().setting("apns-topic", "com.example.other").request,
            context: context(.sandbox, Self.certificate)
        )
        XCTAssertEqual(verdict.reason, .badTopic)
    }

    // MARK: - Validate, then decide

    /// `judge` gives the verdict and the request the journal records: routed when valid, as
    /// far as the headers tell when not.
    func testJudgeGivesTheVerdictAndTheRequestToRecord() {
        let decider = PushDecider(registry: DeviceRegistry())
        let valid = decider.judge(http2: Fixture().request, context: context(.sandbox))
        guard case .accepted = valid.verdict else { return XCTFail("a valid push is accepted: \(valid.verdict)") }
        XCTAssertEqual(valid.request.deviceToken, Fixture.token)
        XCTAssertEqual(valid.request.topic, Fixture.topic)

        let refused = decider.judge(
            http2: Fixture().setting(":path", "/3/device/not-hex").setting("apns-priority", "5").request, context: context(.sandbox))
        XCTAssertEqual(refused.verdict.reason, .badDeviceToken)
        XCTAssertEqual(refused.request.deviceToken, "not-hex", "the refused request keeps what its path said")
        XCTAssertEqual(refused.request.priority, .powerAware)
        XCTAssertEqual(refused.request.topic, Fixture.topic)
    }

    // MARK: - Legacy requests

    func testLegacyRequestUsesTheCertificateTopicAndTheSameRegistry() {
        let registry = DeviceRegistry()
        let decider = PushDecider(registry: registry)
        let push = PushRequest(
            transport: .legacy, deviceToken: Fixture.token, payload: Fixture.payload, legacyIdentifier: 7
        )
        let legacyContext = context(.sandbox, Self.certificate)
        guard case .accepted = decider.decide(push, context: legacyContext) else {
            return XCTFail("a legacy push with a multi-topic certificate uses the subject topic")
        }

        registry.markUnregistered(Fixture.token, since: Self.unregisteredAt, topic: Fixture.topic)
        let verdict = decider.decide(push, context: legacyContext)
        XCTAssertEqual(verdict.reason, .unregistered)
        XCTAssertEqual(verdict.reason?.legacyStatus, .invalidToken)
        if case .rejected(_, _, let timestamp) = verdict {
            XCTAssertEqual(timestamp, Self.unregisteredAt)
        }
    }

    // MARK: - Helpers

    static func payload(size: Int) -> [UInt8] {
        let opening = Array(#"{"aps":{"alert":""#.utf8)
        let closing = Array(#""}}"#.utf8)
        return opening + Array(repeating: UInt8(ascii: "a"), count: size - opening.count - closing.count) + closing
    }

    private func context(
        _ environment: APNsEnvironment, _ authentication: AuthenticationResult = PushDeciderTests.teamKey
    ) -> DecisionContext {
        DecisionContext(environment: environment, authentication: authentication)
    }

    private func decide(
        _ fixture: Fixture,
        environment: APNsEnvironment = .sandbox,
        authentication: AuthenticationResult = PushDeciderTests.teamKey
    ) -> Verdict {
        PushDecider().decide(http2: fixture.request, context: context(environment, authentication))
    }

    // MARK: - What the answer does not say

    private func assess(_ fixture: Fixture, options: ValidationOptions = .default, registry: DeviceRegistry = DeviceRegistry(),
                        authentication: AuthenticationResult = PushDeciderTests.teamKey,
                        environment: APNsEnvironment = .sandbox) -> PushAssessment {
        PushDecider(options: options, registry: registry, clock: ServerClock(fixedAt: Self.now))
            .assess(http2: fixture.request, context: DecisionContext(environment: environment, authentication: authentication))
    }

    private static let liveActivity = Fixture().setting("apns-push-type", "liveactivity")
        .setting("apns-topic", "com.example.app.push-type.liveactivity")

    /// `BadDeviceToken` from the token's syntax comes with the diagnosis that says what is
    /// wrong; other refusals of the header rules come with none.
    func testAMalformedTokenRefusalCarriesItsExplanation() {
        let odd = assess(Fixture().token(String(Fixture.token.dropLast())))
        XCTAssertEqual(odd.verdict.reason, .badDeviceToken)
        XCTAssertEqual(odd.diagnoses.map(\.code), [.http2MalformedDeviceToken])
        XCTAssertEqual(assess(Fixture().setting("apns-priority", "7")).diagnoses, [])
    }

    /// Apple answers 200 to a Live Activity without `event`; the mock says why the device
    /// will ignore it, and refuses it only when asked.
    func testPayloadRulesDiagnoseByDefaultAndRefuseWhenAsked() {
        let missingEvent = Self.liveActivity.body(Array(#"{"aps":{"timestamp":1700000000,"content-state":{}}}"#.utf8))
        let diagnosed = assess(missingEvent)
        XCTAssertEqual(diagnosed.verdict, .accepted(apnsID: .text(Fixture.apnsID), uniqueID: diagnosed.verdict.uniqueIDForTests))
        XCTAssertEqual(diagnosed.diagnoses.map(\.code), [.payloadLiveActivityWithoutEvent])

        let refused = assess(missingEvent, options: ValidationOptions(payloadRules: .refuse))
        XCTAssertEqual(refused.verdict.reason, .invalidPushType)
        XCTAssertEqual(refused.diagnoses.map(\.code), [.payloadLiveActivityWithoutEvent])

        let pushToTalk = Fixture().setting("apns-push-type", "pushtotalk").setting("apns-topic", "com.example.app.voip-ptt")
            .setting("apns-priority", "5")
        XCTAssertEqual(assess(pushToTalk, options: ValidationOptions(payloadRules: .refuse)).verdict.reason, .badPriority)

        // The push type a topic suffix implies counts: a widgets topic without a push type.
        let widgets = Fixture().removing("apns-push-type").setting("apns-topic", "com.example.app.push-type.widgets")
        XCTAssertEqual(assess(widgets).diagnoses.map(\.code), [.payloadWithoutContentChanged])
        // Refused earlier for another reason: no payload rules run.
        XCTAssertEqual(assess(missingEvent, authentication: .unauthenticated).diagnoses, [])
    }

    func testLiveActivityWithACertificateCanBeAllowed() {
        let certificate = AuthenticationResult.certificate(
            topics: ["com.example.app", "com.example.app.push-type.liveactivity"], defaultTopic: "com.example.app", environments: [.sandbox])
        let update = Self.liveActivity.body(Array(#"{"aps":{"timestamp":1700000000,"event":"update","content-state":{}}}"#.utf8))
        XCTAssertEqual(assess(update, authentication: certificate).verdict.reason, .topicDisallowed)
        XCTAssertNil(assess(update, options: ValidationOptions(liveActivityWithCertificate: .accept), authentication: certificate).verdict.reason)
        XCTAssertEqual(assess(update, options: ValidationOptions(liveActivityWithCertificate: .reject(.invalidPushType)),
                              authentication: certificate).verdict.reason, .invalidPushType)
        XCTAssertNil(assess(update).verdict.reason, "provider tokens are Apple's way")
    }

    /// A token of the other environment: `BadDeviceToken`, and the journal hears which one it belongs to.
    func testATokenOfTheOtherEnvironmentIsExplained() throws {
        let registry = DeviceRegistry()
        registry.bind(Fixture.token, to: .production)
        let assessment = assess(Fixture(), registry: registry)
        XCTAssertEqual(assessment.verdict.reason, .badDeviceToken)
        let diagnosis = try XCTUnwrap(assessment.diagnoses.first)
        XCTAssertEqual(diagnosis.code, .registryTokenInOtherEnvironment)
        XCTAssertTrue(diagnosis.message.contains("belongs to the production environment"), diagnosis.message)
        XCTAssertTrue(diagnosis.message.contains("reached the sandbox listener"), diagnosis.message)
        XCTAssertEqual(assess(Fixture(), registry: registry, environment: .production).diagnoses, [])
    }

    /// A full rate window: `TooManyRequests`, with the window's figures.
    func testAFullRateWindowIsJournaledWithItsFigures() throws {
        let registry = DeviceRegistry(rateWindow: RateWindow(pushes: 1, perMilliseconds: 60_000))
        XCTAssertNil(assess(Fixture(), registry: registry).verdict.reason)
        let second = assess(Fixture(), registry: registry)
        XCTAssertEqual(second.verdict.reason, .tooManyRequests)
        let diagnosis = try XCTUnwrap(second.diagnoses.first)
        XCTAssertEqual(diagnosis.code, .registryRateLimited)
        XCTAssertEqual(diagnosis.figures, [
            JournalFigure("pushes", 1), JournalFigure("perMilliseconds", 60_000), JournalFigure("pushNumber", 2),
            JournalFigure("windowStart", Self.now), JournalFigure("millisecondsLeft", 60_000),
        ])
        XCTAssertTrue(diagnosis.message.contains("server-wide limit (registry.rateLimit)"), diagnosis.message)
    }
}

func XCTAssertCanonicalUUID(
    _ text: String?, uppercase: Bool, file: StaticString = #filePath, line: UInt = #line
) {
    guard let text else { return XCTFail("no UUID", file: file, line: line) }
    let hex = uppercase ? "0123456789ABCDEF" : "0123456789abcdef"
    let groups = text.split(separator: "-", omittingEmptySubsequences: false)
    XCTAssertEqual(groups.map(\.count), [8, 4, 4, 4, 12], text, file: file, line: line)
    XCTAssertTrue(groups.joined().allSatisfy(hex.contains), "\(text) not all \(uppercase ? "upper" : "lower")case hex", file: file, line: line)

}

private extension Verdict {
    /// The unique id an accepted verdict carries, to compare the rest of it.
    var uniqueIDForTests: MessageID? {
        if case .accepted(_, let uniqueID) = self { return uniqueID }
        return nil
    }
}
