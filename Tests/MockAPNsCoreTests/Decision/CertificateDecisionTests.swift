import XCTest
@testable import MockAPNsCore
@testable import MockAPNsDevelopmentPKI

/// Real development certificates, read by `CertificateIdentity`, through the decision core.
final class CertificateDecisionTests: XCTestCase {
    typealias Fixture = PushRequestFixture

    private static let set = Result {
        try DevelopmentCertificateFactory(options: DevelopmentCertificateOptions(
            bundleID: "com.example.app", extraTopics: [], teamID: "TEAM00000A"
        )).generate()
    }

    private func authentication(_ kind: DevelopmentClientCertificate) throws -> AuthenticationResult {
        let credential = try Self.set.get().client(kind)
        return .certificate(try CertificateIdentity(derEncoded: credential.certificateDER()))
    }

    private func reason(
        _ fixture: Fixture, _ kind: DevelopmentClientCertificate, on environment: APNsEnvironment
    ) throws -> Reason? {
        PushDecider().decide(
            http2: fixture.request,
            context: DecisionContext(environment: environment, authentication: try authentication(kind))
        ).reason
    }

    func testUniversalCertificateWithItsTopicList() throws {
        let voip = Fixture().setting("apns-topic", "com.example.app.voip").setting("apns-push-type", "voip")
        let rows: [(String, Fixture, APNsEnvironment, Reason?)] = [
            ("own topic, sandbox", Fixture(), .sandbox, nil),
            ("own topic, production", Fixture(), .production, nil),
            ("listed .voip topic", voip, .sandbox, nil),
            ("no topic, several listed", Fixture().removing("apns-topic"), .sandbox, .missingTopic),
            ("another app's topic", Fixture().setting("apns-topic", "com.example.other"), .sandbox, .topicDisallowed),
            ("location is token-only", Fixture().setting("apns-topic", "com.example.app.location-query")
                .setting("apns-push-type", "location"), .sandbox, .topicDisallowed),
        ]
        for (name, fixture, environment, expected) in rows {
            XCTAssertEqual(try reason(fixture, .universal, on: environment), expected, name)
        }
    }

    func testSingleEnvironmentCertificates() throws {
        XCTAssertNil(try reason(Fixture(), .sandbox, on: .sandbox))
        XCTAssertEqual(try reason(Fixture(), .sandbox, on: .production), .badCertificateEnvironment)
        XCTAssertNil(try reason(Fixture(), .production, on: .production))
        XCTAssertEqual(try reason(Fixture(), .production, on: .sandbox), .badCertificateEnvironment)
    }

    func testSubjectTopicServesRequestsWithoutATopic() throws {
        let authentication = try authentication(.sandbox)
        guard case .certificate(let topics, "com.example.app", [.sandbox]) = authentication, topics.count <= 1 else {
            throw XCTSkip("the sandbox development certificate lists several topics: \(authentication)")
        }
        XCTAssertNil(try reason(Fixture().removing("apns-topic"), .sandbox, on: .sandbox))
    }

    /// A legacy frame cannot name a topic: the subject's topic is used even with a topic list.
    func testLegacyPushUsesTheSubjectTopic() throws {
        let registry = DeviceRegistry()
        registry.bind(Fixture.token, toTopics: ["com.example.app"])
        let verdict = PushDecider(registry: registry).decide(
            PushRequest(transport: .legacy, deviceToken: Fixture.token, payload: Fixture.payload),
            context: DecisionContext(environment: .production, authentication: try authentication(.universal))
        )
        XCTAssertNil(verdict.reason)
    }

    func testCertificateWithoutSubjectTopicNeedsATopic() {
        let authentication = AuthenticationResult.certificate(topics: [], defaultTopic: nil, environments: [.sandbox])
        let decider = PushDecider()
        let context = DecisionContext(environment: .sandbox, authentication: authentication)
        XCTAssertEqual(decider.decide(http2: Fixture().removing("apns-topic").request, context: context).reason, .missingTopic)
        XCTAssertEqual(
            decider.decide(PushRequest(transport: .legacy, deviceToken: Fixture.token, payload: Fixture.payload), context: context).reason,
            .missingTopic
        )
    }
}
