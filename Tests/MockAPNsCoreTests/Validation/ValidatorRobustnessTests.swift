import MockAPNsWire
import XCTest
@testable import MockAPNsCore

/// Whatever a client sends, the core answers with a verdict: no input may crash it.
final class ValidatorRobustnessTests: XCTestCase {
    private static let names = [
        ":method", ":path", ":scheme", ":authority", "authorization", "apns-id", "apns-expiration",
        "apns-priority", "apns-topic", "apns-push-type", "apns-collapse-id", "x-other", "",
    ]
    private static let fragments = [
        "", "POST", "/3/device/", "/3/device/a1b2", "10", "5", "voip", "alert", "background",
        "com.x", ".voip", "123e4567-e89b-42d3-a456-426614174000", "é", "😀", "\u{301}", "\0",
        "-", "9", "ff", "FF", "{", "}", "\"", "\\", " ", "99999999999999999999",
    ]

    func testRandomRequestsAlwaysGetAVerdictAndAResponse() {
        var random = SeededRandom(seed: 20_260_101)
        let decider = PushDecider(options: ValidationOptions(nonObjectPayload: .reject(.badTopic)))
        for _ in 0..<20_000 {
            let headers = (0..<Int.random(in: 0...12, using: &random)).map { _ in
                HTTPHeader(
                    name: Self.names.randomElement(using: &random) ?? "",
                    value: (0..<Int.random(in: 0...4, using: &random))
                        .map { _ in Self.fragments.randomElement(using: &random) ?? "" }.joined()
                )
            }
            let body = (0..<Int.random(in: 0...40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            let authentication: AuthenticationResult = [
                .notRequired, .unauthenticated, .providerToken(teamID: "T", keyID: "K", allowedTopics: ["com.x"]),
                .certificate(topics: ["com.x", "com.x.voip"], defaultTopic: "com.x", environments: [.sandbox]),
            ].randomElement(using: &random) ?? .notRequired
            let verdict = decider.decide(
                http2: ProviderRequest(headers: headers, body: body),
                context: DecisionContext(environment: .sandbox, authentication: authentication)
            )
            let response = HTTP2ResponseRenderer.render(verdict)
            XCTAssertEqual(response.status, verdict.reason?.httpStatus ?? 200)
        }
    }

    /// Well-formed requests with one or two values replaced reach the later rules too.
    func testMutatedValidRequestsAlwaysGetAVerdict() {
        var random = SeededRandom(seed: 42)
        let registry = DeviceRegistry()
        registry.markUnregistered(PushRequestFixture.token, since: 1, topic: "com.x")
        registry.bind(PushRequestFixture.token, toTopics: ["com.example.app", "com.x"])
        let decider = PushDecider(registry: registry)
        var outcomes: Set<Reason?> = []
        for _ in 0..<20_000 {
            var fixture = PushRequestFixture()
            for _ in 0..<Int.random(in: 1...2, using: &random) {
                let index = Int.random(in: 0..<fixture.headers.count, using: &random)
                let suffix = (0..<Int.random(in: 0...2, using: &random))
                    .map { _ in Self.fragments.randomElement(using: &random) ?? "" }.joined()
                fixture.headers[index].value = Bool.random(using: &random)
                    ? suffix : fixture.headers[index].value + suffix
            }
            if Int.random(in: 0..<8, using: &random) == 0 { fixture.body = [] }
            let verdict = decider.decide(
                http2: fixture.request,
                context: DecisionContext(environment: .sandbox, authentication: .notRequired)
            )
            outcomes.insert(verdict.reason)
            XCTAssertEqual(HTTP2ResponseRenderer.render(verdict).status, verdict.reason?.httpStatus ?? 200)
        }
        // The mutations reach most rules, not just the first one.
        XCTAssertGreaterThan(outcomes.count, 10, "\(outcomes)")
    }
}
